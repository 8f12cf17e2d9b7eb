/**
 * Fuzzing: random scenes for every query and broad phase, checked against the CPU reference
 * with the tolerances of docs/TESTING.md, and a shrinker that cuts a failing scene down to a few
 * records. Shared by the fuzzer (fuzz/cli.ts), its CI slice (test/fuzz.test.ts) and the repro
 * files it writes (test/repro/*.json, replayed by test/repro.test.ts).
 */
import { mulberry32, gaussian } from './random.js';
import { diffPairs, bandViolations } from './pairs.js';
import { aabbMargin, obbMargin } from './boxes.js';
import { nearestViolations, allHitsViolations } from './casts.js';
import type { RaycastResult, RaycastAllHits, AllHits } from '../../src/castQueries.js';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { gridSpherePairs } from '../../src/reference/grid.js';
import { bruteForceSphereAabbPairs, bruteForceSphereObbPairs } from '../../src/reference/sphereBox.js';
import { particleStep, type StepParams } from '../../src/reference/particles.js';
import { createParticleWorld, defaultInverseMass } from '../../src/particles/index.js';
import type { Collider, Broadphase } from '../../src/collider.js';
import { MIN_SIZE } from '../../src/checks.js';
import { phasesServing, type BroadphaseName, type QueryKind } from '../../src/broadphase/index.js';

export const FUZZ_QUERIES = [
  'spherePairs',
  'sphereBoxPairs',
  'sphereOrientedBoxPairs',
  'raycast',
  'sphereCast',
  'particleStep',
] as const;
export type FuzzQuery = (typeof FUZZ_QUERIES)[number];

/** One scene and how to query it. Arrays are the contract's flat records (f32 values). */
export interface FuzzCase {
  query: FuzzQuery;
  seed: number;
  broadphase: Broadphase;
  allHits: boolean;
  spheres: number[];
  /** Boxes (6 or 10 floats), rays (6), casts (7), or particle velocities (3); empty for pairs. */
  others: number[];
  /** particleStep: [minX, minY, minZ, maxX, maxY, maxZ] and the step's parameters. */
  bounds?: number[];
  step?: { dt: number; gravity: number[]; restitution: number };
  /** What the scene was drawn as, for people reading a repro. */
  note: string;
}

const STRIDES: Record<FuzzQuery, number> = {
  spherePairs: 0,
  sphereBoxPairs: 6,
  sphereOrientedBoxPairs: 10,
  raycast: 6,
  sphereCast: 7,
  particleStep: 3,
};

