/**
 * The particle demo: a webgpu-collide particle world stepped and drawn on the GPU every frame,
 * with GPU picking through the world's raycast, and a "ray rain" of thousands of raycasts per
 * frame whose hit points are drawn straight from the GPU.
 *
 * URL parameters: ?count=N (particles), ?selftest (run the GPU-vs-CPU self-check), ?paused.
 * For tests, `window.__demo` exposes frame counts, errors and picking hooks.
 */
import GUI from 'lil-gui';
import { vec3 } from 'wgpu-matrix';
import { createParticleWorld, requestBrowserDevice, describeDevice, NoAdapterError, BROWSER_HELP, type ParticleWorld } from '../src/index.js';
import { GPU_STRIDE, CastHitRecord } from '../src/layout.js';
import { OrbitCamera } from './camera.js';
import { Renderer } from './renderer.js';
import { runSelfTest, type SelfTest } from './selftest.js';

interface DemoHooks {
  frames: number;
  errors: string[];
  adapter: string;
  fallback: boolean;
  particleCount: number;
  hovered: number;
  pairs: number;
  selftest: SelfTest | null;
  setPaused(paused: boolean): void;
  pickAt(x: number, y: number): Promise<number>;
  frontParticle(): Promise<{ index: number; x: number; y: number }>;
  positions(): Promise<Float32Array>;
}

declare global {
  interface Window {
    __demo: DemoHooks;
  }
}

