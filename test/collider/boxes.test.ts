/**
 * sphereBoxPairs and sphereOrientedBoxPairs against the brute-force oracle, with every broad
 * phase, on seeded scenes (seed in each test's name), within the band of test/support/boxes.ts;
 * and the grid a box query plans for its boxes (src/spatial/plan.ts, estimateBoxCost).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { diffPairs, bandViolations } from '../support/pairs.js';
import { aabbMargin, obbMargin } from '../support/boxes.js';
import { uniformScene, mixedRadiiScene, outlierScene } from '../support/scenes.js';
import { mulberry32, gaussian } from '../support/random.js';
import { bruteForceSphereAabbPairs, bruteForceSphereObbPairs } from '../../src/reference/sphereBox.js';
import { gridSphereAabbPairs, gridSphereObbPairs } from '../../src/reference/gridQueries.js';
import { sortPairs } from '../../src/reference/spherePairs.js';
import { sweepSphereBoxPairs } from '../../src/reference/sweep.js';
import { createCollider } from '../../src/collider.js';
import { CapacityError, InvalidInputError } from '../../src/errors.js';
import { planGrid, estimateBoxCost, type GridPlan } from '../../src/spatial/plan.js';
import { validateSpheres, validateAabbs, validateOrientedBoxes, boxSampleOf } from '../../src/validate.js';
import { rotateInverse } from '../../src/reference/sphereBox.js';
import { boxScene } from '../../bench/scenes.js';
import { phasesServing } from '../../src/broadphase/registry.js';

const gpu = useGpu();

/** Random AABBs over [offset, offset + side]³: sizes from flat to a fifth of the box. */
function randomAabbs(m: number, seed: number, side: number, offset = 0, maxSize = side / 5): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(6 * m);
  for (let k = 0; k < m; k++) {
    const size = [0, 1, 2].map(() => (rand() < 0.1 ? 0 : rand() ** 3 * maxSize));
    const min = [0, 1, 2].map((a) => offset + rand() * side - size[a] / 2);
    out.set([...min, ...min.map((v, a) => v + size[a])], 6 * k);
  }
  return out;
}

/** Random oriented boxes: random (unnormalised) quaternions, or exact 90° turns about an axis. */
function randomObbs(m: number, seed: number, side: number, offset = 0, turns = false): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(10 * m);
  const s = Math.SQRT1_2;
  const quarterTurns = [
    [s, 0, 0, s],
    [0, s, 0, s],
    [0, 0, s, s],
    [0, 0, 1, 0],
    [1, 0, 0, 0],
    [0, 0, 0, 1],
  ];
  for (let k = 0; k < m; k++) {
    const half = [0, 1, 2].map(() => (rand() < 0.1 ? 0 : rand() * side * 0.05));
    const q = turns
      ? quarterTurns[Math.floor(rand() * quarterTurns.length)]
      : [gaussian(rand), gaussian(rand), gaussian(rand), gaussian(rand)].map((v) => v * 3); // normalised by the library
    out.set([offset + rand() * side, offset + rand() * side, offset + rand() * side, ...half, ...q], 10 * k);
  }
  return out;
}

const side = (n: number): number => Math.cbrt((n * 4.19) / 0.1);

interface Case {
  name: string;
  spheres: () => Float32Array;
  boxes: () => Float32Array;
}

const aabbCases: Case[] = [
  {
    name: 'uniform spheres, 400 AABBs, seed 401',
    spheres: () => uniformScene(3000, { seed: 401 }),
    boxes: () => randomAabbs(400, 401, side(3000)),
  },
  {
    name: 'mixed radii, 400 AABBs up to half the scene, seed 402',
    spheres: () => mixedRadiiScene(3000, { seed: 402 }),
    boxes: () => randomAabbs(400, 402, 20, 0, 10),
  },
  {
    name: 'far outliers (hashed grid), seed 403',
    spheres: () => outlierScene(3000, { seed: 403 }),
    boxes: () => randomAabbs(300, 403, side(3000)),
  },
  {
    name: 'large coordinates (1e5), seed 404',
    spheres: () => uniformScene(2000, { seed: 404, offset: 1e5 }),
    boxes: () => randomAabbs(300, 404, side(2000), 1e5),
  },
  {
    name: 'tiny scale (1e-3), seed 405',
    spheres: () => mixedRadiiScene(2000, { seed: 405 }, 1e-5, 1e-4),
    boxes: () => randomAabbs(300, 405, 1e-3),
  },
  {
    name: 'degenerate boxes: points, segments and planes, seed 406',
    spheres: () => uniformScene(2000, { seed: 406 }),
    boxes: () => {
      const rand = mulberry32(406);
      const out = new Float32Array(6 * 300);
      for (let k = 0; k < 300; k++) {
        const p = [0, 1, 2].map(() => rand() * side(2000));
        const q = p.map((v, a) => (a === k % 3 ? v + rand() * 10 : v));
        out.set([...p, ...q], 6 * k);
      }
      return out;
    },
  },
];

