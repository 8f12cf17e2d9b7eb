/**
 * The collider scene of `npm run bench -- --suites colliders`: particles of radius 0.5 in a
 * lattice above a field of static oriented boxes, in a bounded world box, the same for the same
 * arguments on every machine (seeded). One scene feeds the particle world (`setColliders`) and
 * Rapier (fixed cuboid colliders with the boxes' rotations).
 *
 * The field (`m` boxes, default 1,000) on a square floor of side S = max(20·√(n/8000), 2.2·√m, 4)
 * (the pile suite's floor for n balls, or about 4.8 units² of floor a box, whichever is larger):
 * - 40 % floor tiles: a g×g grid (g = ⌊√(0.4·m)⌋) of blocks covering the floor, each as wide as
 *   its cell (3.5 at 1,000 boxes), 0.5–2.5 tall, tilted up to 8° about a random horizontal axis:
 *   an uneven floor;
 * - 30 % ramps: slabs 3–8 long, 1.5–4 wide, 0.3–0.8 thick, tilted 10–35°, turned to any heading,
 *   their centres 2.5–5.5 up;
 * - the rest blocks: half extents 0.4–1.5 each, any orientation, centres 2–6 up.
 * Every box's world bounds lie inside the world box (its centre is moved in where needed).
 *
 * The particles: columns 1.1 apart over the floor, each column starting a radius and 0.1 above
 * every box that comes within a radius and 0.1 of it (the boxes' world bounds), so the lowest
 * layer meets the field at once; layers 1.1 apart, filled layer by layer until there are n, each
 * position jittered by up to ±0.04 (no perfect stacks). No particle touches another or a box
 * (checked: `colliderScene` throws otherwise). The world box is as tall as the lattice and 2 more.
 */
import { mulberry32 } from '../test/support/random.js';
import { sphereInBoxSpace } from '../src/reference/sphereBox.js';

export interface ColliderScene {
  /** x, y, z, radius per particle. */
  spheres: Float32Array;
  /** vx, vy, vz per particle (zero: the lattice starts at rest). */
  velocities: Float32Array;
  /** The world box: [minX, minY, minZ, maxX, maxY, maxZ]. */
  bounds: number[];
  /** Oriented boxes, 10 floats each: cx, cy, cz, hx, hy, hz, qx, qy, qz, qw (a unit quaternion). */
  boxes: Float32Array;
  /** How many boxes of each kind. */
  kinds: { tiles: number; ramps: number; blocks: number };
  /** The highest point of any box (its world bounds' top). */
  fieldTop: number;
  /**
   * Moving boxes (the drum): the boxes' poses and rigid velocities (6 floats a box: linear,
   * angular) at the start of frame `frame` (1, 2, …), and their poses at its end. Each engine is
   * posed before each of its steps (ours: `setColliders` with the velocities; Rapier: kinematic
   * bodies given the end pose). Without it the boxes are static.
   */
  pose?(frame: number): { boxes: Float32Array; velocities: Float32Array; next: Float32Array };
}

export interface ColliderSceneOptions {
  /** Particles (default 100,000). */
  n?: number;
  /** Boxes (default 1,000). */
  m?: number;
  /** Default 1. */
  seed?: number;
}

export const PARTICLE_RADIUS = 0.5;
const SPACING = 1.1;
const JITTER = 0.04;
const CLEARANCE = 0.1;

type Quat = [number, number, number, number];
/** a·b (apply b, then a). */
const qmul = (a: Quat, b: Quat): Quat => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
  a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
  a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
];
const axisAngle = (x: number, y: number, z: number, angle: number): Quat => {
  const l = Math.hypot(x, y, z);
  const s = Math.sin(angle / 2) / l;
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
};
/** A uniformly random unit quaternion (Shoemake). */
function randomQuat(rand: () => number): Quat {
  const u1 = rand(),
    u2 = 2 * Math.PI * rand(),
    u3 = 2 * Math.PI * rand();
  const a = Math.sqrt(1 - u1),
    b = Math.sqrt(u1);
  return [a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3)];
}

