/**
 * The grid's cast walk far from the origin and from far away. The walk works in each level's
 * frame (A's offset from the level's origin, shaders/broadphase/grid/casts.wgsl.ts) and widens every
 * reach by 2^-20 of that offset, the cast's length and the reaches (gridWalkSlack), not of the
 * absolute coordinates: at 1e6 those were about 1 unit, 16 spacings of a touching lattice of
 * radius 1/16, and every cast walked a tube 16 cells across (the CPU twin: 3,377 slabs, rows and
 * candidates a cast on the far lattice, 39 on the lattice at 0). The same f32 hit test decides in
 * every broad phase, so the grid's hits must be all-pairs' exactly. The f32 emulation of the walk
 * (the last but one test) fails when the slack is too small (2^-22 in place of 2^-20).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../../support/gpu.js';
import { mulberry32 } from '../../support/random.js';
import { PAIR_SCENES, mixedCasts } from '../../../bench/scenes.js';
import { validateSpheres } from '../../../src/validate.js';
import { planGrid } from '../../../src/spatial/plan.js';
import { gridCasts } from '../../../src/reference/gridQueries.js';
import { gridWalkSlack } from '../../../src/spatial/reach.js';
import { EXT_SCALE } from '../../../src/spatial/level.js';

const gpu = useGpu();

/** A unit vector and a unit normal to it, from `rand`. */
function frame(rand: () => number): { d: number[]; e: number[] } {
  const d = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
  const ld = Math.hypot(d[0], d[1], d[2]);
  for (let a = 0; a < 3; a++) d[a] /= ld;
  const t = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
  const dot = t[0] * d[0] + t[1] * d[1] + t[2] * d[2];
  const e = t.map((v, a) => v - dot * d[a]);
  const le = Math.hypot(e[0], e[1], e[2]);
  return { d, e: e.map((v) => v / le) };
}

async function expectAllPairsHits(
  rays: Float32Array,
  casts: Float32Array,
  spheres: Float32Array,
  minHits: number,
): Promise<void> {
  const all = await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs', allHits: true });
  expect(all.offsets[rays.length / 6], 'some rays hit').toBeGreaterThan(minHits);
  expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'grid', allHits: true })).toEqual(all);
  expect(await gpu.collider.raycast(rays, spheres, { broadphase: 'grid' })).toEqual(
    await gpu.collider.raycast(rays, spheres, { broadphase: 'all-pairs' }),
  );
  const allCasts = await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs', allHits: true });
  expect(allCasts.offsets[casts.length / 7], 'some casts hit').toBeGreaterThan(minHits);
  expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'grid', allHits: true })).toEqual(allCasts);
  expect(await gpu.collider.sphereCast(casts, spheres, { broadphase: 'grid' })).toEqual(
    await gpu.collider.sphereCast(casts, spheres, { broadphase: 'all-pairs' }),
  );
}

