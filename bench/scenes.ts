/**
 * The sphere-pair bench's scene kinds (`--scenes`): the shared seeded scenes of
 * test/support/scenes.ts and the kinds careful users hit that it lacks. Each is a flat
 * Float32Array (x, y, z, r per sphere) of exactly n spheres, the same for the same n on every
 * machine. Volume fraction is total sphere volume / box volume.
 */
import { uniformScene, mixedRadiiScene, clusteredScene } from '../test/support/scenes.js';
import { mulberry32, gaussian } from '../test/support/random.js';

const sphereVolume = (r: number): number => (4 / 3) * Math.PI * r * r * r;

/** Shuffles whole spheres (seeded), so no kind of sphere sits in one run of indices. */
function shuffle(spheres: Float32Array, seed: number): Float32Array {
  const rand = mulberry32(seed);
  const n = spheres.length / 4;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    for (let a = 0; a < 4; a++) {
      const t = spheres[4 * i + a];
      spheres[4 * i + a] = spheres[4 * j + a];
      spheres[4 * j + a] = t;
    }
  }
  return spheres;
}

/** Radius 0.5, uniform at volume fraction 0.1 (the radius-1 scene halved: halving is exact in f32, so the pairs are the same). */
export function uniformHalfScene(n: number, seed = 7, offset = 0): Float32Array {
  const out = uniformScene(n, { seed, fraction: 0.1 });
  for (let k = 0; k < out.length; k++) out[k] = k % 4 === 3 ? 0.5 * out[k] : offset + 0.5 * out[k];
  return out;
}

/**
 * A tiny blob in a box of unit spheres: ⌈n/2⌉ spheres of radius 0.001 (±10%) in a ball at the
 * box's centre (volume fraction 0.1 inside the ball: radius 0.079 for 50k), the other ⌊n/2⌋
 * radius 1 at volume fraction 0.1 in the box; indices shuffled.
 */
export function tinyBlobScene(n: number, seed = 11): Float32Array {
  const big = Math.floor(n / 2),
    tiny = n - big;
  const rand = mulberry32(seed);
  const side = Math.cbrt((Math.max(big, 1) * sphereVolume(1)) / 0.1);
  const ball = 0.001 * Math.cbrt(tiny / 0.1);
  const out = new Float32Array(4 * n);
  out.set(uniformScene(big, { seed: seed + 1, fraction: 0.1 }));
  for (let i = big; i < n; i++) {
    let x: number, y: number, z: number;
    do {
      x = 2 * rand() - 1;
      y = 2 * rand() - 1;
      z = 2 * rand() - 1;
    } while (x * x + y * y + z * z > 1);
    out.set([side / 2 + ball * x, side / 2 + ball * y, side / 2 + ball * z, 0.001 * (0.9 + 0.2 * rand())], 4 * i);
  }
  return shuffle(out, seed + 2);
}

/** A slab: radius 0.5 at volume fraction 0.1 in a box 4 deep (4 diameters) and as wide and long as that needs. */
export function slabScene(n: number, seed = 13): Float32Array {
  const rand = mulberry32(seed);
  const depth = 4;
  const side = Math.sqrt((n * sphereVolume(0.5)) / 0.1 / depth);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([rand() * side, rand() * side, rand() * depth, 0.5], 4 * i);
  return out;
}

/** A long thin scene: radius 0.5, volume fraction 0.1, in a 4 × 4 cross-section along x (a pipe, a corridor, a river bed). */
export function longScene(n: number, seed = 15): Float32Array {
  const rand = mulberry32(seed);
  const side = 4;
  const length = (n * sphereVolume(0.5)) / 0.1 / (side * side);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([rand() * length, rand() * side, rand() * side, 0.5], 4 * i);
  return out;
}

/** Coincident groups: groups of 8 identical spheres (radius 0.5), the groups uniform at volume fraction 0.1 (one sphere's volume a group); indices shuffled. */
export function coincidentGroupsScene(n: number, seed = 14, group = 8): Float32Array {
  const rand = mulberry32(seed);
  const groups = Math.ceil(n / group);
  const side = Math.cbrt((groups * sphereVolume(0.5)) / 0.1);
  const out = new Float32Array(4 * n);
  let centre = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    if (i % group === 0) centre = [rand() * side, rand() * side, rand() * side];
    out.set([centre[0], centre[1], centre[2], 0.5], 4 * i);
  }
  return shuffle(out, seed + 1);
}