/** A random scene for `query`: sizes, radius distributions, scales 1e-3 to 1e6, degenerate records. */
export function generateCase(query: FuzzQuery, seed: number): FuzzCase {
  const rand = mulberry32(seed * 7919 + FUZZ_QUERIES.indexOf(query));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const f32 = Math.fround;
  const scale = 10 ** (-3 + 9 * rand());
  const offset = rand() < 0.5 ? 0 : (rand() < 0.5 ? -1 : 1) * 10 ** (Math.log10(scale) + 3 * rand());
  const sizeClass = rand();
  const n =
    query === 'particleStep'
      ? 2 + Math.floor(rand() * 200)
      : sizeClass < 0.04
        ? 0
        : sizeClass < 0.08
          ? 1
          : sizeClass < 0.5
            ? 2 + Math.floor(rand() * 50)
            : 50 + Math.floor(rand() * 350);
  const radii = pick(['constant', 'uniform', 'wide', 'zeros', 'giants'] as const);
  const layout = pick(['uniform', 'clustered', 'duplicates', 'touching'] as const);
  const base = scale / 10;
  const radius = (): number => {
    switch (radii) {
      case 'constant':
        return base;
      case 'uniform':
        return base * rand();
      case 'wide':
        return base * 10 ** (-4 * rand());
      case 'zeros':
        return rand() < 0.3 ? 0 : base * rand();
      default:
        return rand() < 0.03 ? scale * (0.2 + rand()) : base * rand();
    }
  };
  const spheres: number[] = [];
  const centres = Array.from({ length: 4 }, () => [rand(), rand(), rand()].map((v) => v * scale));
  for (let i = 0; i < n; i++) {
    let p = [rand() * scale, rand() * scale, rand() * scale];
    if (layout === 'clustered') p = pick(centres).map((c) => c + gaussian(rand) * base);
    let r = radius();
    if (query === 'particleStep') r = Math.max(r, base * 0.2);
    if (layout === 'duplicates' && i > 0 && rand() < 0.3) {
      const j = Math.floor(rand() * i);
      spheres.push(...spheres.slice(4 * j, 4 * j + 4)); // an exact copy of an earlier sphere
      continue;
    }
    if (layout === 'touching' && i > 0 && rand() < 0.5) {
      // Exactly touching a previous sphere along an axis (as exactly as f32 allows).
      const j = Math.floor(rand() * i);
      const axis = Math.floor(rand() * 3);
      p = spheres.slice(4 * j, 4 * j + 3).map((v) => v - offset);
      p[axis] += spheres[4 * j + 3] + r;
    }
    spheres.push(...p.map((v) => f32(v + offset)), f32(r));
  }
  if (query === 'particleStep') {
    // Particles need room: the box is the scene's bounds grown by the largest radius.
    let lo = Infinity,
      hi = -Infinity,
      rMax = 0;
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) {
        lo = Math.min(lo, spheres[4 * i + a]);
        hi = Math.max(hi, spheres[4 * i + a]);
      }
      rMax = Math.max(rMax, spheres[4 * i + 3]);
    }
    const bounds = [lo - rMax, lo - rMax, lo - rMax, hi + rMax, hi + rMax, hi + rMax].map(f32);
    const speed = scale * (rand() < 0.5 ? 0.1 : 2);
    const others = Array.from({ length: 3 * n }, () => f32(gaussian(rand) * speed));
    const step = { dt: 1 / 120, gravity: [0, rand() < 0.5 ? 0 : -scale, 0], restitution: pick([0, 0.5, 1]) };
    return {
      query,
      seed,
      broadphase: 'grid',
      allHits: false,
      spheres,
      others,
      bounds,
      step,
      note: `${n} particles, ${radii} radii, ${layout}, scale ${scale.toExponential(1)}`,
    };
  }

  const others: number[] = [];
  const point = (): number[] => [0, 1, 2].map(() => f32((rand() * 1.4 - 0.2) * scale + offset));
  const m = rand() < 0.05 ? 0 : 1 + Math.floor(rand() * (query.endsWith('Pairs') ? 80 : 150));
  for (let k = 0; k < m; k++) {
    if (query === 'sphereBoxPairs') {
      const c = point();
      const h = [0, 1, 2].map(() => (rand() < 0.1 ? 0 : rand() < 0.05 ? scale : (scale * rand() ** 3) / 4));
      others.push(...c.map((v, a) => f32(v - h[a])), ...c.map((v, a) => f32(v + h[a])));
    } else if (query === 'sphereOrientedBoxPairs') {
      // Degenerate (zero) extents on purpose; a nonzero one below MIN_SIZE would be refused.
      const h = [0, 1, 2]
        .map(() => (rand() < 0.1 ? 0 : (scale * rand() ** 3) / 4))
        .map((v) => (f32(v) < MIN_SIZE ? 0 : v));
      const turns = [
        [0, 0, 0, 1],
        [Math.SQRT1_2, 0, 0, Math.SQRT1_2],
        [0, 0, 1, 0],
      ];
      const q =
        rand() < 0.2
          ? pick(turns)
          : [gaussian(rand), gaussian(rand), gaussian(rand), gaussian(rand)].map((v) => v * 10 ** (6 * rand() - 3));
      others.push(...point(), ...h.map(f32), ...q.map(f32));
    } else {
      let a = point();
      let b = point();
      const kind = rand();
      if (kind < 0.08)
        b = a; // zero length
      else if (kind < 0.25 && n > 0) {
        // From near a sphere's surface, inside or out, through it or past it.
        const i = Math.floor(rand() * n);
        const c = spheres.slice(4 * i, 4 * i + 3);
        const dir = [gaussian(rand), gaussian(rand), gaussian(rand)];
        const len = Math.hypot(...dir);
        const d = spheres[4 * i + 3] * (0.5 + rand());
        a = c.map((v, j) => f32(v + (dir[j] / len) * d));
      }
      others.push(...a, ...b);
      if (query === 'sphereCast') others.push(f32(rand() < 0.1 ? 0 : base * rand()));
    }
  }
  const broadphase = query.endsWith('Pairs')
    ? pick(['auto', ...phasesServing('pairs')] as const)
    : pick(['auto', ...phasesServing('casts')] as const);
  const allHits = (query === 'raycast' || query === 'sphereCast') && rand() < 0.3;
  return {
    query,
    seed,
    broadphase,
    allHits,
    spheres,
    others,
    note: `${n} spheres (${radii} radii, ${layout}), ${m} ${query === 'spherePairs' ? '' : 'records'}, scale ${scale.toExponential(1)}, offset ${offset.toExponential(1)}`,
  };
}

