/**
 * The particle demo: a webgpu-collide particle world stepped and drawn on the GPU every frame.
 * The scene (demo/scene.ts) is an hourglass: the particles pour out of a hopper's spout and pile
 * up on the floor (100,000 by default on a hardware GPU). GPU picking through the world's
 * raycast (hover, drag, shift-click to push), and a "ray rain" of thousands of raycasts per frame
 * whose hit points are drawn straight from the GPU.
 *
 * On a software adapter (SwiftShader, llvmpipe: the shaders run on the CPU) it starts smaller, so
 * that the pile forms within about 20 s at 10+ frames a second there (see `sizeFor` below).
 *
 * URL parameters: ?count=N (particles), ?selftest (run the GPU-vs-CPU self-check), ?paused.
 * For tests, `window.__demo` exposes frame counts, errors, the scene and picking hooks.
 */
import GUI from 'lil-gui';
import { vec3 } from 'wgpu-matrix';
import { createParticleWorld, requestBrowserDevice, describeDevice, NoAdapterError, BROWSER_HELP, type ParticleWorld } from '../src/index.js';
import { GPU_STRIDE, CastHitRecord } from '../src/layout.js';
import { OrbitCamera } from './camera.js';
import { Renderer } from './renderer.js';
import { runSelfTest, type SelfTest } from './selftest.js';
import { pourScene } from './scene.js';

interface DemoHooks {
  frames: number;
  errors: string[];
  adapter: string;
  /** A software adapter: the demo starts small (see `sizeFor`). */
  fallback: boolean;
  /** Seconds simulated per frame: 1/60 on a GPU, 1/30 on a software adapter. */
  frameDt: number;
  /** Particles that pour (indices 0 … particleCount − 1); the hopper's static spheres follow. */
  particleCount: number;
  /** The scene's box and spout (see demo/scene.ts). */
  scene: { bounds: number[]; spoutY: number; hopperTop: number; hopperSpheres: number } | null;
  /** Seconds simulated since the last reset. */
  time: number;
  hovered: number;
  /** The particle being dragged, or −1. */
  dragged: number;
  /** The last particle pushed (shift-click), or −1. */
  pushed: number;
  pairs: number;
  /** Particles asleep in a recent step. */
  asleep: number;
  selftest: SelfTest | null;
  setPaused(paused: boolean): void;
  pickAt(x: number, y: number): Promise<number>;
  /** The particle whose surface is nearest the eye, of all or only of those that pour, and where it is on the page. */
  frontParticle(pouredOnly?: boolean): Promise<{ index: number; x: number; y: number }>;
  positions(): Promise<Float32Array>;
  /** The particles' velocities (vx, vy, vz each), read back. */
  velocities(): Promise<Float32Array>;
}

declare global {
  interface Window {
    __demo: DemoHooks;
  }
}

const query = new URLSearchParams(location.search);

/**
 * How big the demo starts. A GPU: 100,000 particles, the canvas at the screen's resolution, 1/60
 * s simulated a frame. A software adapter runs every shader on the CPU, where the step and the
 * drawing cost a few hundred milliseconds a frame at a GPU's sizes: there 400 particles (a
 * hopper of 740 static spheres around them), the canvas at half resolution (CSS scales it up)
 * and 1/30 s a frame (4 substeps of 1/120 s), so that the pile forms within about 20 s at 10 or
 * more frames a second (SwiftShader, 2 cores). `?count=N` asks for N particles on either.
 */
function sizeFor(software: boolean): { count: number; maxCount: number; pixelScale: number; frameDt: number } {
  return software
    ? { count: 400, maxCount: 50_000, pixelScale: 0.5, frameDt: 1 / 30 }
    : { count: 100_000, maxCount: 1_000_000, pixelScale: Math.min(window.devicePixelRatio || 1, 2), frameDt: 1 / 60 };
}
const canvas = document.getElementById('canvas') as HTMLCanvasElement;
const statsLine = document.getElementById('stats')!;
const hooks: DemoHooks = {
  frames: 0,
  errors: [],
  adapter: '',
  fallback: false,
  frameDt: 1 / 60,
  particleCount: 0,
  scene: null,
  time: 0,
  hovered: -1,
  dragged: -1,
  pushed: -1,
  pairs: 0,
  asleep: 0,
  selftest: null,
  setPaused: () => undefined,
  pickAt: async () => -1,
  frontParticle: async () => ({ index: -1, x: 0, y: 0 }),
  positions: async () => new Float32Array(0),
  velocities: async () => new Float32Array(0),
};
window.__demo = hooks;

