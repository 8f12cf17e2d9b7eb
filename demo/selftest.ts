/**
 * The page's self-check (`?selftest`): a GPU query against the CPU reference, in this browser.
 * Sphere pairs of a seeded scene against the CPU grid (differences only within the rounding
 * band), and raycasts against the world's particles against brute force (the same sphere, or a
 * tie within 1e-4).
 */
import { createCollider, reference, type ParticleWorld } from '../src/index.js';

export interface SelfTest {
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
}

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => (a = (Math.imul(a, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export async function runSelfTest(device: GPUDevice, world: ParticleWorld): Promise<SelfTest> {
  const checks: SelfTest['checks'] = [];
  const collider = await createCollider({ device });
  try {
    const rand = seeded(12345);
    const n = 3000;
    const side = Math.cbrt((n * 4.19) / 0.1);
    const spheres = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) spheres.set([rand() * side, rand() * side, rand() * side, 0.5 + rand()], 4 * i);
    const gpu = await collider.spherePairs(spheres, { broadphase: 'grid' });
    const cpu = reference.gridSpherePairs(spheres, collider.planFor(spheres));
    const key = (p: Uint32Array) =>
      new Set(Array.from({ length: p.length / 2 }, (_, k) => `${p[2 * k]},${p[2 * k + 1]}`));
    const a = key(gpu);
    const b = key(cpu);
    const differ = [...a].filter((p) => !b.has(p)).concat([...b].filter((p) => !a.has(p)));
    const outside = differ.filter((p) => {
      const [i, j] = p.split(',').map(Number);
      return Math.abs(reference.pairMargin(spheres, i, j)) > 1e-5;
    });
    checks.push({
      name: 'spherePairs (grid) vs CPU grid',
      ok: outside.length === 0 && a.size > 0,
      detail: `${a.size} pairs, ${differ.length} within the band, ${outside.length} outside`,
    });
  } finally {
    collider.destroy();
  }

  const { spheres } = await world.read();
  const rand = seeded(777);
  let lo = Infinity,
    hi = -Infinity;
  for (let i = 0; i < spheres.length; i++)
    if (i % 4 !== 3) {
      lo = Math.min(lo, spheres[i]);
      hi = Math.max(hi, spheres[i]);
    }
  const rays = new Float32Array(6 * 200);
  for (let k = 0; k < 200; k++)
    rays.set(
      [0, 1, 2, 3, 4, 5].map(() => lo + rand() * (hi - lo)),
      6 * k,
    );
  const gpu = await world.raycast(rays, { broadphase: 'grid' });
  const cpu = reference.bruteForceNearestCasts(rays, 6, spheres);
  let bad = 0;
  let hits = 0;
  for (let k = 0; k < 200; k++) {
    if (cpu.index[k] >= 0) hits++;
    if (gpu.index[k] === cpu.index[k]) continue;
    const tie =
      gpu.index[k] >= 0 &&
      cpu.index[k] >= 0 &&
      Math.abs(gpu.distance[k] - cpu.distance[k]) <= 1e-4 * (1 + cpu.distance[k]);
    if (!tie) bad++;
  }
  checks.push({
    name: 'world.raycast (grid) vs CPU brute force',
    ok: bad === 0 && hits > 0,
    detail: `${hits} hits of 200 rays, ${bad} disagreements`,
  });
  return { ok: checks.every((c) => c.ok), checks };
}