/** The half extents of an oriented box's world bounds: |R|·h. */
export function worldHalfExtents(boxes: Float32Array, k: number): [number, number, number] {
  const o = 10 * k;
  const [hx, hy, hz] = [boxes[o + 3], boxes[o + 4], boxes[o + 5]];
  const l = Math.hypot(boxes[o + 6], boxes[o + 7], boxes[o + 8], boxes[o + 9]);
  const x = boxes[o + 6] / l,
    y = boxes[o + 7] / l,
    z = boxes[o + 8] / l,
    w = boxes[o + 9] / l;
  const r = [
    [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
    [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
    [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
  ];
  return [0, 1, 2].map((a) => Math.abs(r[a][0]) * hx + Math.abs(r[a][1]) * hy + Math.abs(r[a][2]) * hz) as [
    number,
    number,
    number,
  ];
}

/** The floor's side for n particles and m boxes (see the file's comment). */
export function colliderFloorSide(n: number, m: number): number {
  return Math.max(20 * Math.sqrt(n / 8000), 2.2 * Math.sqrt(m), 4);
}

/** The scene's name in the tables: `box field 70.7×38×70.7` (the world box; radius 0.5 throughout). */
export function colliderSceneName(scene: ColliderScene): string {
  const t = (v: number): string => String(Number(v.toFixed(1)));
  const b = scene.bounds;
  return `box field ${t(b[3] - b[0])}×${t(b[4] - b[1])}×${t(b[5] - b[2])}`;
}

/**
 * A uniform grid over the boxes' world bounds in x and z, for the questions "which boxes are near
 * this point" (the lattice's check, the penetration measure). Boxes are listed in every cell their
 * bounds (grown by `margin`) cover.
 */
export class BoxGrid {
  private readonly cell: number;
  private readonly nx: number;
  private readonly nz: number;
  private readonly x0: number;
  private readonly z0: number;
  private readonly starts: Int32Array;
  private readonly items: Int32Array;

  constructor(
    readonly boxes: Float32Array,
    margin: number,
  ) {
    const m = boxes.length / 10;
    let minX = Infinity,
      minZ = Infinity,
      maxX = -Infinity,
      maxZ = -Infinity,
      sumSide = 0;
    const ext: number[][] = [];
    for (let k = 0; k < m; k++) {
      const h = worldHalfExtents(boxes, k);
      ext.push(h);
      minX = Math.min(minX, boxes[10 * k] - h[0] - margin);
      maxX = Math.max(maxX, boxes[10 * k] + h[0] + margin);
      minZ = Math.min(minZ, boxes[10 * k + 2] - h[2] - margin);
      maxZ = Math.max(maxZ, boxes[10 * k + 2] + h[2] + margin);
      sumSide += h[0] + h[2];
    }
    if (m === 0) [minX, minZ, maxX, maxZ] = [0, 0, 1, 1];
    this.cell = Math.max(m ? sumSide / m : 1, 1e-3);
    this.x0 = minX;
    this.z0 = minZ;
    this.nx = Math.max(1, Math.ceil((maxX - minX) / this.cell));
    this.nz = Math.max(1, Math.ceil((maxZ - minZ) / this.cell));
    const counts = new Int32Array(this.nx * this.nz + 1);
    const each = (k: number, visit: (c: number) => void): void => {
      const [ax, az] = [this.ix(boxes[10 * k] - ext[k][0] - margin), this.iz(boxes[10 * k + 2] - ext[k][2] - margin)];
      const [bx, bz] = [this.ix(boxes[10 * k] + ext[k][0] + margin), this.iz(boxes[10 * k + 2] + ext[k][2] + margin)];
      for (let i = ax; i <= bx; i++) for (let j = az; j <= bz; j++) visit(i * this.nz + j);
    };
    for (let k = 0; k < m; k++) each(k, (c) => counts[c + 1]++);
    for (let c = 0; c < this.nx * this.nz; c++) counts[c + 1] += counts[c];
    this.starts = counts;
    this.items = new Int32Array(counts[this.nx * this.nz]);
    const fill = counts.slice(0, this.nx * this.nz);
    for (let k = 0; k < m; k++)
      each(k, (c) => {
        this.items[fill[c]++] = k;
      });
  }

  private ix(x: number): number {
    return Math.min(this.nx - 1, Math.max(0, Math.floor((x - this.x0) / this.cell)));
  }

  private iz(z: number): number {
    return Math.min(this.nz - 1, Math.max(0, Math.floor((z - this.z0) / this.cell)));
  }

  /** Calls `visit` with every box listed in the cell of (x, z) (points outside the grid: its edge cell). */
  near(x: number, z: number, visit: (k: number) => void): void {
    const c = this.ix(x) * this.nz + this.iz(z);
    for (let s = this.starts[c]; s < this.starts[c + 1]; s++) visit(this.items[s]);
  }
}

/** Signed distance from sphere i's centre to oriented box k's surface (negative inside). */
export function signedDistanceToBox(spheres: Float32Array, i: number, boxes: Float32Array, k: number): number {
  const { v, h } = sphereInBoxSpace(spheres, i, boxes, k);
  const q = [Math.abs(v[0]) - h[0], Math.abs(v[1]) - h[1], Math.abs(v[2]) - h[2]];
  const outside = Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0), Math.max(q[2], 0));
  return outside > 0 ? outside : Math.max(q[0], q[1], q[2]);
}

export interface BoxPenetration {
  /** Largest (radius − signed distance from the centre to a box) / radius over particle–box contacts; 0 with none. */
  maxPenetration: number;
  /** Mean of the same over the particle–box pairs in contact (signed distance < radius); 0 with none. */
  meanPenetration: number;
  /** Particle–box pairs in contact. */
  boxTouching: number;
  /** Particles whose centre lies inside a box (or is not finite). */
  insideBox: number;
}

/** How deep the particles are in the boxes: one pass over the particles with a grid of the boxes (O(n), not O(n·m)). */
export function boxPenetration(
  spheres: Float32Array,
  boxes: Float32Array,
  grid = new BoxGrid(boxes, 2 * maxRadiusOf(spheres)),
): BoxPenetration {
  const n = spheres.length / 4;
  let max = 0,
    sum = 0,
    touching = 0,
    inside = 0;
  for (let i = 0; i < n; i++) {
    const x = spheres[4 * i],
      y = spheres[4 * i + 1],
      z = spheres[4 * i + 2],
      r = spheres[4 * i + 3];
    if (![x, y, z, r].every(Number.isFinite)) {
      inside++;
      continue;
    }
    let isInside = false;
    grid.near(x, z, (k) => {
      const d = signedDistanceToBox(spheres, i, boxes, k);
      if (d >= r) return;
      const p = r > 0 ? (r - d) / r : 0;
      touching++;
      sum += p;
      max = Math.max(max, p);
      if (d < 0) isInside = true;
    });
    if (isInside) inside++;
  }
  return {
    maxPenetration: max,
    meanPenetration: touching ? sum / touching : 0,
    boxTouching: touching,
    insideBox: inside,
  };
}

function maxRadiusOf(spheres: Float32Array): number {
  let r = 0;
  for (let i = 3; i < spheres.length; i += 4) r = Math.max(r, spheres[i]);
  return r;
}

/** The collider scene (see the file's comment): n particles of radius 0.5 in a lattice above m oriented boxes. */
export function colliderScene({ n = 100_000, m = 1000, seed = 1 }: ColliderSceneOptions = {}): ColliderScene {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(m) && m >= 0))
    throw new Error(`colliderScene: n ≥ 1 and m ≥ 0 whole numbers, got n ${n}, m ${m}`);
  const r = PARTICLE_RADIUS;
  const rand = mulberry32(seed);
  const between = (a: number, b: number): number => a + (b - a) * rand();
  const S = colliderFloorSide(n, m);
  const g = m >= 1 ? Math.max(1, Math.floor(Math.sqrt(0.4 * m))) : 0;
  const tiles = Math.min(g * g, m);
  const ramps = Math.min(Math.round(0.3 * m), m - tiles);
  const blocks = m - tiles - ramps;
  const boxes = new Float32Array(10 * m);
  let k = 0;
  /** Puts box k (centre, half extents, rotation) in, its centre moved so that its world bounds lie inside the floor and above y = 0. */
  const put = (c: number[], h: number[], q: Quat): void => {
    boxes.set([c[0], c[1], c[2], h[0], h[1], h[2], q[0], q[1], q[2], q[3]], 10 * k);
    const e = worldHalfExtents(boxes, k);
    const lo = [e[0], e[1], e[2]],
      hi = [S - e[0], Infinity, S - e[2]];
    for (let a = 0; a < 3; a++) boxes[10 * k + a] = hi[a] < lo[a] ? S / 2 : Math.min(Math.max(c[a], lo[a]), hi[a]);
    k++;
  };
  // The floor: tiles as wide as their cells, tilted a little.
  const cellSide = g ? S / g : 0;
  for (let t = 0; t < tiles; t++) {
    const ix = t % g,
      iz = Math.floor(t / g);
    const height = between(0.5, 2.5);
    const tilt = axisAngle(
      Math.cos(2 * Math.PI * rand()),
      0,
      Math.sin(2 * Math.PI * rand()),
      between(0, (8 * Math.PI) / 180),
    );
    put([(ix + 0.5) * cellSide, height / 2, (iz + 0.5) * cellSide], [cellSide / 2, height / 2, cellSide / 2], tilt);
  }
  // Ramps: slabs tilted 10–35° about their width, turned to any heading.
  for (let t = 0; t < ramps; t++) {
    const heading = axisAngle(0, 1, 0, 2 * Math.PI * rand());
    const pitch = axisAngle(0, 0, 1, (rand() < 0.5 ? -1 : 1) * between((10 * Math.PI) / 180, (35 * Math.PI) / 180));
    put(
      [between(0, S), between(2.5, 5.5), between(0, S)],
      [between(1.5, 4), between(0.15, 0.4), between(0.75, 2)],
      qmul(heading, pitch),
    );
  }
  // Blocks: obstacles of any orientation.
  for (let t = 0; t < blocks; t++) {
    put(
      [between(0, S), between(2, 6), between(0, S)],
      [between(0.4, 1.5), between(0.4, 1.5), between(0.4, 1.5)],
      randomQuat(rand),
    );
  }

  // Each column's floor: the top of every box whose world bounds come within a radius (and the clearance) of it.
  const columns = Math.max(1, Math.floor(S / SPACING));
  const offset = (S - (columns - 1) * SPACING) / 2;
  const base = new Float64Array(columns * columns).fill(r + CLEARANCE);
  let fieldTop = 0;
  const reach = r + CLEARANCE;
  for (let b = 0; b < m; b++) {
    const e = worldHalfExtents(boxes, b);
    const top = boxes[10 * b + 1] + e[1];
    fieldTop = Math.max(fieldTop, top);
    const [x0, x1] = [boxes[10 * b] - e[0] - reach, boxes[10 * b] + e[0] + reach];
    const [z0, z1] = [boxes[10 * b + 2] - e[2] - reach, boxes[10 * b + 2] + e[2] + reach];
    for (
      let i = Math.max(0, Math.ceil((x0 - offset) / SPACING));
      i <= Math.min(columns - 1, Math.floor((x1 - offset) / SPACING));
      i++
    ) {
      for (
        let j = Math.max(0, Math.ceil((z0 - offset) / SPACING));
        j <= Math.min(columns - 1, Math.floor((z1 - offset) / SPACING));
        j++
      ) {
        base[i * columns + j] = Math.max(base[i * columns + j], top + reach);
      }
    }
  }
  const spheres = new Float32Array(4 * n);
  let top = 0;
  for (let p = 0; p < n; p++) {
    const column = p % (columns * columns),
      layer = Math.floor(p / (columns * columns));
    const i = Math.floor(column / columns),
      j = column % columns;
    const jitter = (): number => (2 * rand() - 1) * JITTER;
    const y = base[column] + layer * SPACING + Math.abs(jitter());
    spheres.set([offset + i * SPACING + jitter(), y, offset + j * SPACING + jitter(), r], 4 * p);
    top = Math.max(top, y + r);
  }
  const bounds = [0, 0, 0, S, Math.ceil(top + 2), S];

  // The promise: no particle touches a box (nor, by the lattice's spacing, another particle).
  const touching = boxPenetration(spheres, boxes);
  if (touching.boxTouching > 0)
    throw new Error(`colliderScene: ${touching.boxTouching} particle–box contacts at the start (a bug in the lattice)`);
  return { spheres, velocities: new Float32Array(3 * n), bounds, boxes, kinds: { tiles, ramps, blocks }, fieldTop };
}

