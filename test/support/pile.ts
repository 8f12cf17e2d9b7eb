/**
 * Scenes for stepped particle worlds and measures of how physical a stepped state is. Shared by
 * the tests and the bench (`npm run bench -- --suites pile`); no test framework is imported here.
 *
 * - `pileScene`: particles at rest, scattered through a tall box, to be dropped under gravity.
 * - `gasScene`: particles with gaussian velocities filling a cube at a given volume fraction.
 * - `pileStats`: particles through the walls, overlap of touching pairs (relative to the radius),
 *   kinetic energy per particle, the height of the pile.
 */
import { mulberry32, gaussian } from './random.js';

export interface ParticleScene {
  /** x, y, z, radius per particle. */
  spheres: Float32Array;
  /** vx, vy, vz per particle. */
  velocities: Float32Array;
  /** [minX, minY, minZ, maxX, maxY, maxZ]. */
  bounds: number[];
}

export interface PileSceneOptions {
  n?: number;
  r?: number;
  bounds?: number[];
  seed?: number;
}

/** `n` particles of radius `r` at rest, centres uniform in the bounds shrunk by `r` (no sphere crosses a wall). */
export function pileScene({
  n = 8000,
  r = 0.5,
  bounds = [0, 0, 0, 20, 60, 20],
  seed = 1,
}: PileSceneOptions = {}): ParticleScene {
  for (let a = 0; a < 3; a++) {
    if (!(bounds[a + 3] - bounds[a] > 2 * r))
      throw new Error(`pileScene: the bounds ${bounds.join(', ')} are too small for radius ${r}`);
  }
  const rand = mulberry32(seed);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) spheres[4 * i + a] = bounds[a] + r + rand() * (bounds[a + 3] - bounds[a] - 2 * r);
    spheres[4 * i + 3] = r;
  }
  return { spheres, velocities: new Float32Array(3 * n), bounds: [...bounds] };
}

/**
 * `n` particles of radius 0.5 in a cube whose side makes their volume `fraction` of it, centres
 * uniform at least a radius from every wall, velocities standard normal per axis.
 */
export function gasScene(n: number, fraction = 0.2, seed = 31): ParticleScene {
  const r = 0.5;
  const rand = mulberry32(seed);
  const side = Math.cbrt((n * (4 / 3) * Math.PI * r ** 3) / fraction);
  const spheres = new Float32Array(4 * n);
  const velocities = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < 3; a++) spheres[4 * i + a] = r + rand() * (side - 2 * r);
    spheres[4 * i + 3] = r;
    for (let a = 0; a < 3; a++) velocities[3 * i + a] = gaussian(rand);
  }
  return { spheres, velocities, bounds: [0, 0, 0, side, side, side] };
}

export interface PileStats {
  /** Particles whose sphere reaches more than 0.05 beyond a wall (or whose state is not finite). */
  sunk: number;
  /** Particles whose position or velocity is NaN or infinite (counted in `sunk` too). */
  nonFinite: number;
  /** Largest (rA + rB − distance) / min(rA, rB) over touching pairs; 0 with none. */
  maxOverlap: number;
  /** Mean of the same over touching pairs (distance < rA + rB); 0 with none. */
  meanOverlap: number;
  /** Pairs with distance < rA + rB. */
  touching: number;
  /** Mean of ½·m·|v|² over the moving particles (m = 1 / inverse mass; static ones left out). */
  kineticPerParticle: number;
  /** Highest centre y + radius. */
  top: number;
  /** Lowest centre y. */
  lowestCentre: number;
}