describe("the grid's casts in the level's frame", () => {
  /** Rays and casts that pass within reach·(1 ± 2^-20) of a sphere's centre, spheres 0.25–1.25 on a jittered lattice at `offset`. */
  for (const offset of [1e6, 1e7]) {
    it(`grazing raycasts and sphere casts at ${offset.toExponential(0)}: all-pairs' hits exactly (seed 3601)`, async () => {
      const rand = mulberry32(3601);
      const n = 8 ** 3;
      const spheres = new Float32Array(4 * n);
      for (let i = 0; i < n; i++)
        spheres.set(
          [
            offset + 4 * (i % 8) + rand(),
            offset + 4 * (Math.floor(i / 8) % 8) + rand(),
            offset + 4 * Math.floor(i / 64) + rand(),
            0.25 + rand(),
          ],
          4 * i,
        );
      const count = 600;
      const rays = new Float32Array(6 * count);
      const casts = new Float32Array(7 * count);
      for (let k = 0; k < count; k++) {
        const i = Math.floor(rand() * n);
        const r1 = k % 2 ? 0.125 * rand() : 0;
        const reach = spheres[4 * i + 3] + r1;
        const { d, e } = frame(rand);
        const off = reach * (1 + (2 * rand() - 1) * 2 ** -20);
        const p = [0, 1, 2].map((a) => spheres[4 * i + a] + e[a] * off);
        const back = 3 + 6 * rand();
        const ahead = 3 + 6 * rand();
        const from = p.map((v, a) => v - d[a] * back);
        const to = p.map((v, a) => v + d[a] * ahead);
        rays.set([...from, ...to], 6 * k);
        casts.set([...from, ...to, r1], 7 * k);
      }
      await expectAllPairsHits(rays, casts, spheres, 100);
    });
  }

  /**
   * Short casts (1–3 units) that graze tiny spheres (radius 2^-12 to 2^-10) centred on cell edges
   * of a sparse lattice 2,816 units across (spacing 256 from the level's origin, so its centres
   * lie on cell edges for any cell up to 256): the walk's positions round by ulps of 2,816 (2.4e-4,
   * about the spheres' radius) while the f32 hit test, of distances of a few units, is exact to
   * 1e-7, so the walk's tube must be wider than the reach by ulps of the cast's offset from the
   * level's origin.
   */
  it("short casts grazing tiny spheres on cell edges 2,816 units from the level's origin: all-pairs' hits exactly (seed 3602)", async () => {
    const rand = mulberry32(3602);
    const side = 12;
    const n = side ** 3;
    const spheres = new Float32Array(4 * n);
    for (let i = 0; i < n; i++)
      spheres.set(
        [
          256 * (i % side),
          256 * (Math.floor(i / side) % side),
          256 * Math.floor(i / side ** 2),
          2 ** -(10 + Math.floor(rand() * 3)),
        ],
        4 * i,
      );
    const count = 2000;
    const rays = new Float32Array(6 * count);
    const casts = new Float32Array(7 * count);
    for (let k = 0; k < count; k++) {
      // Mostly the far corner of the lattice, where the offsets are largest.
      const i = rand() < 0.75 ? n - 1 - Math.floor(rand() * side * side) : Math.floor(rand() * n);
      const r1 = k % 2 ? 2 ** -11 * rand() : 0;
      const reach = spheres[4 * i + 3] + r1;
      const { d, e } = frame(rand);
      const off = reach * (1 + (2 * rand() - 1) * 0.25);
      const p = [0, 1, 2].map((a) => spheres[4 * i + a] + e[a] * off);
      const back = 0.5 + rand();
      const ahead = 0.5 + rand();
      const from = p.map((v, a) => v - d[a] * back);
      const to = p.map((v, a) => v + d[a] * ahead);
      rays.set([...from, ...to], 6 * k);
      casts.set([...from, ...to, r1], 7 * k);
    }
    await expectAllPairsHits(rays, casts, spheres, 300);
  });

  /**
   * Rays along z a hair off level in y (A and B a few ulps apart) passing just above spheres whose
   * centres lie one ulp below y = 64, a cell edge and a binade's: positions along the ray (about
   * 64.06 in the level's frame) round by ulps of the binade above, twice the one below, and the
   * walk's lowest y, less the reach, must not round up into the cell above the spheres'.
   */
  it("rays a hair off level grazing spheres one ulp below a cell edge at a binade: all-pairs' hits exactly (seed 3603)", async () => {
    const rand = mulberry32(3603);
    const Y = Math.fround(64 - 2 ** -18);
    const ulp = 2 ** -17; // of y in [64, 128)
    const sph: number[] = [0, 0, 0, 1 / 16, 127, 127, 127, 1 / 16];
    const targets = 600;
    for (let i = 0; i < targets; i++) sph.push(1 + Math.floor(rand() * 126), Y, 1 + Math.floor(rand() * 126), 1 / 16);
    for (let i = 0; i < 600; i++)
      sph.push(Math.floor(rand() * 128), Math.floor(rand() * 128), Math.floor(rand() * 128), 1 / 16);
    const spheres = Float32Array.from(sph);
    const count = 3000;
    const rays = new Float32Array(6 * count);
    const casts = new Float32Array(7 * count);
    for (let k = 0; k < count; k++) {
      const i = 2 + Math.floor(rand() * targets);
      const [x, , z] = spheres.slice(4 * i, 4 * i + 3);
      const r1 = k % 2 ? 2 ** -6 * Math.floor(rand() * 3) : 0;
      const reach = 1 / 16 + r1;
      // The line crosses x = x at z = z (exactly: dyadic slopes, whole lengths), at y about Y + reach.
      const slope = (Math.floor(rand() * 9) - 4) / 8;
      const back = 1 + Math.floor(rand() * 40);
      const ahead = 1 + Math.floor(rand() * 40);
      const y = Math.fround(Y + reach) + ulp * (Math.floor(rand() * 5) - 2);
      const dy = ulp * (Math.floor(rand() * 7) - 3);
      const from = [x - slope * back, y - dy, z - back];
      const to = [x + slope * ahead, y + dy, z + ahead];
      rays.set([...from, ...to], 6 * k);
      casts.set([...from, ...to, r1], 7 * k);
    }
    await expectAllPairsHits(rays, casts, spheres, 300);
  });

  /**
   * The walk clips each cast to the stretch within reach of the level's bounds. Casts at a shallow
   * angle (1 in 16 to 1 in 4,096) that run beside a plane of spheres and graze the outermost ones
   * (the line passes at their reach·(1 ± 2^-20)), from above and below, or along a line of
   * spheres: every hit all-pairs reports, at 0 and at 1e6.
   */
  for (const offset of [0, 1e6]) {
    it(`shallow casts beside a plane and a line of spheres grazing the outermost: all-pairs' hits exactly, at ${offset.toExponential(0)} (seed 3605)`, async () => {
      const rand = mulberry32(3605);
      const sph: number[] = [];
      for (let i = 0; i < 1500; i++)
        sph.push(offset + 256 * rand(), offset + 256 * rand(), offset + (i % 3) * 0.5, 0.25 + 0.5 * rand());
      for (let i = 0; i < 300; i++) sph.push(offset + 300 + 0.75 * i, offset + 40, offset + 40, 0.5);
      const spheres = Float32Array.from(sph);
      const n = spheres.length / 4;
      const count = 1500;
      const rays = new Float32Array(6 * count);
      const casts = new Float32Array(7 * count);
      for (let k = 0; k < count; k++) {
        const i = Math.floor(rand() * n);
        const r1 = k % 2 ? 0.25 * rand() : 0;
        const reach = spheres[4 * i + 3] + r1;
        // Mostly along x or y, rising by 1 in 16 to 1 in 4,096, offset from the centre across the
        // direction and mostly in z (above or below the plane's outermost spheres).
        const rise = (rand() < 0.5 ? -1 : 1) * 2 ** -(4 + Math.floor(rand() * 9));
        const along = rand() < 0.5 ? [1, 0.3 * (rand() - 0.5), rise] : [0.3 * (rand() - 0.5), 1, rise];
        const ld = Math.hypot(along[0], along[1], along[2]);
        const d = along.map((v) => v / ld);
        const up = [0, 0, 1];
        const dot = d[2];
        const e0 = up.map((v, a) => v - dot * d[a]);
        const side = [d[1], -d[0], 0];
        const mix = 0.2 * (rand() - 0.5);
        const e1 = e0.map((v, a) => (rand() < 0.5 ? v : -v) + mix * side[a]);
        const le = Math.hypot(e1[0], e1[1], e1[2]);
        const off = reach * (1 + (2 * rand() - 1) * 2 ** -20);
        const p = [0, 1, 2].map((a) => spheres[4 * i + a] + (e1[a] / le) * off);
        const back = 20 + 200 * rand();
        const ahead = 1 + 20 * rand();
        const from = p.map((v, a) => v - d[a] * back);
        const to = p.map((v, a) => v + d[a] * ahead);
        rays.set([...from, ...to], 6 * k);
        casts.set([...from, ...to, r1], 7 * k);
      }
      await expectAllPairsHits(rays, casts, spheres, 200);
    });
  }

  /**
   * The slack against the walk's own rounding, emulated in f32 as the kernel computes (A's offset
   * from the level's origin, a slab's bound at a whole cell ± the reach, t there, the position
   * A + n·t, the cell range's edge ± the reach; a row's bounds in y and z as t = y·step + base,
   * and where the cast is then) and set against the same formulas in doubles:
   * each edge must be within a quarter of gridWalkSlack of its exact value, on the far lattice's
   * casts (1e6) and on long casts from afar. Its roundings are ulps of the level's coordinates:
   * the worst edge is 0.085 of the slack (2^-20 of the magnitudes); with 2^-22 it is 0.34 and
   * this fails, as it does for anything smaller (and for positions taken from absolute
   * coordinates, ulps of 1e6). The GPU tests above pass even with the slack at 2^-40: the f32
   * walk's roundings there stay within EXT_SCALE's margin, so this bound is what keeps the slack
   * honest.
   */
  it("gridWalkSlack covers the walk's f32 rounding in the level's frame, by 4× (lattice at 1e6, casts from afar)", () => {
    const f = Math.fround;
    const check = (spheres: Float32Array, casts: Float32Array, stride: 6 | 7): number => {
      const plan = planGrid(validateSpheres('spheres', spheres));
      let worst = 0;
      for (let o = 0; o < casts.length; o += stride) {
        const a = [casts[o], casts[o + 1], casts[o + 2]];
        const ab = [0, 1, 2].map((c) => f(casts[o + 3 + c] - a[c]));
        const len = f(Math.hypot(ab[0], ab[1], ab[2]));
        const n = ab.map((v) => f(v / len));
        const r1 = stride === 7 ? casts[o + 6] : 0;
        const an = n.map(Math.abs);
        const axis = an[0] >= an[1] && an[0] >= an[2] ? 0 : an[1] >= an[2] ? 1 : 2;
        for (const level of plan.levels) {
          if (level.count === 0) continue;
          const al = a.map((v, c) => f(v - level.origin[c]));
          const exactAl = a.map((v, c) => v - level.origin[c]);
          const slack = gridWalkSlack(Math.max(...al.map(Math.abs)), len, r1, level.maxRadius, level.cellSize);
          const h = f(f(f(level.maxRadius + r1) * EXT_SCALE) + f(slack));
          // Every slab bound the walk can meet between A and B.
          const first = Math.floor(Math.min(exactAl[axis], exactAl[axis] + n[axis] * len) / level.cellSize) - 1;
          const last = Math.floor(Math.max(exactAl[axis], exactAl[axis] + n[axis] * len) / level.cellSize) + 2;
          for (let k = Math.max(first, 0); k <= Math.min(last, level.dims[axis]); k++) {
            for (const side of [-1, 1]) {
              const x = f(k * level.cellSize + side * h);
              const t = Math.min(Math.max(f(f(x - al[axis]) / n[axis]), 0), len);
              const exactT = Math.min(Math.max((k * level.cellSize + side * h - exactAl[axis]) / n[axis], 0), len);
              for (let c = 0; c < 3; c++) {
                for (const grow of [-1, 1]) {
                  const edge = f(f(al[c] + f(n[c] * t)) + grow * h);
                  const exact = exactAl[c] + n[c] * exactT + grow * h;
                  worst = Math.max(worst, Math.abs(edge - exact) / slack);
                }
              }
            }
          }
          // Each row's bounds in y and z (rowClip): t = y·step + base from the cast's 1/n, where
          // the cast is at that t against where the bound lies (y·cell − h, (y + 1)·cell + h),
          // in the cells the cast crosses. On an axis the cast barely moves along t rounds by
          // many units, but the position it stands for is what the slack must hold.
          for (const c of [1, 2]) {
            if (!(Math.abs(n[c]) >= 2 ** -20)) continue;
            const inv = f(1 / n[c]);
            const step = f(f(level.cellSize) * inv);
            const bases = [f(f(-h - al[c]) * inv), f(f(f(level.cellSize + h) - al[c]) * inv)];
            const lo = Math.floor(Math.min(exactAl[c], exactAl[c] + n[c] * len) / level.cellSize) - 1;
            const hi = Math.floor(Math.max(exactAl[c], exactAl[c] + n[c] * len) / level.cellSize) + 2;
            for (let y = Math.max(lo, 0); y <= Math.min(hi, level.dims[c] - 1); y++) {
              bases.forEach((base, side) => {
                const bound = (y + side) * level.cellSize + (side ? h : -h);
                // Fused or not, as the compiler chooses.
                for (const t of [f(f(y * step) + base), f(y * step + base)]) {
                  if (!(t >= 0 && t <= len)) continue;
                  worst = Math.max(worst, Math.abs(exactAl[c] + n[c] * t - bound) / slack);
                }
              });
            }
          }
        }
      }
      return worst;
    };
    const lattice = PAIR_SCENES['lattice-far'].make(4000);
    const { casts, stride } = mixedCasts(lattice, 300);
    expect(check(lattice, casts, stride)).toBeLessThan(0.25);
    // Long casts from 1e4 away through the far lattice, and across it.
    const rand = mulberry32(3604);
    const far = new Float32Array(7 * 300);
    for (let k = 0; k < 300; k++) {
      const { d } = frame(rand);
      const i = Math.floor(rand() * 4000);
      const p = [0, 1, 2].map((c) => lattice[4 * i + c]);
      far.set(
        [...p.map((v, c) => v - d[c] * 1e4 * rand()), ...p.map((v, c) => v + d[c] * 10 * rand()), 0.5 * rand()],
        7 * k,
      );
    }
    expect(check(lattice, far, 7)).toBeLessThan(0.25);
  });

  it('the CPU twin walks as little on the far lattice as on the lattice at 0 (8,000 spheres, 2,000 mixed casts)', () => {
    const work = (kind: string): number => {
      const spheres = PAIR_SCENES[kind].make(8000);
      const plan = planGrid(validateSpheres('spheres', spheres));
      const { casts, stride } = mixedCasts(spheres, 2000);
      const cast = { rows: 0, candidates: 0, slabs: 0 };
      gridCasts(casts, stride, spheres, plan, false, cast);
      return (cast.slabs + cast.rows + cast.candidates) / 2000;
    };
    const near = work('lattice');
    const far = work('lattice-far');
    expect(far, `far ${far.toFixed(1)} against ${near.toFixed(1)}`).toBeLessThan(1.5 * near);
  });
});
