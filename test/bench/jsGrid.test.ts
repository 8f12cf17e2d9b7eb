/**
 * The bench's careful JS grid peer (bench/peers/jsGrid.ts) against the CPU oracle: the same pair
 * set, exactly (it tests pairs in double precision on the f32 inputs, as the oracle does), each
 * pair once as (i, j) with i < j; and its sphere–box grid against the brute-force oracle (AABBs
 * exactly, oriented boxes within the rounding band). CPU only.
 */
import { describe, expect, it } from 'vitest';
import { bruteForceSpherePairs, sortPairs } from '../../src/reference/spherePairs.js';
import { bruteForceSphereAabbPairs, bruteForceSphereObbPairs } from '../../src/reference/sphereBox.js';
import {
  jsGridSpherePairs,
  jsGridSpherePairsNaive,
  jsGridSphereBoxPairs,
  type JsGridLevels,
} from '../../bench/peers/jsGrid.js';
import { PAIR_SCENES, boxScene, type BoxShape } from '../../bench/scenes.js';
import { diffPairs, bandViolations } from '../support/pairs.js';
import { obbMargin } from '../support/boxes.js';
import {
  uniformScene,
  mixedRadiiScene,
  clusteredScene,
  giantsScene,
  coincidentScene,
  separatedScene,
  outlierScene,
} from '../support/scenes.js';
import { mulberry32 } from '../support/random.js';

function expectOracle(spheres: Float32Array): JsGridLevels {
  const levels = {} as JsGridLevels;
  const pairs = jsGridSpherePairs(spheres, levels);
  for (let k = 0; k < pairs.length; k += 2) {
    if (!(pairs[k] < pairs[k + 1])) throw new Error(`pair (${pairs[k]}, ${pairs[k + 1]}) is not i < j`);
  }
  const expected = bruteForceSpherePairs(spheres);
  const got = sortPairs(pairs);
  // Equal arrays: no pair missing, none extra, none twice.
  expect(got.length / 2).toBe(expected.length / 2);
  expect(got).toEqual(expected);
  return levels;
}

/** Tiny spheres (r 0.01) around one of 200 radius-1 spheres spread over 10⁴ on each axis: a sparse coarse level and a fine one. */
function sparseTwoLevelScene(seed: number): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * 2200);
  for (let i = 0; i < 200; i++) out.set([rand() * 1e4, rand() * 1e4, rand() * 1e4, 1], 4 * i);
  for (let i = 200; i < 2200; i++)
    out.set([out[0] + 3 * (rand() - 0.5), out[1] + 3 * (rand() - 0.5), out[2] + 3 * (rand() - 0.5), 0.01], 4 * i);
  return out;
}

describe('careful JS grid (bench peer) equals the oracle', () => {
  const shared: [string, () => Float32Array][] = [
    ['uniform', () => uniformScene(3000, { seed: 1 })],
    ['uniform, dense', () => uniformScene(3000, { seed: 2, fraction: 0.4 })],
    ['mixed radii 1:100', () => mixedRadiiScene(3000, { seed: 3 })],
    ['mixed radii 1:10⁴', () => mixedRadiiScene(3000, { seed: 4 }, 1e-4, 1)],
    ['clustered (sparse cells)', () => clusteredScene(3000, { seed: 5 })],
    ['giants (two levels)', () => giantsScene(3000, 5, { seed: 6 })],
    ['all coincident', () => coincidentScene(300)],
    ['all coincident points (radius 0)', () => coincidentScene(300, {}, 0)],
    ['separated (no pairs)', () => separatedScene(2000, { seed: 7 })],
    ['far outliers', () => outlierScene(3000, { seed: 8 })],
    ['offset 1e6', () => uniformScene(3000, { seed: 9, offset: 1e6 })],
  ];
  for (const [name, make] of shared) it(name, () => expectOracle(make()));

  for (const kind of Object.keys(PAIR_SCENES))
    it(`bench scene: ${kind}`, () => expectOracle(PAIR_SCENES[kind].make(3000)));

  it('exactly touching spheres count (a lattice of spacing 1, radius 0.5)', () => {
    const out = new Float32Array(4 * 1000);
    for (let i = 0; i < 1000; i++) out.set([i % 10, Math.floor(i / 10) % 10, Math.floor(i / 100), 0.5], 4 * i);
    expectOracle(out);
    expect(jsGridSpherePairs(out).length / 2).toBe(3 * 10 * 10 * 9);
  });

  it('points (radius 0) among spheres, and on a plane', () => {
    const rand = mulberry32(10);
    const mixed = new Float32Array(4 * 2000);
    for (let i = 0; i < 2000; i++)
      mixed.set(
        [Math.floor(rand() * 12), Math.floor(rand() * 12), Math.floor(rand() * 12), i % 3 === 0 ? 0 : 0.3 * rand()],
        4 * i,
      );
    expectOracle(mixed);
    const plane = new Float32Array(4 * 2000);
    for (let i = 0; i < 2000; i++) plane.set([Math.floor(rand() * 50), Math.floor(rand() * 50), 7, 0], 4 * i);
    expectOracle(plane);
  });

  it('a tiny blob gets its own level; a sparse coarse level is searched from a fine one', () => {
    const blob = expectOracle(PAIR_SCENES['tiny-blob'].make(4000));
    expect(blob.spheres).toEqual([2000, 2000]);
    const sparse = expectOracle(sparseTwoLevelScene(11));
    expect(sparse.spheres).toEqual([200, 2000]);
    expect(sparse.sparse[0]).toBe(true);
    expect(jsGridSpherePairs(sparseTwoLevelScene(11)).length).toBeGreaterThan(0);
  });

  it('clusters far apart and far outliers use sparse cells', () => {
    expect(expectOracle(clusteredScene(3000, { seed: 15 })).sparse).toEqual([true]);
    expect(expectOracle(outlierScene(3000, { seed: 16 })).sparse).toEqual([true]);
  });

  it('mixed radii 1:100 stay one level (the finer bins are sparse in its cells)', () => {
    expect(expectOracle(mixedRadiiScene(3000, { seed: 12 })).spheres).toEqual([3000]);
  });

  it('no spheres, one sphere, two', () => {
    expect(jsGridSpherePairs(new Float32Array(0)).length).toBe(0);
    expect(jsGridSpherePairs(new Float32Array([1, 2, 3, 1])).length).toBe(0);
    expect([...jsGridSpherePairs(new Float32Array([0, 0, 0, 1, 1.5, 0, 0, 0.5]))]).toEqual([0, 1]);
  });

  it('the naive peer agrees too', () => {
    for (const spheres of [uniformScene(2000, { seed: 13 }), mixedRadiiScene(2000, { seed: 14 })]) {
      expect(sortPairs(jsGridSpherePairsNaive(spheres))).toEqual(bruteForceSpherePairs(spheres));
    }
  });
});