/**
 * Points (radius 0) on a lattice with 1.25 sites a point, in the uniform scene's box: a pair is
 * two points on one site (about 0.4 n pairs).
 */
export function pointsScene(n: number, seed = 15): Float32Array {
  const rand = mulberry32(seed);
  const sites = Math.max(1, Math.round(Math.cbrt(1.25 * n)));
  const spacing = Math.cbrt((n * sphereVolume(0.5)) / 0.1) / sites;
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    out.set(
      [
        Math.floor(rand() * sites) * spacing,
        Math.floor(rand() * sites) * spacing,
        Math.floor(rand() * sites) * spacing,
        0,
      ],
      4 * i,
    );
  }
  return out;
}

/**
 * Far-apart dense blobs (issue 36): radius 0.5, five Gaussian blobs of σ = 0.6·∛(n/5), their
 * centres uniform in ±1e4 on each axis (some 800 blob widths apart); indices shuffled.
 */
export function blobsScene(n: number, seed = 31, blobs = 5): Float32Array {
  const rand = mulberry32(seed);
  const sigma = 0.6 * Math.cbrt(n / blobs);
  const centres = Array.from({ length: blobs }, () => [0, 1, 2].map(() => (2 * rand() - 1) * 1e4));
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const c = centres[i % blobs];
    out.set([c[0] + sigma * gaussian(rand), c[1] + sigma * gaussian(rand), c[2] + sigma * gaussian(rand), 0.5], 4 * i);
  }
  return shuffle(out, seed + 1);
}

/**
 * A few far outliers (issue 36): unit spheres uniform at volume fraction 0.1, and one in 40,000
 * of them (at least one) moved about 1e6 away, each on its own axis direction.
 */
export function outliersScene(n: number, seed = 33): Float32Array {
  const out = uniformScene(n, { seed, fraction: 0.1 });
  const rand = mulberry32(seed + 1);
  const far = Math.max(1, Math.floor(n / 40_000));
  for (let k = 0; k < far; k++) {
    const i = Math.floor(((k + rand()) * n) / far);
    out.set([(rand() - 0.5) * 2e6, (rand() - 0.5) * 2e6, (rand() < 0.5 ? -1 : 1) * 1e6], 4 * i);
  }
  return out;
}

/** A touching lattice: radius 1/16 on a cubic lattice of spacing 1/8 (each sphere touches its 6 neighbours), `offset` added to every coordinate. */
export function latticeScene(n: number, offset = 0): Float32Array {
  const side = Math.ceil(Math.cbrt(n));
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const x = i % side,
      y = Math.floor(i / side) % side,
      z = Math.floor(i / (side * side));
    out.set([offset + x / 8, offset + y / 8, offset + z / 8, 1 / 16], 4 * i);
  }
  return out;
}

/** A line: radius 0.5 along the x axis, at one sphere a unit of length on average (about n pairs). */
export function lineScene(n: number, seed = 35): Float32Array {
  const rand = mulberry32(seed);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([rand() * n, 0, 0, 0.5], 4 * i);
  return out;
}

/** A plane: radius 0.5 on z = 0, uniform at area fraction 0.3 (disc area over the square's). */
export function planeScene(n: number, seed = 37): Float32Array {
  const rand = mulberry32(seed);
  const side = Math.sqrt((n * Math.PI * 0.25) / 0.3);
  const out = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) out.set([rand() * side, rand() * side, 0, 0.5], 4 * i);
  return out;
}

/**
 * Mixed casts over any scene (the work counts of test/broadphase/grid/gridWork.test.ts, issue 36): each starts
 * just outside a random sphere (its radius plus the cast's, plus 0.1, along a random direction);
 * even casts are short (4 of that sphere's diameters long, at least 1, in a random direction),
 * odd ones long, to the centre of another random sphere (across a blob, or from one blob to
 * another). Stride 6 for rays (radius 0), 7 for sphere casts.
 */
export function mixedCasts(
  spheres: Float32Array,
  count: number,
  radius = 0,
  seed = 41,
): { casts: Float32Array; stride: 6 | 7 } {
  const rand = mulberry32(seed);
  const n = spheres.length / 4;
  const stride = radius > 0 ? 7 : 6;
  const casts = new Float32Array(stride * count);
  const direction = (): number[] => {
    const d = [gaussian(rand), gaussian(rand), gaussian(rand)];
    const l = Math.hypot(d[0], d[1], d[2]) || 1;
    return d.map((v) => v / l);
  };
  for (let k = 0; k < count; k++) {
    const i = Math.floor(rand() * n);
    const c = [spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]];
    const r = spheres[4 * i + 3];
    const out = direction();
    const a = c.map((v, q) => v + out[q] * (r + radius + 0.1));
    let b: number[];
    if (k % 2 === 0) {
      const d = direction();
      b = a.map((v, q) => v + d[q] * Math.max(8 * r, 1));
    } else {
      const j = Math.floor(rand() * n);
      b = [spheres[4 * j], spheres[4 * j + 1], spheres[4 * j + 2]];
    }
    casts.set(stride === 7 ? [...a, ...b, radius] : [...a, ...b], stride * k);
  }
  return { casts, stride };
}