const obbCases: Case[] = [
  {
    name: 'random rotations (unnormalised quaternions), seed 411',
    spheres: () => uniformScene(3000, { seed: 411 }),
    boxes: () => randomObbs(400, 411, side(3000)),
  },
  {
    name: 'exact 90° and 180° turns, seed 412',
    spheres: () => uniformScene(3000, { seed: 412 }),
    boxes: () => randomObbs(400, 412, side(3000), 0, true),
  },
  {
    name: 'mixed radii, random rotations, seed 413',
    spheres: () => mixedRadiiScene(3000, { seed: 413 }),
    boxes: () => randomObbs(400, 413, 20),
  },
  {
    name: 'large coordinates (1e5), seed 414',
    spheres: () => uniformScene(2000, { seed: 414, offset: 1e5 }),
    boxes: () => randomObbs(300, 414, side(2000), 1e5),
  },
  {
    name: 'far outliers (hashed grid), seed 415',
    spheres: () => outlierScene(2000, { seed: 415 }),
    boxes: () => randomObbs(300, 415, side(2000)),
  },
];

describe('sphereBoxPairs (AABB) matches the oracle', () => {
  for (const c of aabbCases) {
    it(c.name, async () => {
      const spheres = c.spheres();
      const boxes = c.boxes();
      const oracle = bruteForceSphereAabbPairs(spheres, boxes);
      const found: Record<string, Uint32Array> = {};
      for (const broadphase of phasesServing('boxes')) {
        const pairs = (found[broadphase] = await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase }));
        expect(bandViolations(diffPairs(spheres, pairs, oracle, aabbMargin(boxes), false), 1), broadphase).toEqual([]);
      }
      // Every broad phase ends in the same f32 test: the same pairs, to the last one.
      expect(sortPairs(found.sweep)).toEqual(sortPairs(found.grid));
      expect(sortPairs(found.bvh)).toEqual(sortPairs(found.grid));
      expect(sortPairs(found['all-pairs'])).toEqual(sortPairs(found.grid));
      expect(oracle.length).toBeGreaterThan(0);
      // The CPU twins of the grid and sweep kernels have the oracle's exact test: the same pairs, exactly.
      expect(
        sortPairs(gridSphereAabbPairs(spheres, boxes, gpu.collider.planFor(spheres, { kind: 'aabb', boxes }))),
      ).toEqual(oracle);
      expect(sortPairs(sweepSphereBoxPairs(spheres, boxes, 'aabb'))).toEqual(oracle);
    });
  }
});

describe('sphereOrientedBoxPairs matches the oracle', () => {
  for (const c of obbCases) {
    it(c.name, async () => {
      const spheres = c.spheres();
      const boxes = c.boxes();
      const oracle = bruteForceSphereObbPairs(spheres, boxes);
      const found: Record<string, Uint32Array> = {};
      for (const broadphase of phasesServing('boxes')) {
        const pairs = (found[broadphase] = await gpu.collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase }));
        expect(bandViolations(diffPairs(spheres, pairs, oracle, obbMargin(boxes), false), 1), broadphase).toEqual([]);
      }
      expect(sortPairs(found.sweep)).toEqual(sortPairs(found.grid));
      expect(sortPairs(found.bvh)).toEqual(sortPairs(found.grid));
      expect(sortPairs(found['all-pairs'])).toEqual(sortPairs(found.grid));
      expect(oracle.length).toBeGreaterThan(0);
      expect(
        sortPairs(gridSphereObbPairs(spheres, boxes, gpu.collider.planFor(spheres, { kind: 'obb', boxes }))),
      ).toEqual(oracle);
      expect(sortPairs(sweepSphereBoxPairs(spheres, boxes, 'obb'))).toEqual(oracle);
    });
  }

  it('an identity rotation gives exactly the AABB answer (seed 416)', async () => {
    const spheres = uniformScene(2000, { seed: 416 });
    const aabbs = randomAabbs(300, 416, side(2000));
    const obbs = new Float32Array(10 * 300);
    for (let k = 0; k < 300; k++) {
      const b = aabbs.subarray(6 * k, 6 * k + 6);
      obbs.set(
        [
          (b[0] + b[3]) / 2,
          (b[1] + b[4]) / 2,
          (b[2] + b[5]) / 2,
          (b[3] - b[0]) / 2,
          (b[4] - b[1]) / 2,
          (b[5] - b[2]) / 2,
          0,
          0,
          0,
          1,
        ],
        10 * k,
      );
    }
    const oracle = bruteForceSphereObbPairs(spheres, obbs);
    const pairs = await gpu.collider.sphereOrientedBoxPairs(spheres, obbs);
    expect(bandViolations(diffPairs(spheres, pairs, oracle, obbMargin(obbs), false), 1)).toEqual([]);
  });
});