/**
 * Issue 47's pour: `n` balls of radius 0.1–0.2 (uniform) in a lattice 0.42 apart, each position
 * jittered by up to ±0.01 across, above `m` static thin pegs (half extents 0.2–0.8 × 0.1–0.3 ×
 * 0.2–0.8, any orientation) with centres 1–9 up over a square floor of side 2·`half` (default
 * 20·√(n / 30,000): 20 for the issue's 30,000 balls and 400 pegs), in a world box as tall as the
 * lattice and 1 more.
 * The lowest layer starts at 11, above every peg (a peg reaches at most about 9 + 1). The same
 * for the same arguments on every machine (seeded).
 */
export function pegsScene({
  n = 30_000,
  m = 400,
  seed = 1,
  half = 10 * Math.sqrt(n / 30_000),
}: ColliderSceneOptions & { half?: number } = {}): ColliderScene {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(m) && m >= 0))
    throw new Error(`pegsScene: n ≥ 1 and m ≥ 0 whole numbers, got n ${n}, m ${m}`);
  const rand = mulberry32(seed);
  const boxes = new Float32Array(10 * m);
  for (let k = 0; k < m; k++) {
    const axis = [rand() - 0.5, rand() - 0.5, rand() - 0.5];
    const len = Math.hypot(axis[0], axis[1], axis[2]) || 1;
    const angle = rand() * Math.PI;
    const s = Math.sin(angle / 2);
    boxes.set(
      [
        -half + 0.8 + rand() * (2 * half - 1.6),
        1 + rand() * 8,
        -half + 0.8 + rand() * (2 * half - 1.6),
        0.2 + 0.6 * rand(),
        0.1 + 0.2 * rand(),
        0.2 + 0.6 * rand(),
        (s * axis[0]) / len,
        (s * axis[1]) / len,
        (s * axis[2]) / len,
        Math.cos(angle / 2),
      ],
      10 * k,
    );
  }
  const per = Math.max(1, Math.floor((2 * half - 0.6) / 0.42) + 1);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const j = i % (per * per);
    spheres.set(
      [
        -half + 0.3 + 0.42 * (j % per) + 0.02 * (rand() - 0.5),
        11 + 0.42 * Math.floor(i / (per * per)),
        -half + 0.3 + 0.42 * Math.floor(j / per) + 0.02 * (rand() - 0.5),
        0.1 + 0.1 * rand(),
      ],
      4 * i,
    );
  }
  const top = 11 + 0.42 * Math.ceil(n / (per * per)) + 1;
  let fieldTop = 0;
  for (let k = 0; k < m; k++) fieldTop = Math.max(fieldTop, boxes[10 * k + 1] + worldHalfExtents(boxes, k)[1]);
  return {
    spheres,
    velocities: new Float32Array(3 * n),
    bounds: [-half, 0, -half, half, top, half],
    boxes,
    kinds: { tiles: 0, ramps: 0, blocks: m },
    fieldTop,
  };
}