export interface SceneKind {
  make: (n: number) => Float32Array;
  describe: string;
}

export const PAIR_SCENES: Record<string, SceneKind> = {
  uniform: { make: (n) => uniformHalfScene(n), describe: 'radius 0.5, uniform, volume fraction 0.1' },
  clustered: { make: (n) => clusteredScene(n, { seed: 9 }), describe: 'radius 1, 8 Gaussian clusters far apart' },
  mixed: {
    make: (n) => mixedRadiiScene(n, { seed: 8, fraction: 0.1 }, 0.01, 1),
    describe: 'radii log-uniform 0.01–1 (1:100), fraction 0.1',
  },
  dense: { make: (n) => uniformScene(n, { seed: 10, fraction: 0.4 }), describe: 'radius 1, uniform, fraction 0.4' },
  'tiny-blob': {
    make: (n) => tinyBlobScene(n),
    describe:
      'n/2 spheres of r≈0.001 in a ball (fraction 0.1) at the centre of a box of n/2 radius-1 spheres (fraction 0.1)',
  },
  radii1000: {
    make: (n) => mixedRadiiScene(n, { seed: 12, fraction: 0.1 }, 0.001, 1),
    describe: 'radii log-uniform 0.001–1 (1:1000), fraction 0.1',
  },
  far: {
    make: (n) => uniformHalfScene(n, 7, 1e6),
    describe: 'the uniform scene moved by 1e6 on every axis (f32 spacing 1/16 there)',
  },
  slab: { make: (n) => slabScene(n), describe: 'radius 0.5, fraction 0.1, in a slab 4 deep' },
  long: { make: (n) => longScene(n), describe: 'radius 0.5, fraction 0.1, in a 4 × 4 cross-section along x' },
  coincident: {
    make: (n) => coincidentGroupsScene(n),
    describe: 'groups of 8 identical spheres (r 0.5), groups uniform at fraction 0.1',
  },
  points: {
    make: (n) => pointsScene(n),
    describe: 'radius 0 on a lattice of 1.25 n sites: pairs are points on one site',
  },
  blobs: {
    make: (n) => blobsScene(n),
    describe: 'radius 0.5, 5 Gaussian blobs (σ 0.6·∛(n/5)) centred uniformly in ±1e4: some 800 blob widths apart',
  },
  outliers: {
    make: (n) => outliersScene(n),
    describe: 'radius 1, uniform at fraction 0.1, 1 in 40,000 (at least one) moved about 1e6 away',
  },
  lattice: {
    make: (n) => latticeScene(n),
    describe: 'radius 1/16 on a cubic lattice of spacing 1/8: each sphere touches its neighbours',
  },
  'lattice-far': {
    make: (n) => latticeScene(n, 1e6),
    describe: 'the touching lattice moved to 1e6 on every axis (f32 spacing 1/16 there)',
  },
  line: { make: (n) => lineScene(n), describe: 'radius 0.5 along the x axis, one a unit of length' },
  plane: { make: (n) => planeScene(n), describe: 'radius 0.5 on the plane z = 0, area fraction 0.3' },
};

/** The scene of the given kind, or an error naming the kinds there are. */
export function pairScene(kind: string, n: number): Float32Array {
  const scene = PAIR_SCENES[kind];
  if (!scene) throw new Error(`unknown scene "${kind}": the kinds are ${Object.keys(PAIR_SCENES).join(', ')}`);
  return scene.make(n);
}

/** The box shapes of the sphere–box bench: AABBs (6 floats each) or oriented boxes (10). */
export type BoxShape = 'aabb' | 'obb';

/**
 * The sphere–box bench's scene on a pair scene kind: the kind's n spheres, and m boxes, each
 * centred on a sphere of the scene picked at random (so boxes sit where the spheres are, in
 * clusters and blobs too), with half extents (0.5 + 2u)·L on each axis (u uniform in [0, 1)), L
 * the picked sphere's diameter, or for a point (radius 0) the scene's mean spacing over its
 * bounds. Oriented boxes turn by a random rotation (a Gaussian quaternion, which the library
 * normalises). On the uniform kind (radius 0.5) the boxes are 1–5 across, as in the bench's
 * first sphere–box scene.
 */