describe('oriented boxes 1e6 from the origin, over a touching lattice', () => {
  // Spacing 1/8 and radius 1/16 at 1e6, where an f32 ulp is 1/16: the grid's cell range of an
  // oriented box comes from its centre's offset from the level's origin, grown by ulps of that
  // offset (growing it by ulps of the coordinates walked 29× the rows there: PERFORMANCE.md).
  // Boxes centred on lattice points and on the midpoints between them, with half extents in
  // sixteenths, turned exactly (quarter turns) or not: many pairs touch exactly.
  it("the grid finds exactly what all-pairs finds, and the oracle's pairs within the band (seed 441)", async () => {
    const L = 16;
    const spheres = new Float32Array(4 * L * L * L);
    for (let i = 0; i < L * L * L; i++)
      spheres.set(
        [1e6 + (i % L) / 8, 1e6 + (Math.floor(i / L) % L) / 8, 1e6 + Math.floor(i / (L * L)) / 8, 1 / 16],
        4 * i,
      );
    const rand = mulberry32(441);
    const s = Math.SQRT1_2;
    const turns = [
      [0, 0, 0, 1],
      [s, 0, 0, s],
      [0, s, 0, s],
      [0, 0, s, s],
    ];
    const boxes = new Float32Array(10 * 600);
    for (let k = 0; k < 600; k++) {
      const centre = [0, 1, 2].map(() => 1e6 + Math.floor(rand() * 2 * L) / 16);
      const half = [0, 1, 2].map(() => Math.floor(rand() * 5) / 16);
      const q = k % 3 === 0 ? [gaussian(rand), gaussian(rand), gaussian(rand), gaussian(rand)] : turns[k % 4];
      boxes.set([...centre, ...half, ...q], 10 * k);
    }
    const oracle = bruteForceSphereObbPairs(spheres, boxes);
    expect(oracle.length / 2).toBeGreaterThan(5000);
    const grid = await gpu.collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase: 'grid' });
    const all = await gpu.collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase: 'all-pairs' });
    expect(sortPairs(grid)).toEqual(sortPairs(all));
    expect(bandViolations(diffPairs(spheres, grid, oracle, obbMargin(boxes), false), 1)).toEqual([]);
  });
});