function showMessage(text: string): void {
  document.getElementById('message-text')!.textContent = text;
  document.getElementById('message')!.style.display = 'flex';
  statsLine.style.display = 'none';
  document.getElementById('help')!.style.display = 'none';
}

window.addEventListener('error', (event) => hooks.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) => hooks.errors.push(String((event.reason as Error)?.message ?? event.reason)));

main().catch((error: unknown) => {
  hooks.errors.push((error as Error).message);
  showMessage(`The demo could not start: ${(error as Error).message}`);
});

async function main(): Promise<void> {
  if (!('gpu' in navigator)) {
    showMessage(`This browser has no WebGPU (navigator.gpu is missing). ${BROWSER_HELP}`);
    return;
  }
  let device: GPUDevice;
  try {
    device = await requestBrowserDevice();
  } catch (error) {
    if (error instanceof NoAdapterError) {
      showMessage(error.message);
      return;
    }
    throw error;
  }
  device.onuncapturederror = (event) => hooks.errors.push((event as GPUUncapturedErrorEvent).error.message);
  const info = describeDevice(device);
  hooks.adapter = info?.description || [info?.vendor, info?.architecture].filter(Boolean).join(' ') || 'unknown adapter';
  hooks.fallback = Boolean(info?.software || info?.isFallbackAdapter || info?.architecture === 'swiftshader');
  const size = sizeFor(hooks.fallback);
  hooks.frameDt = size.frameDt;
  const timestamps = device.features.has('timestamp-query');

  const context = canvas.getContext('webgpu') as GPUCanvasContext;
  const format = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format, alphaMode: 'opaque' });
  const renderer = new Renderer(device, context, format);

  const resize = (): void => {
    const scale = size.pixelScale;
    canvas.width = Math.max(1, Math.floor(canvas.clientWidth * scale));
    canvas.height = Math.max(1, Math.floor(canvas.clientHeight * scale));
  };
  resize();
  window.addEventListener('resize', resize);

  // Fewer particles on a software adapter (SwiftShader runs the shaders on the CPU): sizeFor.
  const { maxCount } = size;
  const asked = Math.floor(Number(query.get('count')));
  const settings = {
    particles: Math.max(1, Math.min(asked || size.count, maxCount)),
    iterations: 2,
    substeps: 4,
    restitution: 0.3,
    friction: 0.4,
    gravity: -9.8,
    pickBroadphase: 'grid' as 'grid' | 'all-pairs',
    paused: query.has('paused'),
    rayRain: false,
    rainRays: 4000,
    step: () => stepOnce(),
    reset: () => void reset(),
  };
  const parameters = () => ({
    iterations: settings.iterations,
    substeps: settings.substeps,
    restitution: settings.restitution,
    friction: settings.friction,
    gravity: [0, settings.gravity, 0],
  });

  let world: ParticleWorld | null = null;
  let bounds = [0, 0, 0, 1, 1, 1];
  let poured = 0;
  /** The particle being dragged with the pointer (picking, below). */
  let dragging: { index: number; distance: number } | null = null;
  const camera = new OrbitCamera([0.5, 0.5, 0.5], 3);

  // The hourglass: every particle starts loose in the hopper and pours out of its spout.
  async function reset(): Promise<void> {
    const scene = pourScene(settings.particles);
    const next = await createParticleWorld({ device, capacity: scene.spheres.length / 4, bounds: scene.bounds, ...parameters() });
    next.setParticles(scene);
    world?.destroy();
    world = next;
    bounds = scene.bounds;
    poured = scene.poured;
    dragging = null;
    hooks.dragged = -1;
    hooks.hovered = -1;
    hooks.time = 0;
    hooks.particleCount = scene.poured;
    hooks.scene = { bounds: [...scene.bounds], spoutY: scene.spoutY, hopperTop: scene.hopperTop, hopperSpheres: scene.spheres.length / 4 - scene.poured };
    const [width, height] = [bounds[3], bounds[4]];
    camera.target = vec3.fromValues(width / 2, height * 0.45, width / 2);
    camera.distance = 1.9 * Math.max(height, 1.2 * width);
  }

  await reset();

  const gui = new GUI({ title: 'webgpu-collide' });
  gui.add(settings, 'particles', 100, maxCount, 100).onFinishChange(() => void reset());
  gui.add(settings, 'iterations', 1, 32, 1).name('solver iterations').onChange(() => world?.setParameters(parameters()));
  gui.add(settings, 'substeps', 1, 16, 1).onChange(() => world?.setParameters(parameters()));
  gui.add(settings, 'restitution', 0, 1, 0.05).onChange(() => world?.setParameters(parameters()));
  gui.add(settings, 'friction', 0, 1.5, 0.05).onChange(() => world?.setParameters(parameters()));
  gui.add(settings, 'gravity', -30, 0, 0.1).onChange(() => world?.setParameters(parameters()));
  gui.add(settings, 'reset').name('pour again');
  gui.add(settings, 'paused');
  gui.add(settings, 'step').name('step once');
  gui.add(settings, 'pickBroadphase', ['grid', 'all-pairs']).name('picking broad phase');
  gui.add(settings, 'rayRain').name('ray rain');
  gui.add(settings, 'rainRays', 100, 50_000, 100).name('rain rays / frame');
  hooks.setPaused = (paused) => {
    settings.paused = paused;
    gui.controllersRecursive().forEach((c) => c.updateDisplay());
  };

  // Ray rain: rays fall straight down from random points above the box; the world casts them on
  // the GPU and the renderer draws the hit points from the hit records, all without readback.
  let rain: { rays: GPUBuffer; hits: GPUBuffer; capacity: number } | null = null;
  const rainBuffers = (count: number): NonNullable<typeof rain> => {
    if (!rain || rain.capacity < count) {
      rain?.rays.destroy();
      rain?.hits.destroy();
      rain = {
        rays: device.createBuffer({ label: 'rain rays', size: 4 * GPU_STRIDE.cast * count, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST }),
        hits: device.createBuffer({ label: 'rain hits', size: CastHitRecord.size * count, usage: GPUBufferUsage.STORAGE }),
        capacity: count,
      };
    }
    return rain;
  };

  // Picking: the ray through the pointer, cast on the GPU against the particles.
  const pointer = { x: 0, y: 0, inside: false, moved: false };
  let picking = false;
  let orbiting: { x: number; y: number } | null = null;
  const rayAt = (clientX: number, clientY: number) => {
    const rect = canvas.getBoundingClientRect();
    return camera.rayThrough(clientX - rect.left, clientY - rect.top, rect.width, rect.height);
  };
  const pick = async (clientX: number, clientY: number): Promise<{ index: number; distance: number }> => {
    const current = world;
    if (!current) return { index: -1, distance: 0 };
    const { origin, direction } = rayAt(clientX, clientY);
    const length = camera.distance * 10;
    const ray = new Float32Array([...origin, ...vec3.addScaled(origin, direction, length)]);
    try {
      const hit = await current.raycast(ray, { broadphase: settings.pickBroadphase });
      return { index: hit.index[0], distance: hit.distance[0] };
    } catch (error) {
      // `reset` replaced the world while the raycast was in flight: a miss.
      if (current !== world) return { index: -1, distance: 0 };
      throw error;
    }
  };
  hooks.pickAt = async (x, y) => (await pick(x, y)).index;
  hooks.positions = async () => (world ? (await world.read()).spheres : new Float32Array(0));
  hooks.velocities = async () => (world ? (await world.read()).velocities : new Float32Array(0));
  hooks.frontParticle = async (pouredOnly = false) => {
    const spheres = await hooks.positions();
    const eye = camera.eye;
    let best = -1;
    let nearest = Infinity;
    for (let i = 0; i < (pouredOnly ? poured : spheres.length / 4); i++) {
      const d = Math.hypot(spheres[4 * i] - eye[0], spheres[4 * i + 1] - eye[1], spheres[4 * i + 2] - eye[2]) - spheres[4 * i + 3];
      if (d < nearest) {
        nearest = d;
        best = i;
      }
    }
    const rect = canvas.getBoundingClientRect();
    const [x, y] = camera.project(spheres.subarray(4 * best, 4 * best + 3), rect.width, rect.height);
    return { index: best, x: x + rect.left, y: y + rect.top };
  };

  canvas.addEventListener('pointermove', (event) => {
    pointer.x = event.clientX;
    pointer.y = event.clientY;
    pointer.inside = true;
    pointer.moved = true;
    if (orbiting) {
      camera.orbit(event.clientX - orbiting.x, event.clientY - orbiting.y);
      orbiting = { x: event.clientX, y: event.clientY };
    } else if (dragging && world) {
      const { origin, direction } = rayAt(event.clientX, event.clientY);
      world.setParticle(dragging.index, { position: vec3.addScaled(origin, direction, dragging.distance), velocity: [0, 0, 0] });
    }
  });
  canvas.addEventListener('pointerleave', () => (pointer.inside = false));
  let pressed = false;
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    pressed = true;
    void pick(event.clientX, event.clientY).then((hit) => {
      // A miss, or one of the hopper's static spheres (they never move): orbit.
      if (hit.index < 0 || hit.index >= poured || !world) {
        if (pressed) orbiting = { x: event.clientX, y: event.clientY };
        return;
      }
      const { direction } = rayAt(event.clientX, event.clientY);
      if (event.shiftKey) {
        world.setParticle(hit.index, { velocity: vec3.scale(direction, 15) });
        hooks.pushed = hit.index;
      } else if (pressed) {
        dragging = { index: hit.index, distance: hit.distance };
        hooks.dragged = hit.index;
      }
    });
  });
  canvas.addEventListener('pointerup', () => {
    pressed = false;
    dragging = null;
    hooks.dragged = -1;
    orbiting = null;
  });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    camera.zoom(Math.exp(event.deltaY * 0.001));
  }, { passive: false });

  // Stats: frames per second and frame time, particles, touching pairs, particles asleep, GPU time per stage.
  let fps = 0;
  let frameMs = 0;
  let framesThisSecond = 0;
  let secondStart = performance.now();
  let stageText = timestamps ? 'GPU stages: measuring…' : 'GPU stages: no timestamp-query on this adapter';
  let stepOnceRequested = false;
  function stepOnce(): void {
    stepOnceRequested = true;
  }

  const frame = (): void => {
    if (!world) {
      requestAnimationFrame(frame);
      return;
    }
    const current = world;
    // A read or raycast still in flight when `reset` replaces the world fails: only then is that expected.
    const unlessReplaced = (error: unknown): void => {
      if (current === world) throw error;
    };
    // One step a frame (1/60 s; 1/30 s on a software adapter); the world splits it into `substeps`.
    const dt = size.frameDt;
    const encoder = device.createCommandEncoder({ label: 'demo frame' });
    const advance = !settings.paused || stepOnceRequested;
    stepOnceRequested = false;
    if (advance) {
      if (timestamps && hooks.frames % 60 === 30) {
        // Now and then a profiled step (its own submission, queued before this frame's render).
        const { substeps, iterations } = current.parametersNow;
        void current.step(dt, 1, { profile: true }).then(() => {
          const stages = new Map<string, number>();
          for (const s of current.lastProfile?.stages ?? []) stages.set(s.name, (stages.get(s.name) ?? 0) + s.ms);
          const total = current.lastProfile?.totalMs ?? 0;
          stageText = `GPU step ${total.toFixed(2)} ms (${substeps} substeps × ${iterations} iterations): ` + [...stages].map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ');
        }, unlessReplaced);
      } else {
        current.encode(encoder, dt);
      }
      hooks.time += dt;
    }
    let hits: { buffer: GPUBuffer; count: number } | undefined;
    if (settings.rayRain) {
      const count = settings.rainRays;
      const buffers = rainBuffers(count);
      const rays = new Float32Array(GPU_STRIDE.cast * count);
      const top = bounds[4] * 1.2;
      for (let k = 0; k < count; k++) {
        const x = Math.random() * bounds[3];
        const z = Math.random() * bounds[5];
        rays.set([x, top, z, 0, x, -0.1, z, 0], GPU_STRIDE.cast * k);
      }
      device.queue.writeBuffer(buffers.rays, 0, rays);
      current.encodeRaycast(encoder, buffers.rays, count, buffers.hits, top + 0.1);
      hits = { buffer: buffers.hits, count };
    }
    const aspect = canvas.width / canvas.height;
    renderer.draw(encoder, {
      viewProj: camera.viewProjection(aspect),
      eye: camera.eye,
      highlight: dragging?.index ?? hooks.hovered,
      bounds,
      speedScale: 0.1,
      hitRadius: bounds[3] * 0.004,
    }, current.buffers.spheres, current.buffers.velocities, current.count, hits, poured);
    device.queue.submit([encoder.finish()]);
    hooks.frames++;

    // Hover picking, one raycast in flight at a time.
    if (pointer.inside && pointer.moved && !picking && !dragging && !orbiting) {
      picking = true;
      pointer.moved = false;
      void pick(pointer.x, pointer.y).then((hit) => {
        hooks.hovered = hit.index;
      }, unlessReplaced).finally(() => (picking = false));
    }
    if (hooks.frames % 15 === 0) {
      void current.contactCount().then((n) => (hooks.pairs = n), unlessReplaced);
      void current.sleepingCount().then((n) => (hooks.asleep = n), unlessReplaced);
      // Steps recorded with `encode` cannot grow the contact lists themselves: grow them here
      // when a step found more contacts than they hold (a pile fills them as it forms).
      void current.checkContactCapacity().catch(unlessReplaced);
    }

    framesThisSecond++;
    const now = performance.now();
    if (now - secondStart >= 1000) {
      fps = (framesThisSecond * 1000) / (now - secondStart);
      frameMs = (now - secondStart) / framesThisSecond;
      framesThisSecond = 0;
      secondStart = now;
    }
    // The text four times a second, not every frame: where the page is drawn in software, laying it out costs frames.
    if (now - statsAt >= 250 || hooks.frames <= 1) {
      statsAt = now;
      showStats(current);
    }
    requestAnimationFrame(frame);
  };
  let statsAt = 0;
  const sizeText = hooks.fallback
    ? `software adapter (shaders on the CPU): ${size.count.toLocaleString()} particles by default, not a GPU's 100,000; canvas at half resolution; 1/${Math.round(1 / size.frameDt)} s a frame · ask for more with ?count=N (up to ${maxCount.toLocaleString()})`
    : '';
  const showStats = (current: ParticleWorld): void => {
    statsLine.textContent = [
      `${fps.toFixed(0)} fps · frame ${frameMs.toFixed(1)} ms · ${poured.toLocaleString()} particles + ${(current.count - poured).toLocaleString()} hopper spheres · ${hooks.pairs.toLocaleString()} touching pairs · ${hooks.asleep.toLocaleString()} asleep · t ${hooks.time.toFixed(1)} s${settings.paused ? ' · paused' : ''}`,
      hooks.adapter,
      sizeText,
      stageText,
      hooks.hovered >= 0 ? (hooks.hovered < poured ? `particle ${hooks.hovered} under the pointer` : `hopper sphere ${hooks.hovered} (static) under the pointer`) : '',
    ].filter(Boolean).join('\n');
  };
  requestAnimationFrame(frame);

  if (query.has('selftest')) {
    const panel = document.getElementById('selftest')!;
    panel.style.display = 'block';
    panel.textContent = 'selftest: running…';
    // The raycasts are checked against the state read back just before them: hold the world still.
    const wasPaused = settings.paused;
    hooks.setPaused(true);
    try {
      hooks.selftest = await runSelfTest(device, world!);
    } finally {
      hooks.setPaused(wasPaused);
    }
    panel.textContent = `selftest: ${hooks.selftest.ok ? 'PASS' : 'FAIL'}\n` + hooks.selftest.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`).join('\n');
  }
}