/** The disagreements between the GPU and the CPU reference on one case (empty: it agrees). */
export async function checkCase(collider: Collider, c: FuzzCase): Promise<string[]> {
  const spheres = Float32Array.from(c.spheres);
  const others = Float32Array.from(c.others);
  const opts = { broadphase: c.broadphase };
  switch (c.query) {
    case 'spherePairs': {
      const oracle = bruteForceSpherePairs(spheres);
      const problems = bandViolations(diffPairs(spheres, await collider.spherePairs(spheres, opts), oracle));
      problems.push(
        ...(await sameOnEveryBroadphase('pairs', (broadphase) => collider.spherePairs(spheres, { broadphase }))),
      );
      const twin = sortPairs(gridSpherePairs(spheres, collider.planFor(spheres)));
      if (twin.length !== oracle.length || twin.some((v, k) => v !== oracle[k]))
        problems.push('the CPU grid twin differs from the oracle');
      return problems;
    }
    case 'sphereBoxPairs':
      return [
        ...bandViolations(
          diffPairs(
            spheres,
            await collider.sphereBoxPairs(spheres, others, opts),
            bruteForceSphereAabbPairs(spheres, others),
            aabbMargin(others),
            false,
          ),
          1,
        ),
        ...(await sameOnEveryBroadphase('boxes', (broadphase) =>
          collider.sphereBoxPairs(spheres, others, { broadphase }),
        )),
      ];
    case 'sphereOrientedBoxPairs':
      return [
        ...bandViolations(
          diffPairs(
            spheres,
            await collider.sphereOrientedBoxPairs(spheres, others, opts),
            bruteForceSphereObbPairs(spheres, others),
            obbMargin(others),
            false,
          ),
          1,
        ),
        ...(await sameOnEveryBroadphase('boxes', (broadphase) =>
          collider.sphereOrientedBoxPairs(spheres, others, { broadphase }),
        )),
      ];
    case 'raycast':
    case 'sphereCast': {
      const stride = c.query === 'raycast' ? 6 : 7;
      const cast = (broadphase: Broadphase) =>
        c.query === 'raycast'
          ? collider.raycast(others, spheres, { broadphase, allHits: c.allHits })
          : collider.sphereCast(others, spheres, { broadphase, allHits: c.allHits });
      const res = await cast(c.broadphase);
      return [
        ...(c.allHits
          ? allHitsViolations(others, stride, spheres, res as RaycastAllHits)
          : nearestViolations(others, stride, spheres, res)),
        ...(await sameHitsOnEveryBroadphase(cast)),
      ];
    }
    case 'particleStep':
      return checkParticleStep(collider.device, c, spheres, others);
  }
}

