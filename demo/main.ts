/**
 * The particle demo: a webgpu-collide particle world stepped and drawn on the GPU every frame.
 * The scene (demo/scene.ts) is an hourglass: the particles pour out of a hopper's spout and pile
 * up on the floor (100,000 by default on a hardware GPU). The hopper and its spout are box
 * colliders (`world.setColliders`), drawn straight from the world's pose buffer; a box on the
 * floor, the paddle, can be dragged through the pile: each frame its velocity is set from the
 * pointer's motion, so that what it pushes gets its speed. GPU picking through the world's
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
import {
  createParticleWorld,
  requestBrowserDevice,
  describeDevice,
  NoAdapterError,
  BROWSER_HELP,
  GPU_STRIDE,
  CastHitRecord,
  type ParticleWorld,
} from '../src/index.js';
import { OrbitCamera } from './camera.js';
import { Renderer } from './renderer.js';
import { runSelfTest, type SelfTest } from './selftest.js';
import { pourScene } from './scene.js';

/** The fastest the paddle follows the pointer, in box widths per second (12 units/s at least): a flick does not fling the pile. */
const MAX_BOX_SPEED = 0.5;

interface DemoHooks {
  frames: number;
  errors: string[];
  adapter: string;
  /** A software adapter: the demo starts small (see `sizeFor`). */
  fallback: boolean;
  /** Seconds simulated per frame: 1/60 on a GPU, 1/30 on a software adapter. */
  frameDt: number;
  /** Particles (all of them pour). */
  particleCount: number;
  /** The scene's walls and spout, and its box colliders: the hopper's static boxes (0 … hopperBoxes − 1), then the paddle (see demo/scene.ts). */
  scene: {
    bounds: number[];
    spoutY: number;
    hopperTop: number;
    hopperBoxes: number;
    paddle: number;
    boxes: number;
  } | null;
  /** Seconds simulated since the last reset. */
  time: number;
  hovered: number;
  /** The particle being dragged, or −1. */
  dragged: number;
  /** The last particle pushed (shift-click), or −1. */
  pushed: number;
  /** The box being dragged (the paddle), or −1. */
  boxDragged: number;
  /** The paddle's velocity set for the last step (x, y, z). */
  boxVelocity: number[];
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
  /** The box colliders' poses as the world holds them on the GPU (12 floats a box: centre, 0, half extents, 0, quaternion), read back. */
  boxes(): Promise<Float32Array>;
  /** The box under a point of the page (only the paddle can be picked), or −1, whatever is in front of it. */
  boxAt(x: number, y: number): number;
  /** What a press at a point of the page would take hold of: the paddle, a particle, or nothing. */
  grabAt(x: number, y: number): Promise<{ kind: 'box' | 'particle' | 'none'; index: number }>;
  /** Where a point of the world lands on the page. */
  screenOf(point: number[]): { x: number; y: number };
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
 * drawing cost a few hundred milliseconds a frame at a GPU's sizes: there 400 particles (in a
 * hopper of 8 boxes, with the paddle 9), the canvas at half resolution (CSS scales it up) and
 * 1/30 s a frame (4 substeps of 1/120 s), so that the pile forms within about 20 s at 10 or more
 * frames a second (SwiftShader, 2 cores). `?count=N` asks for N particles on either.
 */
function sizeFor(software: boolean): { count: number; maxCount: number; pixelScale: number; frameDt: number } {
  return software
    ? { count: 400, maxCount: 50_000, pixelScale: 0.5, frameDt: 1 / 30 }
    : { count: 100_000, maxCount: 1_000_000, pixelScale: Math.min(window.devicePixelRatio || 1, 2), frameDt: 1 / 60 };
}
const canvas = document.getElementById('canvas') as HTMLCanvasElement;
// The stats: one line, the pointer's hint under it, and the adapter, the size and the GPU time per
// stage folded away (#stats-detail, shown by the panel's "stats details").
const statsLine = document.getElementById('stats')!;
const statsFirst = document.getElementById('stats-line')!;
const statsDetail = document.getElementById('stats-detail')!;
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
  boxDragged: -1,
  boxVelocity: [0, 0, 0],
  pairs: 0,
  asleep: 0,
  selftest: null,
  setPaused: () => undefined,
  pickAt: async () => -1,
  frontParticle: async () => ({ index: -1, x: 0, y: 0 }),
  positions: async () => new Float32Array(0),
  velocities: async () => new Float32Array(0),
  boxes: async () => new Float32Array(0),
  boxAt: () => -1,
  grabAt: async () => ({ kind: 'none', index: -1 }),
  screenOf: () => ({ x: 0, y: 0 }),
};
window.__demo = hooks;