/** The box peer's pairs against the oracle's: AABBs the same set exactly, oriented boxes within the band. */
function expectBoxOracle(spheres: Float32Array, boxes: Float32Array, shape: BoxShape): number {
  const got = jsGridSphereBoxPairs(spheres, boxes, shape);
  if (shape === 'aabb') {
    const expected = bruteForceSphereAabbPairs(spheres, boxes);
    expect(sortPairs(got)).toEqual(sortPairs(expected));
    return expected.length / 2;
  }
  const expected = bruteForceSphereObbPairs(spheres, boxes);
  const diff = diffPairs(spheres, got, expected, obbMargin(boxes), false);
  expect(bandViolations(diff, 1)).toEqual([]);
  // Near-touching pairs may differ in the last bits; no more than a handful.
  expect(diff.missing.length + diff.extra.length).toBeLessThanOrEqual(2);
  return expected.length / 2;
}

describe('careful JS grid for sphere–box pairs (bench peer) equals the oracle', () => {
  for (const shape of ['aabb', 'obb'] as const) {
    for (const kind of Object.keys(PAIR_SCENES)) {
      it(`${shape}, bench scene: ${kind} (seed 21)`, () => {
        const { spheres, boxes } = boxScene(kind, 3000, 300, shape);
        expect(expectBoxOracle(spheres, boxes, shape)).toBeGreaterThan(0);
      });
    }
  }

  it('touching counts: points on a box face and a sphere touching a corner', () => {
    const spheres = new Float32Array([
      1,
      0.5,
      0.5,
      0,
      0,
      0,
      0,
      0,
      2,
      1,
      1,
      0,
      2.5,
      2.5,
      2.5,
      Math.sqrt(0.75) * 1.0000001,
    ]);
    const aabb = new Float32Array([0, 0, 0, 1, 1, 1]);
    expect(sortPairs(jsGridSphereBoxPairs(spheres, aabb, 'aabb'))).toEqual(Uint32Array.from([0, 0, 1, 0]));
    expectBoxOracle(spheres, aabb, 'aabb');
    const obb = new Float32Array([0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0, 0, 0, 1]);
    expectBoxOracle(spheres, obb, 'obb');
  });

  it('a box over every row of a fine level tests its spheres directly; boxes away from every sphere find none', () => {
    const blob = PAIR_SCENES['tiny-blob'].make(4000);
    let cx = 0;
    for (let i = 0; i < 4000; i++)
      if (blob[4 * i + 3] < 0.01) {
        cx = blob[4 * i];
        break;
      }
    const huge = new Float32Array([cx - 5, cx - 5, cx - 5, cx + 5, cx + 5, cx + 5, -1e3, -1e3, -1e3, -999, -999, -999]);
    expect(expectBoxOracle(blob, huge, 'aabb')).toBeGreaterThan(2000);
    const turned = new Float32Array([cx, cx, cx, 5, 5, 5, 0.3, 0.1, -0.2, 0.9]);
    expect(expectBoxOracle(blob, turned, 'obb')).toBeGreaterThan(2000);
  });

  it('no spheres or no boxes: no pairs', () => {
    expect(jsGridSphereBoxPairs(new Float32Array(0), new Float32Array([0, 0, 0, 1, 1, 1]), 'aabb').length).toBe(0);
    expect(jsGridSphereBoxPairs(new Float32Array([0, 0, 0, 1]), new Float32Array(0), 'obb').length).toBe(0);
  });
});