/** How far a stepped state is from a physical one. Touching pairs come from a hashed grid of cell 2·max radius: O(n). */
export function pileStats(
  spheres: Float32Array,
  velocities: Float32Array,
  bounds: ArrayLike<number>,
  inverseMasses?: Float32Array,
): PileStats {
  const n = spheres.length / 4;
  const tolerance = 0.05;
  let sunk = 0;
  let nonFinite = 0;
  let top = -Infinity;
  let lowestCentre = Infinity;
  let kinetic = 0;
  let moving = 0;
  let maxRadius = 0;
  const finite = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i],
      y = spheres[4 * i + 1],
      z = spheres[4 * i + 2],
      r = spheres[4 * i + 3];
    const vx = velocities[3 * i],
      vy = velocities[3 * i + 1],
      vz = velocities[3 * i + 2];
    if (![x, y, z, r, vx, vy, vz].every(Number.isFinite)) {
      nonFinite++;
      sunk++;
      continue;
    }
    finite[i] = 1;
    maxRadius = Math.max(maxRadius, r);
    const centre = [x, y, z];
    let out = false;
    for (let a = 0; a < 3; a++) {
      if (centre[a] - r < bounds[a] - tolerance || centre[a] + r > bounds[a + 3] + tolerance) out = true;
    }
    if (out) sunk++;
    top = Math.max(top, y + r);
    lowestCentre = Math.min(lowestCentre, y);
    const inverseMass = inverseMasses ? inverseMasses[i] : 1 / ((4 / 3) * Math.PI * r ** 3);
    if (inverseMass > 0 && Number.isFinite(inverseMass)) {
      kinetic += (0.5 * (vx * vx + vy * vy + vz * vz)) / inverseMass;
      moving++;
    }
  }

  // Hashed grid: cell 2·max radius, so every touching pair lies in neighbouring cells.
  const cell = maxRadius > 0 ? 2 * maxRadius : 1;
  const cells = new Int32Array(3 * n);
  const tableSize = 2 ** Math.ceil(Math.log2(Math.max(2 * n, 16)));
  const hash = (ix: number, iy: number, iz: number): number =>
    ((Math.imul(ix, 73856093) ^ Math.imul(iy, 19349663) ^ Math.imul(iz, 83492791)) >>> 0) & (tableSize - 1);
  const starts = new Int32Array(tableSize + 1);
  const slot = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (!finite[i]) continue;
    for (let a = 0; a < 3; a++) cells[3 * i + a] = Math.floor(spheres[4 * i + a] / cell);
    slot[i] = hash(cells[3 * i], cells[3 * i + 1], cells[3 * i + 2]);
    starts[slot[i] + 1]++;
  }
  for (let h = 0; h < tableSize; h++) starts[h + 1] += starts[h];
  const fill = starts.slice(0, tableSize);
  const sorted = new Int32Array(n);
  for (let i = 0; i < n; i++) if (finite[i]) sorted[fill[slot[i]]++] = i;

  let touching = 0;
  let overlapSum = 0;
  let maxOverlap = 0;
  for (let i = 0; i < n; i++) {
    if (!finite[i]) continue;
    const xi = spheres[4 * i],
      yi = spheres[4 * i + 1],
      zi = spheres[4 * i + 2],
      ri = spheres[4 * i + 3];
    const cx = cells[3 * i],
      cy = cells[3 * i + 1],
      cz = cells[3 * i + 2];
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dz = -1; dz <= 1; dz++) {
          const h = hash(cx + dx, cy + dy, cz + dz);
          for (let k = starts[h]; k < starts[h + 1]; k++) {
            const j = sorted[k];
            // Each pair once, and only from the cell it really lies in (hash collisions repeat buckets).
            if (j <= i || cells[3 * j] !== cx + dx || cells[3 * j + 1] !== cy + dy || cells[3 * j + 2] !== cz + dz)
              continue;
            const rj = spheres[4 * j + 3];
            const ex = spheres[4 * j] - xi,
              ey = spheres[4 * j + 1] - yi,
              ez = spheres[4 * j + 2] - zi;
            const distance = Math.sqrt(ex * ex + ey * ey + ez * ez);
            if (distance >= ri + rj) continue;
            const smaller = Math.min(ri, rj);
            const overlap = smaller > 0 ? (ri + rj - distance) / smaller : 0;
            touching++;
            overlapSum += overlap;
            maxOverlap = Math.max(maxOverlap, overlap);
          }
        }
      }
    }
  }
  return {
    sunk,
    nonFinite,
    maxOverlap,
    meanOverlap: touching ? overlapSum / touching : 0,
    touching,
    kineticPerParticle: moving ? kinetic / moving : 0,
    top: n - nonFinite ? top : NaN,
    lowestCentre: n - nonFinite ? lowestCentre : NaN,
  };
}

/** The stats in one line, overlaps in percent of the radius. */
export function pileStatsText(s: PileStats): string {
  const g = (v: number): string => (Number.isFinite(v) ? Number(v.toPrecision(3)).toString() : String(v));
  return `sunk ${s.sunk}${s.nonFinite ? ` (${s.nonFinite} not finite)` : ''}, overlap max ${g(100 * s.maxOverlap)}% mean ${g(100 * s.meanOverlap)}% of r over ${s.touching} touching pairs, KE/particle ${g(s.kineticPerParticle)}, top ${g(s.top)}, lowest centre ${g(s.lowestCentre)}`;
}

/**
 * The deepest overlap of the two-ball scenes laid side by side in `spheres` (balls 2k and 2k + 1,
 * both of radius r), in radii (0 where none overlaps).
 */
export function deepestPairOverlap(spheres: Float32Array, r: number): number {
  let worst = 0;
  for (let k = 0; k < spheres.length / 8; k++) {
    const d = Math.hypot(
      spheres[8 * k + 4] - spheres[8 * k],
      spheres[8 * k + 5] - spheres[8 * k + 1],
      spheres[8 * k + 6] - spheres[8 * k + 2],
    );
    worst = Math.max(worst, (2 * r - d) / r);
  }
  return worst;
}