function showMessage(text: string): void {
  document.getElementById('message-text')!.textContent = text;
  document.getElementById('message')!.style.display = 'flex';
  statsLine.style.display = 'none';
  document.getElementById('help')!.style.display = 'none';
}

window.addEventListener('error', (event) => hooks.errors.push(String(event.message)));
window.addEventListener('unhandledrejection', (event) =>
  hooks.errors.push(String((event.reason as Error)?.message ?? event.reason)),
);

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
  hooks.adapter =
    info?.description || [info?.vendor, info?.architecture].filter(Boolean).join(' ') || 'unknown adapter';
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
    // The library's default (6) on a GPU; 4 on a software adapter, where a frame's cost is felt.
    substeps: hooks.fallback ? 4 : 6,
    restitution: 0.3,
    friction: 0.4,
    gravity: -9.8,
    pickBroadphase: 'grid' as 'grid' | 'all-pairs',
    paused: query.has('paused'),
    rayRain: false,
    rainRays: 4000,
    details: false,
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
  /**
   * The box colliders as last set (10 floats a box) and their velocities (6 a box): the CPU's
   * copy, kept in step with the world's (each step moves the paddle by its velocity · dt, and so
   * does `frame` below). `hopperBoxes` of them are static; `paddle` is the one to drag.
   */
  let boxes = new Float32Array(0);
  let boxVelocities = new Float32Array(0);
  let hopperBoxes = 0;
  let paddle = -1;
  /** The paddle being dragged: the height of the horizontal plane it moves in, and the pointer's offset from its centre in that plane. */
  let boxDrag: { y: number; offset: [number, number] } | null = null;
  /** Whether the paddle had a velocity in the last step (one more update stops it). */
  let boxMoving = false;
  let hoveredBox = -1;
  const camera = new OrbitCamera([0.5, 0.5, 0.5], 3);

  // The hourglass: every particle starts loose in the hopper and pours out of its spout.
  async function reset(): Promise<void> {
    const scene = pourScene(settings.particles);
    const next = await createParticleWorld({
      device,
      capacity: scene.spheres.length / 4,
      bounds: scene.bounds,
      ...parameters(),
    });
    next.setParticles(scene);
    boxes = scene.boxes.slice();
    boxVelocities = new Float32Array(6 * (boxes.length / 10));
    next.setColliders({ boxes, velocities: boxVelocities });
    world?.destroy();
    world = next;
    bounds = scene.bounds;
    poured = scene.poured;
    hopperBoxes = scene.hopperBoxes;
    paddle = scene.paddle;
    dragging = null;
    boxDrag = null;
    boxMoving = false;
    hoveredBox = -1;
    hooks.dragged = -1;
    hooks.boxDragged = -1;
    hooks.boxVelocity = [0, 0, 0];
    hooks.hovered = -1;
    hooks.time = 0;
    hooks.particleCount = scene.poured;
    hooks.scene = {
      bounds: [...scene.bounds],
      spoutY: scene.spoutY,
      hopperTop: scene.hopperTop,
      hopperBoxes: scene.hopperBoxes,
      paddle: scene.paddle,
      boxes: boxes.length / 10,
    };
    const [width, height] = [bounds[3], bounds[4]];
    camera.target = vec3.fromValues(width / 2, height * 0.45, width / 2);
    camera.distance = 1.9 * Math.max(height, 1.2 * width);
  }

  await reset();

  const gui = new GUI({ title: 'webgpu-collide' });
  gui.add(settings, 'particles', 100, maxCount, 100).onFinishChange(() => void reset());
  gui
    .add(settings, 'iterations', 1, 32, 1)
    .name('solver iterations')
    .onChange(() => world?.setParameters(parameters()));
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
  gui
    .add(settings, 'details')
    .name('stats details')
    .onChange((on: boolean) => (statsDetail.style.display = on ? 'block' : 'none'));
  hooks.setPaused = (paused) => {
    settings.paused = paused;
    for (const c of gui.controllersRecursive()) c.updateDisplay();
  };

  // Ray rain: rays fall straight down from random points above the box; the world casts them on
  // the GPU and the renderer draws the hit points from the hit records, all without readback.
  let rain: { rays: GPUBuffer; hits: GPUBuffer; capacity: number } | null = null;
  const rainBuffers = (count: number): NonNullable<typeof rain> => {
    if (!rain || rain.capacity < count) {
      rain?.rays.destroy();
      rain?.hits.destroy();
      rain = {
        rays: device.createBuffer({
          label: 'rain rays',
          size: 4 * GPU_STRIDE.cast * count,
          usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
        }),
        hits: device.createBuffer({
          label: 'rain hits',
          size: CastHitRecord.size * count,
          usage: GPUBufferUsage.STORAGE,
        }),
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
  /**
   * The paddle under the pointer (a ray–box test on the CPU copy of its pose: the box in its own
   * frame, the ray turned by the inverse rotation, then the slab test), and the distance along
   * the ray; only the paddle can be dragged.
   */
  const boxHit = (clientX: number, clientY: number): { index: number; distance: number } => {
    if (paddle < 0) return { index: -1, distance: Infinity };
    const { origin, direction } = rayAt(clientX, clientY);
    const b = boxes.subarray(10 * paddle, 10 * paddle + 10);
    const [qx, qy, qz, qw] = [b[6], b[7], b[8], b[9]];
    const inverse = (v: ArrayLike<number>): number[] => {
      // v rotated by the conjugate quaternion (−q.xyz, q.w).
      const [x, y, z] = [v[0], v[1], v[2]];
      const t = [2 * (-qy * z + qz * y), 2 * (-qz * x + qx * z), 2 * (-qx * y + qy * x)];
      return [
        x + qw * t[0] + (-qy * t[2] + qz * t[1]),
        y + qw * t[1] + (-qz * t[0] + qx * t[2]),
        z + qw * t[2] + (-qx * t[1] + qy * t[0]),
      ];
    };
    const o = inverse([origin[0] - b[0], origin[1] - b[1], origin[2] - b[2]]);
    const d = inverse(direction);
    let near = 0;
    let far = Infinity;
    for (let a = 0; a < 3; a++) {
      const h = b[3 + a];
      if (Math.abs(d[a]) < 1e-12) {
        if (Math.abs(o[a]) > h) return { index: -1, distance: Infinity };
        continue;
      }
      const [t0, t1] = [(-h - o[a]) / d[a], (h - o[a]) / d[a]];
      near = Math.max(near, Math.min(t0, t1));
      far = Math.min(far, Math.max(t0, t1));
    }
    return near <= far ? { index: paddle, distance: near } : { index: -1, distance: Infinity };
  };
  /** Where the pointer's ray meets the horizontal plane at height y (x, z), or null when it points away from it. */
  const onPlane = (clientX: number, clientY: number, y: number): [number, number] | null => {
    const { origin, direction } = rayAt(clientX, clientY);
    const t = (y - origin[1]) / direction[1];
    if (!Number.isFinite(t) || t <= 0) return null;
    return [origin[0] + t * direction[0], origin[2] + t * direction[2]];
  };
  /**
   * The paddle's velocity for a step of dt: towards where the pointer holds it (its centre under
   * the pointer, less the grab offset, kept inside the walls), at most MAX_BOX_SPEED; zero when
   * not dragged.
   */
  const paddleVelocity = (dt: number): [number, number, number] => {
    if (!boxDrag || paddle < 0 || !pointer.inside) return [0, 0, 0];
    const at = onPlane(pointer.x, pointer.y, boxDrag.y);
    if (!at) return [0, 0, 0];
    const b = boxes.subarray(10 * paddle, 10 * paddle + 10);
    // Its reach: the walls less its half extents (it turns about no axis: the half extents hold along x and z).
    const target = [0, 2].map((a, k) =>
      Math.min(Math.max(at[k] + boxDrag!.offset[k], bounds[a] + b[3 + a] + 0.05), bounds[a + 3] - b[3 + a] - 0.05),
    );
    const v = [(target[0] - b[0]) / dt, (target[1] - b[2]) / dt];
    const speed = Math.hypot(v[0], v[1]);
    const fastest = Math.max(12, MAX_BOX_SPEED * (bounds[3] - bounds[0]));
    const scale = speed > fastest ? fastest / speed : 1;
    return speed < 1e-3 ? [0, 0, 0] : [v[0] * scale, 0, v[1] * scale];
  };
  /**
   * What a press at a point of the page takes hold of: the paddle where it is nearer on the ray
   * than any particle, else the particle hit, else nothing (the press orbits the camera).
   */
  const grabAt = async (
    clientX: number,
    clientY: number,
  ): Promise<{ kind: 'box' | 'particle' | 'none'; index: number; distance: number }> => {
    const hit = await pick(clientX, clientY);
    const box = boxHit(clientX, clientY);
    if (box.index >= 0 && (hit.index < 0 || box.distance < hit.distance)) return { kind: 'box', ...box };
    if (hit.index >= 0 && hit.index < poured) return { kind: 'particle', ...hit };
    return { kind: 'none', index: -1, distance: 0 };
  };
  hooks.pickAt = async (x, y) => (await pick(x, y)).index;
  hooks.grabAt = async (x, y) => {
    const { kind, index } = await grabAt(x, y);
    return { kind, index };
  };
  hooks.boxAt = (x, y) => boxHit(x, y).index;
  hooks.screenOf = (point) => {
    const rect = canvas.getBoundingClientRect();
    const [x, y] = camera.project(point, rect.width, rect.height);
    return { x: x + rect.left, y: y + rect.top };
  };
  hooks.boxes = async () => {
    const buffers = world?.colliderBuffers;
    if (!buffers || buffers.count === 0) return new Float32Array(0);
    const size = 48 * buffers.count;
    const staging = device.createBuffer({
      label: 'demo box readback',
      size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    const encoder = device.createCommandEncoder();
    encoder.copyBufferToBuffer(buffers.poses, 0, staging, 0, size);
    device.queue.submit([encoder.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const poses = new Float32Array(staging.getMappedRange().slice(0));
    staging.destroy();
    return poses;
  };
  hooks.positions = async () => (world ? (await world.read()).spheres : new Float32Array(0));
  hooks.velocities = async () => (world ? (await world.read()).velocities : new Float32Array(0));
  hooks.frontParticle = async (pouredOnly = false) => {
    const spheres = await hooks.positions();
    const eye = camera.eye;
    let best = -1;
    let nearest = Infinity;
    for (let i = 0; i < (pouredOnly ? poured : spheres.length / 4); i++) {
      const d =
        Math.hypot(spheres[4 * i] - eye[0], spheres[4 * i + 1] - eye[1], spheres[4 * i + 2] - eye[2]) -
        spheres[4 * i + 3];
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
    // The paddle follows in `frame` (its velocity set from the pointer each step).
    if (boxDrag) return;
    if (orbiting) {
      camera.orbit(event.clientX - orbiting.x, event.clientY - orbiting.y);
      orbiting = { x: event.clientX, y: event.clientY };
    } else if (dragging && world) {
      const { origin, direction } = rayAt(event.clientX, event.clientY);
      world.setParticle(dragging.index, {
        position: vec3.addScaled(origin, direction, dragging.distance),
        velocity: [0, 0, 0],
      });
    }
  });
  canvas.addEventListener('pointerleave', () => {
    // While dragging the pointer is captured: it leaves only when released.
    if (!boxDrag) pointer.inside = false;
  });
  let pressed = false;
  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    pressed = true;
    void grabAt(event.clientX, event.clientY).then((hit) => {
      // The paddle: it follows the pointer in its horizontal plane, from where it was taken hold of.
      if (hit.kind === 'box') {
        const b = boxes.subarray(10 * hit.index, 10 * hit.index + 10);
        const at = onPlane(event.clientX, event.clientY, b[1]);
        if (at && pressed && !event.shiftKey) {
          boxDrag = { y: b[1], offset: [b[0] - at[0], b[2] - at[1]] };
          hooks.boxDragged = hit.index;
          [pointer.x, pointer.y, pointer.inside] = [event.clientX, event.clientY, true];
        }
        return;
      }
      // A miss: orbit.
      if (hit.kind === 'none' || !world) {
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
    boxDrag = null;
    hooks.boxDragged = -1;
    orbiting = null;
  });
  canvas.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      camera.zoom(Math.exp(event.deltaY * 0.001));
    },
    { passive: false },
  );

  // Stats: frames per second and frame time, particles, touching pairs, particles asleep, GPU time per stage.
  let fps = 0;
  let frameMs = 0;
  let framesThisSecond = 0;
  let secondStart = performance.now();
  let stageText = timestamps ? 'GPU stages: measuring…' : 'GPU stages: no timestamp-query on this adapter';
  let stepOnceRequested = false;
  let checkingCapacity = false;
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
    // The paddle: while dragged, its velocity is set each step towards the pointer (the world
    // moves it, and pushes or carries what it touches at that speed); released, it stops. The
    // poses set are the CPU's copy, moved as the step moves them.
    let boxStep: [number, number, number] = [0, 0, 0];
    if (advance && paddle >= 0) {
      boxStep = paddleVelocity(dt);
      const moving = boxStep.some((v) => v !== 0);
      if (moving || boxMoving) {
        boxVelocities.fill(0);
        boxVelocities.set(boxStep, 6 * paddle);
        current.setColliders({ boxes, velocities: boxVelocities });
        hooks.boxVelocity = [...boxStep];
      }
      boxMoving = moving;
    }
    if (advance) {
      if (timestamps && hooks.frames % 60 === 30) {
        // Now and then a profiled step (its own submission, queued before this frame's render).
        const { substeps, iterations } = current.parametersNow;
        void current.step(dt, 1, { profile: true }).then(() => {
          const stages = new Map<string, number>();
          for (const s of current.lastProfile?.stages ?? []) stages.set(s.name, (stages.get(s.name) ?? 0) + s.ms);
          const total = current.lastProfile?.totalMs ?? 0;
          stageText =
            `GPU step ${total.toFixed(2)} ms (${substeps} substeps × ${iterations} iterations): ` +
            [...stages].map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ');
        }, unlessReplaced);
      } else {
        current.encode(encoder, dt);
      }
      hooks.time += dt;
      for (let a = 0; a < 3; a++) boxes[10 * paddle + a] += boxStep[a] * dt;
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
    const colliders = current.colliderBuffers;
    renderer.draw(
      encoder,
      {
        viewProj: camera.viewProjection(aspect),
        eye: camera.eye,
        highlight: dragging?.index ?? hooks.hovered,
        bounds,
        speedScale: 0.1,
        hitRadius: bounds[3] * 0.004,
        hotBox: boxDrag ? paddle : hoveredBox,
      },
      current.buffers.spheres,
      current.buffers.velocities,
      current.count,
      colliders && { poses: colliders.poses, count: colliders.count, solidFrom: hopperBoxes },
      hits,
    );
    device.queue.submit([encoder.finish()]);
    hooks.frames++;

    // Hover picking, one raycast in flight at a time (the paddle on the CPU, the particles on the GPU).
    if (pointer.inside && pointer.moved && !picking && !dragging && !orbiting && !boxDrag) {
      picking = true;
      pointer.moved = false;
      void grabAt(pointer.x, pointer.y)
        .then((hit) => {
          hoveredBox = hit.kind === 'box' ? hit.index : -1;
          hooks.hovered = hit.kind === 'particle' ? hit.index : -1;
        }, unlessReplaced)
        .finally(() => (picking = false));
    }
    if (hooks.frames % 15 === 0) {
      void current.contactCount().then((n) => (hooks.pairs = n), unlessReplaced);
      void current.sleepingCount().then((n) => (hooks.asleep = n), unlessReplaced);
    }
    // Steps recorded with `encode` cannot grow the contact lists themselves, and contacts past
    // them go unsolved (a pile fills them as it forms): check after every frame, one check at a
    // time, so the lists grow within a frame or two.
    if (!checkingCapacity) {
      checkingCapacity = true;
      void current
        .checkContactCapacity()
        .catch(unlessReplaced)
        .finally(() => (checkingCapacity = false));
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
      showStats();
    }
    requestAnimationFrame(frame);
  };
  let statsAt = 0;
  const sizeText = hooks.fallback
    ? `software adapter (shaders on the CPU): ${size.count.toLocaleString()} particles by default, not a GPU's 100,000; canvas at half resolution; 1/${Math.round(1 / size.frameDt)} s a frame · ask for more with ?count=N (up to ${maxCount.toLocaleString()})`
    : '';
  const showStats = (): void => {
    // The first frames compile the pipelines they use: seconds each on a software adapter.
    const compiling = hooks.frames < 20 && frameMs > 250;
    statsFirst.textContent = [
      compiling ? 'compiling shaders: the first frames take seconds on a software adapter…' : '',
      `${fps.toFixed(0)} fps · frame ${frameMs.toFixed(1)} ms · ${poured.toLocaleString()} particles · ${boxes.length / 10} boxes (hopper and spout ${hopperBoxes}, paddle 1) · ${hooks.pairs.toLocaleString()} touching pairs · ${hooks.asleep.toLocaleString()} asleep · t ${hooks.time.toFixed(1)} s${settings.paused ? ' · paused' : ''}`,
      boxDrag
        ? `dragging the paddle at ${Math.hypot(...hooks.boxVelocity).toFixed(1)} units/s`
        : hoveredBox >= 0
          ? 'the paddle under the pointer: drag it through the pile'
          : hooks.hovered >= 0
            ? `particle ${hooks.hovered} under the pointer`
            : '',
    ]
      .filter(Boolean)
      .join('\n');
    statsDetail.textContent = [hooks.adapter, sizeText, stageText].filter(Boolean).join('\n');
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
    panel.textContent =
      `selftest: ${hooks.selftest.ok ? 'PASS' : 'FAIL'}\n` +
      hooks.selftest.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`).join('\n');
  }
}