/**
 * Every broad phase that serves the query ends in the same f32 test, so they must give the same
 * pairs exactly (docs/CONTRACT.md): the first one's set against each other's.
 */
async function sameOnEveryBroadphase(
  query: QueryKind,
  run: (broadphase: BroadphaseName) => Promise<Uint32Array>,
): Promise<string[]> {
  const names = phasesServing(query);
  const sets = await Promise.all(names.map(async (name) => sortPairs(await run(name))));
  const problems: string[] = [];
  for (let k = 1; k < names.length; k++) {
    const a = sets[0];
    const b = sets[k];
    if (a.length !== b.length || a.some((v, i) => v !== b[i]))
      problems.push(
        `broadphase '${names[k]}' found ${b.length / 2} pairs, '${names[0]}' ${a.length / 2}: not the same set`,
      );
  }
  return problems;
}

/**
 * Every broad phase that serves casts ends in the same f32 hit function with the same tie rule
 * (lowest index), so they must give the same hits exactly: index and distance of every record,
 * and the same offsets for all hits.
 */
async function sameHitsOnEveryBroadphase(
  run: (broadphase: BroadphaseName) => Promise<Pick<RaycastResult, 'index' | 'distance'> & Partial<AllHits>>,
): Promise<string[]> {
  const names = phasesServing('casts');
  const results = await Promise.all(names.map(run));
  const problems: string[] = [];
  const a = results[0];
  for (let k = 1; k < names.length; k++) {
    const b = results[k];
    const offsetsDiffer =
      a.offsets !== undefined &&
      (b.offsets === undefined ||
        a.offsets.length !== b.offsets.length ||
        a.offsets.some((v, i) => v !== b.offsets![i]));
    const first = a.index.findIndex((v, i) => v !== b.index[i] || !Object.is(a.distance[i], b.distance[i]));
    if (offsetsDiffer || a.index.length !== b.index.length || first >= 0) {
      problems.push(
        `broadphase '${names[k]}' differs from '${names[0]}'${first >= 0 ? ` at record ${first}: ${b.index[first]} at ${b.distance[first]} vs ${a.index[first]} at ${a.distance[first]}` : ' in its hit count'}`,
      );
    }
  }
  return problems;
}