describe('a long, thin oriented box at an angle', () => {
  // A plank 2000 long and about 0.02 thick, turned 45° about x and 30° about y:
  // sphereObbOverlap rounds in the box's frame by ulps of the sphere's offset along the plank
  // (~1e3), so it accepts points up to ~1e-5 past the plank's thin world extent. Points are put
  // on a cell boundary of the plan the query takes (fine cells, from a lattice of points at the
  // plank's end), with the plank's extent a few millionths below it: a cell range grown by ulps
  // of each axis' own extent (~1e-7 here) stopped at that boundary and missed them.
  const quat = (axis: number[], degrees: number): number[] => {
    const h = (degrees * Math.PI) / 360;
    return [...axis.map((v) => v * Math.sin(h)), Math.cos(h)];
  };
  const mul = ([ax, ay, az, aw]: number[], [bx, by, bz, bw]: number[]): number[] => [
    aw * bx + ax * bw + ay * bz - az * by,
    aw * by - ax * bz + ay * bw + az * bx,
    aw * bz + ax * by - ay * bx + az * bw,
    aw * bw - ax * bx - ay * by - az * bz,
  ];
  const q = mul(quat([0, 1, 0], 30), quat([1, 0, 0], 45));
  const along = [Math.cos(Math.PI / 6), 0, -Math.sin(Math.PI / 6)];
  const L = 1000;

  function scene(centreY: number, pointsY: number, seed: number): Float32Array {
    const out: number[] = [];
    const end = [0, 2].map((a) => (L - 0.01) * along[a]);
    // The lattice at the plank's end: the plan's fine cells.
    for (let i = 0; i < 40; i++)
      for (let j = 0; j < 8; j++)
        for (let k = 0; k < 40; k++) out.push(end[0] + i * 2.5e-4, centreY - 0.05 + j * 0.008, end[1] - k * 2.5e-4, 0);
    const rand = mulberry32(seed);
    for (let i = 0; i < 3000; i++) {
      const t = L - 0.01 * rand();
      out.push(t * along[0], pointsY, t * along[2], 0);
    }
    return new Float32Array(out);
  }

  for (const [centreY, seed] of [
    [0.25, 451],
    [1e4, 452],
  ]) {
    it(`every broad phase finds what all-pairs finds, the centre at y = ${centreY} (seed ${seed})`, async () => {
      const cy = Math.fround(centreY);
      let missed = 0;
      let found = 0;
      for (let trial = 1; trial <= 4; trial++) {
        // The plank's world half extent in y is H·√2; the points' y, the first cell boundary
        // above it, and H, a few millionths under it (the plan depends on the points: iterate).
        let H = 0.01;
        let pointsY = cy + H * Math.SQRT2;
        for (let it = 0; it < 3; it++) {
          const box = new Float32Array([0, cy, 0, L, H, H, ...q]);
          const level = gpu.collider
            .planFor(scene(cy, pointsY, seed + trial), { kind: 'obb', boxes: box })
            .levels.find((l) => l.count > 0)!;
          const rel = cy - level.origin[1];
          pointsY = Math.fround(
            level.origin[1] + Math.ceil((cy + H * Math.SQRT2 - level.origin[1]) / level.cellSize) * level.cellSize,
          );
          const margin = (pointsY - cy) / 65536 + (Math.abs(rel) + (pointsY - cy)) / 2 ** 20;
          H = (pointsY - cy - 1.5 * margin - 2e-6 * trial) / Math.SQRT2;
        }
        const spheres = scene(cy, pointsY, seed + trial);
        const box = new Float32Array([0, cy, 0, L, H, H, ...q]);
        const all = await gpu.collider.sphereOrientedBoxPairs(spheres, box, { broadphase: 'all-pairs' });
        found += all.length / 2;
        for (const broadphase of phasesServing('boxes').filter((name) => name !== 'all-pairs')) {
          const pairs = await gpu.collider.sphereOrientedBoxPairs(spheres, box, { broadphase });
          expect(sortPairs(pairs), `${broadphase}, trial ${trial}`).toEqual(sortPairs(all));
          missed += (all.length - pairs.length) / 2;
        }
      }
      // The scene does put points where the f32 test reaches past the plank.
      expect(found).toBeGreaterThan(0);
      expect(missed).toBe(0);
    });
  }
});

