/**
 * Headline workloads on whatever WebGPU engine runs this file, for the "Engines" table of
 * docs/PERFORMANCE.md: 100k-sphere spherePairs (grid), 100k raycasts against 100k spheres
 * (nearest hit), and one step (1/60 s, 4 substeps) of a 20k-particle world. Wall time of each
 * call, readback included: the median of 3 after one warm-up. Seeded scenes, so the pair and hit
 * counts must be the same on every engine (within float rounding).
 *
 *   npx tsx scripts/engines-bench.ts                                          # Node: dawn.node
 *   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json \
 *     npx deno run -A --unstable-sloppy-imports scripts/engines-bench.ts      # Deno: wgpu
 *
 * In a page, import `engineBench` and pass it a device.
 */
import {
  createCollider,
  createParticleWorld,
  describeDevice,
  requestBrowserDevice,
  type RaycastResult,
} from '../src/index.js';

export interface EngineRow {
  workload: string;
  ms: number;
  answer: string;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** n spheres of radius r in a cube, filling `fraction` of its volume. */
function cube(n: number, r: number, fraction: number, seed: number): { spheres: Float32Array; side: number } {
  const random = lcg(seed);
  const side = Math.cbrt((n * (4 / 3) * Math.PI * r ** 3) / fraction);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) spheres.set([random() * side, random() * side, random() * side, r], 4 * i);
  return { spheres, side };
}

async function median(run: () => Promise<unknown>, reps = 3): Promise<number> {
  await run();
  const times: number[] = [];
  for (let k = 0; k < reps; k++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[reps >> 1];
}

export async function engineBench(device: GPUDevice, log: (row: EngineRow) => void = () => {}): Promise<EngineRow[]> {
  const rows: EngineRow[] = [];
  const add = (row: EngineRow): void => {
    rows.push(row);
    log(row);
  };
  const collider = await createCollider({ device });

  // 100k spheres of radius 1 at a tenth of the volume.
  const { spheres, side } = cube(100_000, 1, 0.1, 42);
  let pairs = 0;
  const pairsMs = await median(
    async () => (pairs = (await collider.spherePairs(spheres, { broadphase: 'grid' })).length / 2),
  );
  add({ workload: '100k spheres: spherePairs (grid)', ms: pairsMs, answer: `${pairs} pairs` });

  // 100k rays from random points in the cube, random directions, 10 radii long; nearest hit.
  const random = lcg(7);
  const rays = new Float32Array(6 * 100_000);
  for (let k = 0; k < 100_000; k++) {
    const a = [random() * side, random() * side, random() * side];
    const z = 2 * random() - 1,
      phi = 2 * Math.PI * random(),
      s = Math.sqrt(1 - z * z);
    rays.set([...a, a[0] + 10 * s * Math.cos(phi), a[1] + 10 * s * Math.sin(phi), a[2] + 10 * z], 6 * k);
  }
  let hits = 0;
  const castMs = await median(async () => {
    const result = (await collider.raycast(rays, spheres)) as RaycastResult;
    hits = 0;
    for (const index of result.index) if (index >= 0) hits++;
  });
  add({ workload: '100k raycasts × 100k spheres (nearest)', ms: castMs, answer: `${hits} hits` });
  collider.destroy();

  // 20k particles of radius 0.5 at a fifth of the volume, under gravity; one step of 1/60 s.
  const box = cube(20_000, 0.5, 0.2, 31);
  const world = await createParticleWorld({
    device,
    capacity: 20_000,
    bounds: [0, 0, 0, box.side, box.side, box.side],
    gravity: [0, -9.8, 0],
  });
  world.setParticles({ spheres: box.spheres, velocities: new Float32Array(3 * 20_000) });
  for (let k = 0; k < 3; k++) await world.step(1 / 60);
  const stepMs = await median(() => world.step(1 / 60), 5);
  add({
    workload: '20k-particle world: one step (4 substeps)',
    ms: stepMs,
    answer: `${await world.contactCount()} contacts`,
  });
  world.destroy();
  return rows;
}

const Deno = (globalThis as { Deno?: { env: { get(n: string): string | undefined; set(n: string, v: string): void } } })
  .Deno;
const isNode =
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string' && !Deno;
if (typeof window === 'undefined' && (Deno || isNode)) {
  if (Deno && !Deno.env.get('XDG_RUNTIME_DIR')) Deno.env.set('XDG_RUNTIME_DIR', '/tmp');
  const NODE_ENTRY = '../src/node.js';
  const device = Deno
    ? await requestBrowserDevice()
    : await ((await import(/* @vite-ignore */ NODE_ENTRY)) as typeof import('../src/node.js')).requestNodeDevice();
  console.log(describeDevice(device)?.label);
  await engineBench(device, (row) => console.log(`${row.workload}: ${row.ms.toFixed(1)} ms (${row.answer})`));
  device.destroy();
}