async function checkParticleStep(
  device: GPUDevice,
  c: FuzzCase,
  spheres: Float32Array,
  velocities: Float32Array,
): Promise<string[]> {
  const n = spheres.length / 4;
  const world = await createParticleWorld({
    device,
    capacity: Math.max(n, 1),
    bounds: c.bounds,
    gravity: c.step!.gravity,
    restitution: c.step!.restitution,
  });
  try {
    world.setParticles({ spheres, velocities });
    await world.step(c.step!.dt);
    const gpu = await world.read();
    const packed = new Float32Array(4 * n);
    for (let i = 0; i < n; i++) {
      packed.set(velocities.subarray(3 * i, 3 * i + 3), 4 * i);
      packed[4 * i + 3] = Math.fround(defaultInverseMass(spheres[4 * i + 3]));
    }
    const params = world.stepParams(c.step!.dt);
    const cpu = particleStep(spheres, packed, params, world.plan!);
    const extent = c.bounds![3] - c.bounds![0];
    let speed = 1e-30;
    for (let i = 0; i < 3 * n; i++)
      speed = Math.max(speed, Math.abs(velocities[i]), Math.abs(c.step!.gravity[1] * c.step!.dt), params.maxPushSpeed);
    const skip = borderlineParticles(spheres, packed, params);
    // The position tolerance's rounding term (1e-6 of a coordinate: some f32 steps) is a gap
    // error at the next substep, and the solver turns gaps into velocities over a substep
    // (the speculative target −s/h, the push percent·(−s − slop)/h): so it allows that error
    // divided by h in the velocities. Far from the origin with short substeps this is what
    // twin and GPU differ by (seed 301296: coordinates near 1e4, h = 1/480).
    let farthest = 0;
    for (let k = 0; k < 4 * n; k++)
      if (k % 4 !== 3) farthest = Math.max(farthest, Math.abs(spheres[k]), Math.abs(cpu.spheres[k]));
    const dvRounding = (1e-6 * farthest) / (params.dt / params.substeps);
    const problems: string[] = [];
    for (let i = 0; i < n && problems.length < 5; i++) {
      if (skip.has(i)) continue;
      for (let a = 0; a < 3; a++) {
        const dp = Math.abs(gpu.spheres[4 * i + a] - cpu.spheres[4 * i + a]);
        const dv = Math.abs(gpu.velocities[3 * i + a] - cpu.velocities[4 * i + a]);
        if (!(dp <= 1e-4 * extent + 1e-6 * Math.abs(cpu.spheres[4 * i + a])) || !(dv <= 1e-3 * speed + dvRounding)) {
          problems.push(
            `particle ${i} axis ${a}: GPU (${gpu.spheres[4 * i + a]}, v ${gpu.velocities[3 * i + a]}) vs CPU (${cpu.spheres[4 * i + a]}, v ${cpu.velocities[4 * i + a]})`,
          );
          break;
        }
      }
    }
    return problems;
  } finally {
    world.destroy();
  }
}

/**
 * Particles whose step may legitimately differ between the GPU and the CPU twin: those with a
 * contact (a pair within the search margin, or a wall) whose state at the start lies within
 * float rounding of one of the solver's thresholds — listed or not (gap vs margin + reaches),
 * touching or not (gap vs 0), bouncing or not (approach vs the restitution threshold, closing
 * within the substep or not), a wall taken or not, the nearer wall, a clamp at the bounds —
 * and, since contact counts split each particle's mass among its contacts, every particle
 * within reach of one. The rest must agree.
 */