describe('sphere–box edge cases', () => {
  it('empty spheres or empty boxes give no pairs', async () => {
    expect((await gpu.collider.sphereBoxPairs(new Float32Array(0), new Float32Array([0, 0, 0, 1, 1, 1]))).length).toBe(
      0,
    );
    expect((await gpu.collider.sphereBoxPairs(new Float32Array([0, 0, 0, 1]), new Float32Array(0))).length).toBe(0);
    expect(
      (await gpu.collider.sphereOrientedBoxPairs(new Float32Array([0, 0, 0, 1]), new Float32Array(0))).length,
    ).toBe(0);
  });

  it('touching counts: a sphere exactly r from a face, an edge and a corner', async () => {
    const box = new Float32Array([0, 0, 0, 1, 1, 1]);
    const spheres = new Float32Array([
      2,
      0.5,
      0.5,
      1, // face: distance 1
      2,
      2,
      0.5,
      1.25, // edge: distance √2 ≈ 1.4142 > 1.25: apart
      1.5,
      1.5,
      1.5,
      0.8660254, // corner: distance √0.75 ≈ 0.8660254
      0.5,
      0.5,
      0.5,
      0, // a point inside
      3,
      0.5,
      0.5,
      1, // apart
    ]);
    for (const broadphase of ['all-pairs', 'grid'] as const) {
      const pairs = Array.from(await gpu.collider.sphereBoxPairs(spheres, box, { broadphase })).filter(
        (_, k) => k % 2 === 0,
      );
      expect(pairs.sort()).toEqual([0, 2, 3]);
    }
  });

  it('maxPairs throws CapacityError with the true count; a full list grows (seed 417)', async () => {
    const spheres = uniformScene(3000, { seed: 417 });
    const boxes = randomAabbs(500, 417, side(3000), 0, 30);
    const expected = bruteForceSphereAabbPairs(spheres, boxes).length / 2;
    expect(expected).toBeGreaterThan(4096); // more than a fresh collider's first list
    const fresh = await createCollider({ device: gpu.device });
    try {
      expect((await fresh.sphereBoxPairs(spheres, boxes, { broadphase: 'grid' })).length / 2).toBe(expected);
      const error = await fresh.sphereBoxPairs(spheres, boxes, { maxPairs: 100 }).catch((e) => e);
      expect(error).toBeInstanceOf(CapacityError);
      expect(error.count).toBe(expected);
    } finally {
      fresh.destroy();
    }
  });

  // all-pairs: 24 × 10 = 240 tiles fold under a limit of 16; grid: 6 workgroups of spheres and
  // 5 of boxes fold under a limit of 4.
  for (const [broadphase, limit] of [
    ['all-pairs', 16],
    ['grid', 4],
  ] as const) {
    it(`${broadphase} folds dispatches past the workgroup limit (limit ${limit}, seed 418)`, async () => {
      const collider = await createCollider({ device: gpu.device, maxWorkgroupsPerDimension: limit });
      try {
        const spheres = uniformScene(1500, { seed: 418 });
        const boxes = randomAabbs(600, 418, side(1500));
        const pairs = await collider.sphereBoxPairs(spheres, boxes, { broadphase });
        expect(
          bandViolations(
            diffPairs(spheres, pairs, bruteForceSphereAabbPairs(spheres, boxes), aabbMargin(boxes), false),
            1,
          ),
        ).toEqual([]);
      } finally {
        collider.destroy();
      }
    });
  }
});

/** The finest non-empty level's cell size. */
const finestCell = (plan: GridPlan): number => plan.levels.find((l) => l.count > 0)!.cellSize;