const query = new URLSearchParams(location.search);
const canvas = document.getElementById('canvas') as HTMLCanvasElement;
const statsLine = document.getElementById('stats')!;
const hooks: DemoHooks = {
  frames: 0,
  errors: [],
  adapter: '',
  fallback: false,
  particleCount: 0,
  hovered: -1,
  pairs: 0,
  selftest: null,
  setPaused: () => undefined,
  pickAt: async () => -1,
  frontParticle: async () => ({ index: -1, x: 0, y: 0 }),
  positions: async () => new Float32Array(0),
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
  hooks.fallback = Boolean(info?.isFallbackAdapter || info?.architecture === 'swiftshader');
  const timestamps = device.features.has('timestamp-query');

  const context = canvas.getContext('webgpu') as GPUCanvasContext;
  const format = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format, alphaMode: 'opaque' });
  const renderer = new Renderer(device, context, format);

  const resize = (): void => {
    const scale = Math.min(window.devicePixelRatio || 1, 2);
    canvas.width = Math.max(1, Math.floor(canvas.clientWidth * scale));
    canvas.height = Math.max(1, Math.floor(canvas.clientHeight * scale));
  };
  resize();
  window.addEventListener('resize', resize);

  // Fewer particles on a software adapter (SwiftShader runs the shaders on the CPU).
  const maxCount = hooks.fallback ? 50_000 : 1_000_000;
  const settings = {
    particles: Math.min(Number(query.get('count')) || (hooks.fallback ? 4_000 : 100_000), maxCount),
    restitution: 0.8,
    gravity: -9.8,
    substeps: 2,
    pickBroadphase: 'grid' as 'grid' | 'all-pairs',
    paused: query.has('paused'),
    rayRain: false,
    rainRays: 4000,
    step: () => stepOnce(),
    reset: () => void reset(),
  };

  let world: ParticleWorld | null = null;
  let bounds = [0, 0, 0, 1, 1, 1];
  const camera = new OrbitCamera([0.5, 0.5, 0.5], 3);

  async function reset(): Promise<void> {
    const n = settings.particles;
    const radius = (i: number): number => 0.35 + 0.25 * ((i * 0.61803) % 1);
    let volume = 0;
    for (let i = 0; i < n; i++) volume += (4 / 3) * Math.PI * radius(i) ** 3;
    const side = Math.cbrt(volume / 0.12);
    bounds = [0, 0, 0, side, side, side];
    // A block in the upper part of the box, falling: a dam break.
    const spheres = new Float32Array(4 * n);
    const velocities = new Float32Array(3 * n);
    const block = Math.cbrt(volume / 0.4);
    let seed = 7;
    const random = (): number => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    for (let i = 0; i < n; i++) {
      const r = radius(i);
      spheres.set([r + random() * (block - 2 * r), side - block + r + random() * (block - 2 * r), r + random() * (Math.min(side, block) - 2 * r), r], 4 * i);
      velocities.set([(random() - 0.5) * 2, 0, (random() - 0.5) * 2], 3 * i);
    }
    const next = await createParticleWorld({ device, capacity: n, bounds, gravity: [0, settings.gravity, 0], restitution: settings.restitution });
    next.setParticles({ spheres, velocities });
    world?.destroy();
    world = next;
    hooks.particleCount = n;
    camera.target = vec3.fromValues(side / 2, side / 3, side / 2);
    camera.distance = side * 2.1;
  }
  await reset();

  const gui = new GUI({ title: 'webgpu-collide' });
  gui.add(settings, 'particles', 1000, maxCount, 1000).onFinishChange(() => void reset());
  gui.add(settings, 'restitution', 0, 1, 0.05).onChange((v: number) => world?.setParameters({ restitution: v }));
  gui.add(settings, 'gravity', -30, 0, 0.1).onChange((v: number) => world?.setParameters({ gravity: [0, v, 0] }));
  gui.add(settings, 'substeps', 1, 8, 1);
  gui.add(settings, 'pickBroadphase', ['grid', 'all-pairs']).name('picking broad phase');
  gui.add(settings, 'paused');
  gui.add(settings, 'step').name('step once');
  gui.add(settings, 'reset');
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
  let dragging: { index: number; distance: number } | null = null;
  let orbiting: { x: number; y: number } | null = null;
  const rayAt = (clientX: number, clientY: number) => {
    const rect = canvas.getBoundingClientRect();
    return camera.rayThrough(clientX - rect.left, clientY - rect.top, rect.width, rect.height);
  };
  const pick = async (clientX: number, clientY: number): Promise<{ index: number; distance: number }> => {
    if (!world) return { index: -1, distance: 0 };
    const { origin, direction } = rayAt(clientX, clientY);
    const length = camera.distance * 10;
    const ray = new Float32Array([...origin, ...vec3.addScaled(origin, direction, length)]);
    const hit = await world.raycast(ray, { broadphase: settings.pickBroadphase });
    return { index: hit.index[0], distance: hit.distance[0] };
  };
  hooks.pickAt = async (x, y) => (await pick(x, y)).index;
  hooks.positions = async () => (world ? (await world.read()).spheres : new Float32Array(0));
  hooks.frontParticle = async () => {
    const spheres = await hooks.positions();
    const eye = camera.eye;
    let best = -1;
    let nearest = Infinity;
    for (let i = 0; i < spheres.length / 4; i++) {
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
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    void pick(event.clientX, event.clientY).then((hit) => {
      if (hit.index < 0 || !world) {
        orbiting = { x: event.clientX, y: event.clientY };
        return;
      }
      const { direction } = rayAt(event.clientX, event.clientY);
      if (event.shiftKey) world.setParticle(hit.index, { velocity: vec3.scale(direction, 15) });
      else dragging = { index: hit.index, distance: hit.distance };
    });
  });
  canvas.addEventListener('pointerup', () => {
    dragging = null;
    orbiting = null;
  });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    camera.zoom(Math.exp(event.deltaY * 0.001));
  }, { passive: false });

  // Stats: frames per second, particles, touching pairs, GPU time per stage.
  let fps = 0;
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
    const dt = 1 / 60 / settings.substeps;
    const encoder = device.createCommandEncoder({ label: 'demo frame' });
    const advance = !settings.paused || stepOnceRequested;
    stepOnceRequested = false;
    if (advance) {
      if (timestamps && hooks.frames % 60 === 30) {
        // Now and then a profiled step (its own submission, queued before this frame's render).
        void current.step(dt, settings.substeps, { profile: true }).then(() => {
          const stages = new Map<string, number>();
          for (const s of current.lastProfile?.stages ?? []) stages.set(s.name, (stages.get(s.name) ?? 0) + s.ms);
          stageText = `GPU ms per frame (${settings.substeps} substeps): ` + [...stages].map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ');
        });
      } else {
        current.encode(encoder, dt, settings.substeps);
      }
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
    }, current.buffers.spheres, current.buffers.velocities, current.count, hits);
    device.queue.submit([encoder.finish()]);
    hooks.frames++;

    // Hover picking, one raycast in flight at a time.
    if (pointer.inside && pointer.moved && !picking && !dragging && !orbiting) {
      picking = true;
      pointer.moved = false;
      void pick(pointer.x, pointer.y).then((hit) => {
        hooks.hovered = hit.index;
        picking = false;
      });
    }
    if (hooks.frames % 15 === 0) void current.contactCount().then((n) => (hooks.pairs = n));

    framesThisSecond++;
    const now = performance.now();
    if (now - secondStart >= 1000) {
      fps = (framesThisSecond * 1000) / (now - secondStart);
      framesThisSecond = 0;
      secondStart = now;
    }
    statsLine.textContent = [
      `${fps.toFixed(0)} fps · ${current.count.toLocaleString()} particles · ${hooks.pairs.toLocaleString()} touching pairs${settings.paused ? ' · paused' : ''}`,
      `${hooks.adapter}${hooks.fallback ? ' (software: fewer particles by default)' : ''}`,
      stageText,
      hooks.hovered >= 0 ? `particle ${hooks.hovered} under the pointer` : '',
    ].filter(Boolean).join('\n');
    requestAnimationFrame(frame);
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