/** The pour's name: its world box. */
export function pegsSceneName(scene: ColliderScene): string {
  const t = (v: number): string => String(Number(v.toFixed(1)));
  const b = scene.bounds;
  return `pour through pegs ${t(b[3] - b[0])}×${t(b[4] - b[1])}×${t(b[5] - b[2])}`;
}

/**
 * Issue 47's drum: 12 planks in a ring (inner radius 5, 0.4 thick, 2.9 long, 6 deep: they close
 * the ring) turning about the horizontal z axis at `omega` rad/s (1.5: the rim at 7.5 m/s), with
 * `n` balls of radius 0.14–0.22 in a lattice 0.46 apart inside radius 4.5 (jittered by up to ±0.01
 * across), in a world box [−8, 8] × [−8, 8] × [−3, 3] whose z walls close the drum's ends. The
 * planks are posed each frame (`pose`): at frame f they start at angle ω·(f − 1)/60.
 */
export function drumScene({
  n = 1500,
  seed = 1,
  omega = 1.5,
}: {
  n?: number;
  seed?: number;
  omega?: number;
} = {}): ColliderScene {
  const ring = 5.2;
  const planks = (theta: number, velocities?: Float32Array): Float32Array => {
    const boxes = new Float32Array(10 * 12);
    for (let k = 0; k < 12; k++) {
      const a = theta + (2 * Math.PI * k) / 12;
      const c = [ring * Math.cos(a), ring * Math.sin(a), 0];
      boxes.set([c[0], c[1], c[2], 0.2, 1.45, 3, 0, 0, Math.sin(a / 2), Math.cos(a / 2)], 10 * k);
      velocities?.set([-omega * c[1], omega * c[0], 0, 0, 0, omega], 6 * k);
    }
    return boxes;
  };
  const rand = mulberry32(seed);
  const spheres = new Float32Array(4 * n);
  let i = 0;
  for (let y = -4.3; i < n && y <= 4.3; y += 0.46) {
    for (let x = -4.3; i < n && x <= 4.3; x += 0.46) {
      for (let z = -2.7; i < n && z <= 2.7; z += 0.46) {
        if (Math.hypot(x, y) <= 4.5) spheres.set([x + 0.02 * (rand() - 0.5), y, z, 0.14 + 0.08 * rand()], 4 * i++);
      }
    }
  }
  if (i < n) throw new Error(`drumScene: at most ${i} balls fit, asked for ${n}`);
  return {
    spheres,
    velocities: new Float32Array(3 * n),
    bounds: [-8, -8, -3, 8, 8, 3],
    boxes: planks(0),
    kinds: { tiles: 0, ramps: 0, blocks: 12 },
    fieldTop: ring + 1.5,
    pose(frame: number) {
      const velocities = new Float32Array(6 * 12);
      const boxes = planks((omega * (frame - 1)) / 60, velocities);
      return { boxes, velocities, next: planks((omega * frame) / 60) };
    },
  };
}