describe('a box query plans the grid for its boxes', () => {
  it('planFor refuses a box kind other than aabb or obb, naming it', () => {
    const spheres = uniformScene(100, { seed: 419 });
    const boxes = new Float32Array(30); // a whole number of AABBs and of oriented boxes
    for (const kind of ['AABB', undefined, 'box']) {
      let error: unknown;
      try {
        gpu.collider.planFor(spheres, { kind: kind as 'aabb', boxes });
      } catch (e) {
        error = e;
      }
      expect(error, String(kind)).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).argument).toBe('boxes.kind');
    }
  });

  it('the sample: AABBs as given, oriented boxes by their enclosing AABB (seed 420)', () => {
    const { boxes: aabbs } = boxScene('uniform', 2000, 100, 'aabb', 420);
    const a = boxSampleOf('aabb', validateAabbs('aabbs', aabbs));
    expect(a.count).toBe(100);
    expect(a.lo.length).toBe(3 * 64);
    // Evenly spaced: sample s is box floor(s · 100 / 64).
    for (const s of [0, 1, 37, 63]) {
      const k = Math.floor((s * 100) / 64);
      for (let ax = 0; ax < 3; ax++) {
        expect(a.lo[3 * s + ax]).toBe(aabbs[6 * k + ax]);
        expect(a.hi[3 * s + ax]).toBe(aabbs[6 * k + 3 + ax]);
      }
    }
    const { boxes: obbs } = boxScene('uniform', 2000, 40, 'obb', 421);
    const o = boxSampleOf('obb', validateOrientedBoxes('boxes', obbs));
    expect(o.count).toBe(40);
    for (let k = 0; k < 40; k++) {
      const b = 10 * k;
      const len = Math.hypot(obbs[b + 6], obbs[b + 7], obbs[b + 8], obbs[b + 9]);
      // Each corner in world space lies in the enclosing box; on each axis some corner reaches each side.
      const reach = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
      for (let corner = 0; corner < 8; corner++) {
        const local = [0, 1, 2].map((ax) => ((corner >> ax) & 1 ? 1 : -1) * obbs[b + 3 + ax]);
        // The world offset is q · local · q⁻¹: the inverse rotation by the conjugate quaternion.
        const world = rotateInverse(
          -obbs[b + 6] / len,
          -obbs[b + 7] / len,
          -obbs[b + 8] / len,
          obbs[b + 9] / len,
          local[0],
          local[1],
          local[2],
        );
        for (let ax = 0; ax < 3; ax++) {
          reach[ax] = Math.min(reach[ax], obbs[b + ax] + world[ax]);
          reach[3 + ax] = Math.max(reach[3 + ax], obbs[b + ax] + world[ax]);
        }
      }
      for (let ax = 0; ax < 3; ax++) {
        expect(o.lo[3 * k + ax]).toBeCloseTo(reach[ax], 4);
        expect(o.hi[3 * k + ax]).toBeCloseTo(reach[3 + ax], 4);
      }
    }
  });

  it("points on a lattice: cells coarser than the pair plan, at most half the boxes' median extent, and cheaper by the estimate (seed 21)", () => {
    const { spheres, boxes } = boxScene('points', 20000, 2000, 'aabb');
    const stats = validateSpheres('spheres', spheres);
    const sample = boxSampleOf('aabb', validateAabbs('aabbs', boxes));
    const pairPlan = planGrid(stats);
    const boxPlan = planGrid(stats, {}, sample);
    expect(finestCell(boxPlan)).toBeGreaterThanOrEqual(4 * finestCell(pairPlan));
    const extents = Array.from(
      { length: 64 },
      (_, k) => [0, 1, 2].reduce((sum, ax) => sum + sample.hi[3 * k + ax] - sample.lo[3 * k + ax], 0) / 3,
    ).sort((x, y) => x - y);
    expect(finestCell(boxPlan)).toBeLessThanOrEqual(extents[32] / 2);
    expect(estimateBoxCost(boxPlan, stats, sample)).toBeLessThan(estimateBoxCost(pairPlan, stats, sample) / 4);
  });

  it("a tiny blob keeps its own level; clusters far apart keep the pair plan's cells (seed 21)", () => {
    for (const shape of ['aabb', 'obb'] as const) {
      const blob = boxScene('tiny-blob', 20000, 2000, shape);
      const blobStats = validateSpheres('spheres', blob.spheres);
      const blobPlan = planGrid(
        blobStats,
        {},
        boxSampleOf(
          shape,
          shape === 'aabb' ? validateAabbs('aabbs', blob.boxes) : validateOrientedBoxes('boxes', blob.boxes),
        ),
      );
      expect(finestCell(blobPlan)).toBeLessThan(0.01);
      const clustered = boxScene('clustered', 20000, 2000, shape);
      const clusteredStats = validateSpheres('spheres', clustered.spheres);
      const clusteredPlan = planGrid(
        clusteredStats,
        {},
        boxSampleOf(
          shape,
          shape === 'aabb' ? validateAabbs('aabbs', clustered.boxes) : validateOrientedBoxes('boxes', clustered.boxes),
        ),
      );
      expect(finestCell(clusteredPlan)).toBe(finestCell(planGrid(clusteredStats)));
    }
  });

  for (const shape of ['aabb', 'obb'] as const) {
    it(`points on a lattice, ${shape}: the GPU grid and its CPU twin on the box plan give the oracle's pairs (seed 21)`, async () => {
      const { spheres, boxes } = boxScene('points', 3000, 300, shape);
      const boxPlan = gpu.collider.planFor(spheres, { kind: shape, boxes });
      expect(finestCell(boxPlan)).toBeGreaterThan(finestCell(gpu.collider.planFor(spheres)));
      const oracle =
        shape === 'aabb' ? bruteForceSphereAabbPairs(spheres, boxes) : bruteForceSphereObbPairs(spheres, boxes);
      expect(oracle.length).toBeGreaterThan(0);
      const margin = shape === 'aabb' ? aabbMargin(boxes) : obbMargin(boxes);
      for (const broadphase of ['grid', 'auto'] as const) {
        const pairs =
          shape === 'aabb'
            ? await gpu.collider.sphereBoxPairs(spheres, boxes, { broadphase })
            : await gpu.collider.sphereOrientedBoxPairs(spheres, boxes, { broadphase });
        expect(bandViolations(diffPairs(spheres, pairs, oracle, margin, false), 1), broadphase).toEqual([]);
      }
      const twin =
        shape === 'aabb' ? gridSphereAabbPairs(spheres, boxes, boxPlan) : gridSphereObbPairs(spheres, boxes, boxPlan);
      expect(sortPairs(twin)).toEqual(sortPairs(oracle));
    });
  }
});
