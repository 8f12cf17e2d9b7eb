/**
 * The bench's careful JS grid peer (bench/peers/jsGrid.ts) against the CPU oracle: the same pair
 * set, exactly (it tests pairs in double precision on the f32 inputs, as the oracle does), each
 * pair once as (i, j) with i < j. CPU only.
 */
import { describe, expect, it } from 'vitest';
import { bruteForceSpherePairs, sortPairs } from '../src/reference/spherePairs.js';
import { jsGridSpherePairs, jsGridSpherePairsNaive, type JsGridLevels } from '../bench/peers/jsGrid.js';
import { PAIR_SCENES } from '../bench/scenes.js';
import { uniformScene, mixedRadiiScene, clusteredScene, giantsScene, coincidentScene, separatedScene, outlierScene } from './support/scenes.js';
import { mulberry32 } from './support/random.js';

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
  for (let i = 200; i < 2200; i++) out.set([out[0] + 3 * (rand() - 0.5), out[1] + 3 * (rand() - 0.5), out[2] + 3 * (rand() - 0.5), 0.01], 4 * i);
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

  for (const kind of Object.keys(PAIR_SCENES)) it(`bench scene: ${kind}`, () => expectOracle(PAIR_SCENES[kind].make(3000)));

  it('exactly touching spheres count (a lattice of spacing 1, radius 0.5)', () => {
    const out = new Float32Array(4 * 1000);
    for (let i = 0; i < 1000; i++) out.set([i % 10, Math.floor(i / 10) % 10, Math.floor(i / 100), 0.5], 4 * i);
    expectOracle(out);
    expect(jsGridSpherePairs(out).length / 2).toBe(3 * 10 * 10 * 9);
  });

  it('points (radius 0) among spheres, and on a plane', () => {
    const rand = mulberry32(10);
    const mixed = new Float32Array(4 * 2000);
    for (let i = 0; i < 2000; i++) mixed.set([Math.floor(rand() * 12), Math.floor(rand() * 12), Math.floor(rand() * 12), i % 3 === 0 ? 0 : 0.3 * rand()], 4 * i);
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