/** A box record turned by `angle` about z: cx, cy, cz, hx, hy, hz, qx, qy, qz, qw. */
const zBox = (c: readonly number[], half: readonly number[], angle = 0): number[] => [
  ...c,
  ...half,
  0,
  0,
  Math.sin(angle / 2),
  Math.cos(angle / 2),
];

/**
 * Issue 47's hopper: `n` balls of radius 0.15–0.2 in a lattice 0.44 apart above a V of two static
 * plates 5 long and 0.2 thick at 40°, whose slot (1.6 wide at y = 4, 4–5 diameters, so that it
 * does not jam) they pour through to the floor; the world box [−4, 4] × [0, top] × [−2, 2] closes
 * the V's ends. test/particles/colliders.test.ts steps the same hopper at 1,000 balls.
 */
export function hopperScene({ n = 1000, seed = 1 }: { n?: number; seed?: number } = {}): ColliderScene {
  const rand = mulberry32(seed);
  const tilt = (40 * Math.PI) / 180;
  const plate = (side: number): number[] =>
    zBox([side * (0.8 + 2.5 * Math.cos(tilt)), 4 + 2.5 * Math.sin(tilt), 0], [2.5, 0.1, 2], side * tilt);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    const j = i % 144;
    spheres.set(
      [
        -3.3 + 0.44 * (j % 16) + 0.02 * rand(),
        6.5 + 0.44 * Math.floor(i / 144),
        -1.7 + 0.42 * Math.floor(j / 16),
        0.15 + 0.05 * rand(),
      ],
      4 * i,
    );
  }
  const top = Math.max(12, 6.5 + 0.44 * Math.ceil(n / 144) + 1);
  return {
    spheres,
    velocities: new Float32Array(3 * n),
    bounds: [-4, 0, -2, 4, top, 2],
    boxes: new Float32Array([...plate(-1), ...plate(1)]),
    kinds: { tiles: 0, ramps: 0, blocks: 2 },
    fieldTop: 4 + 5 * Math.sin(tilt) + 0.2,
  };
}