export function boxScene(
  kind: string,
  n: number,
  m: number,
  shape: BoxShape,
  seed = 21,
): { spheres: Float32Array; boxes: Float32Array } {
  const spheres = pairScene(kind, n);
  const rand = mulberry32(seed);
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      lo[a] = Math.min(lo[a], spheres[4 * i + a]);
      hi[a] = Math.max(hi[a], spheres[4 * i + a]);
    }
  }
  let volume = 1,
    axes = 0;
  for (let a = 0; a < 3; a++)
    if (hi[a] > lo[a]) {
      volume *= hi[a] - lo[a];
      axes++;
    }
  const spacing = axes ? (volume / n) ** (1 / axes) : 1;
  const stride = shape === 'aabb' ? 6 : 10;
  const boxes = new Float32Array(stride * m);
  for (let k = 0; k < m; k++) {
    const i = Math.floor(rand() * n);
    const c = [spheres[4 * i], spheres[4 * i + 1], spheres[4 * i + 2]];
    const L = spheres[4 * i + 3] > 0 ? 2 * spheres[4 * i + 3] : spacing;
    const h = [0, 1, 2].map(() => (0.5 + 2 * rand()) * L);
    boxes.set(
      shape === 'aabb'
        ? [c[0] - h[0], c[1] - h[1], c[2] - h[2], c[0] + h[0], c[1] + h[1], c[2] + h[2]]
        : [...c, ...h, gaussian(rand), gaussian(rand), gaussian(rand), gaussian(rand)],
      stride * k,
    );
  }
  return { spheres, boxes };
}

/**
 * A cast scene on a pair scene kind (the casts suite's `--cast-scenes`): the kind's n spheres
 * and `rays` mixed casts (stride 6, or 7 with the cast radius when `radius` > 0). Every other
 * cast is aimed at a sphere of the scene picked at random: from a random point on the faces of
 * the centres' bounds grown by a margin, through a point within the sphere's radius of its
 * centre, to half as far again beyond it; the others are the casts suite's incoherent rays, from
 * a random point on a face of the grown bounds to a random point inside the bounds. The margin
 * (the largest radius + the cast radius + a tenth of the widest extent) puts every cast's start
 * outside every sphere, where every peer agrees on what a hit is.
 */
export function castSceneOf(
  kind: string,
  n: number,
  rays: number,
  radius: number,
  seed = 41,
): { spheres: Float32Array; casts: Float32Array; stride: 6 | 7 } {
  const spheres = pairScene(kind, n);
  const rand = mulberry32(seed);
  const lo = [Infinity, Infinity, Infinity],
    hi = [-Infinity, -Infinity, -Infinity];
  let maxR = 0;
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) {
      lo[a] = Math.min(lo[a], spheres[4 * i + a]);
      hi[a] = Math.max(hi[a], spheres[4 * i + a]);
    }
    maxR = Math.max(maxR, spheres[4 * i + 3]);
  }
  if (n === 0)
    for (let a = 0; a < 3; a++) {
      lo[a] = 0;
      hi[a] = 1;
    }
  const widest = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-3);
  const margin = 1.01 * (maxR + radius) + 0.1 * widest;
  const stride: 6 | 7 = radius > 0 ? 7 : 6;
  const casts = new Float32Array(stride * rays);
  const inside = (a: number): number => lo[a] + rand() * (hi[a] - lo[a]);
  for (let k = 0; k < rays; k++) {
    const face = Math.floor(rand() * 6);
    const from = [inside(0), inside(1), inside(2)];
    from[face % 3] = face < 3 ? lo[face % 3] - margin : hi[face % 3] + margin;
    let to: number[];
    if (k % 2 === 0 && n > 0) {
      const i = Math.floor(rand() * n);
      const r = spheres[4 * i + 3];
      const aim = [0, 1, 2].map((a) => spheres[4 * i + a] + (2 * rand() - 1) * 0.5 * r);
      to = aim.map((v, a) => from[a] + 1.5 * (v - from[a]));
    } else {
      to = [inside(0), inside(1), inside(2)];
    }
    casts.set(stride === 7 ? [...from, ...to, radius] : [...from, ...to], stride * k);
  }
  return { spheres, casts, stride };
}