export function borderlineParticles(spheres: Float32Array, velocities: Float32Array, p: StepParams): Set<number> {
  const n = spheres.length / 4;
  const eps = 1e-4;
  const h = p.dt / p.substeps;
  const v = (i: number, a: number): number =>
    velocities[4 * i + a] + (velocities[4 * i + 3] > 0 ? p.gravity[a] * h : 0);
  let speed = 1e-30;
  for (let i = 0; i < n; i++) for (let a = 0; a < 3; a++) speed = Math.max(speed, Math.abs(v(i, a)));
  const near = (x: number, threshold: number, scale: number): boolean => Math.abs(x - threshold) <= eps * scale;
  const fragile = new Set<number>();
  const linked: [number, number][] = [];
  const reach = (i: number): number =>
    Math.min(Math.hypot(velocities[4 * i], velocities[4 * i + 1], velocities[4 * i + 2]) * p.dt, spheres[4 * i + 3]);
  for (let i = 0; i < n; i++) {
    const r = spheres[4 * i + 3];
    const scale =
      r +
      Math.abs(spheres[4 * i]) +
      Math.abs(spheres[4 * i + 1]) +
      Math.abs(spheres[4 * i + 2]) +
      p.margin +
      speed * p.dt;
    if (p.bounds) {
      for (let a = 0; a < 3; a++) {
        const wallScale = scale + Math.abs(p.bounds[a]) + Math.abs(p.bounds[a + 3]);
        const low = spheres[4 * i + a] - r - p.bounds[a];
        const high = p.bounds[a + 3] - spheres[4 * i + a] - r;
        for (const [gap, vn0] of [
          [low, v(i, a)],
          [high, -v(i, a)],
        ]) {
          if (
            near(gap, 0, wallScale) ||
            near(gap, p.margin, wallScale) ||
            near(gap + Math.min(-vn0, 0) * h, p.margin, wallScale) ||
            near(gap - vn0 * h, 0, wallScale)
          )
            fragile.add(i);
          if (near(-vn0, -p.restitutionThreshold, speed) || near(-vn0, 0.5 * p.restitutionThreshold, speed))
            fragile.add(i);
        }
        if (near(low, high, wallScale)) fragile.add(i);
      }
    }
    for (let j = i + 1; j < n; j++) {
      const d = [0, 1, 2].map((a) => spheres[4 * j + a] - spheres[4 * i + a]);
      const dist = Math.hypot(d[0], d[1], d[2]);
      const gap = dist - r - spheres[4 * j + 3];
      const listed = p.margin + reach(i) + reach(j);
      const pairScale =
        scale +
        spheres[4 * j + 3] +
        Math.abs(spheres[4 * j]) +
        Math.abs(spheres[4 * j + 1]) +
        Math.abs(spheres[4 * j + 2]);
      if (gap > listed + eps * pairScale) continue;
      linked.push([i, j]);
      const vn0 = dist > 0 ? [0, 1, 2].reduce((sum, a) => sum + (v(j, a) - v(i, a)) * (d[a] / dist), 0) : 0;
      if (
        near(gap, listed, pairScale) ||
        near(gap, 0, pairScale) ||
        near(gap + vn0 * h, 0, pairScale) ||
        near(vn0, -p.restitutionThreshold, speed) ||
        near(vn0, 0.5 * p.restitutionThreshold, speed) ||
        dist === 0
      ) {
        fragile.add(i);
        fragile.add(j);
      }
    }
  }
  const out = new Set(fragile);
  for (const [i, j] of linked) {
    if (fragile.has(i)) out.add(j);
    if (fragile.has(j)) out.add(i);
  }
  return out;
}

/** The record arrays of a case and their strides; particle records span both arrays. */
function removeRecords(c: FuzzCase, field: 'spheres' | 'others', start: number, count: number): FuzzCase {
  const cut = (list: number[], stride: number): number[] => [
    ...list.slice(0, start * stride),
    ...list.slice((start + count) * stride),
  ];
  if (c.query === 'particleStep') return { ...c, spheres: cut(c.spheres, 4), others: cut(c.others, 3) };
  return field === 'spheres' ? { ...c, spheres: cut(c.spheres, 4) } : { ...c, others: cut(c.others, STRIDES[c.query]) };
}

/**
 * Cuts a failing case down (delta debugging over records): drops halves, then quarters, ... of
 * the spheres and of the other records while the case still fails. Returns the smallest found.
 */
export async function shrinkCase(collider: Collider, c: FuzzCase, maxChecks = 400): Promise<FuzzCase> {
  let current = c;
  let checks = 0;
  const fails = async (candidate: FuzzCase): Promise<boolean> => {
    checks++;
    try {
      return (await checkCase(collider, candidate)).length > 0;
    } catch {
      return false; // an error of another kind is not the failure being shrunk
    }
  };
  const fields =
    c.query === 'particleStep'
      ? (['spheres'] as const)
      : c.query === 'spherePairs'
        ? (['spheres'] as const)
        : (['spheres', 'others'] as const);
  for (const field of fields) {
    const stride = field === 'spheres' ? 4 : STRIDES[c.query];
    let chunk = Math.ceil(current[field].length / stride / 2);
    while (chunk >= 1 && checks < maxChecks) {
      let removed = false;
      for (let start = 0; start * stride < current[field].length && checks < maxChecks; start += chunk) {
        const candidate = removeRecords(current, field, start, chunk);
        if (await fails(candidate)) {
          current = candidate;
          removed = true;
          start -= chunk;
        }
      }
      if (!removed) chunk = Math.floor(chunk / 2);
    }
  }
  return current;
}