/**
 * Issue 47's paddle: `n` balls of radius 0.2 at rest on the floor in rows 0.42 apart (20 a row
 * from x = −4), and a kinematic paddle 0.2 thick, 1 tall and 10 wide that starts at x = −6 and
 * sweeps through them along +x at 10 m/s (a sixth of a metre a step), posed each frame. The world
 * box runs on far ahead ([−8, 24] along x), so that the balls pushed ahead meet no wall.
 */
export function paddleScene({
  n = 400,
  seed = 1,
  speed = 10,
}: {
  n?: number;
  seed?: number;
  speed?: number;
} = {}): ColliderScene {
  const rand = mulberry32(seed);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++)
    spheres.set(
      [-4 + 0.42 * (i % 20) + 0.02 * rand(), 0.2, -4 + 0.42 * Math.floor(i / 20) + 0.02 * rand(), 0.2],
      4 * i,
    );
  const paddle = (t: number): Float32Array => new Float32Array(zBox([-6 + speed * t, 0.5, 0], [0.1, 0.5, 5]));
  return {
    spheres,
    velocities: new Float32Array(3 * n),
    bounds: [-8, 0, -6, 24, 4, 6],
    boxes: paddle(0),
    kinds: { tiles: 0, ramps: 0, blocks: 1 },
    fieldTop: 1,
    pose(frame: number) {
      return {
        boxes: paddle((frame - 1) / 60),
        velocities: new Float32Array([speed, 0, 0, 0, 0, 0]),
        next: paddle(frame / 60),
      };
    },
  };
}
