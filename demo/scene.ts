/**
 * The demo's pouring scene, an hourglass: the particles start loose in a hopper that fills the
 * top of a tall box, and pour out of its spout, under gravity alone, onto the floor, where they
 * pile up.
 *
 * The hopper is an upside-down square pyramid of static spheres (inverse mass 0), set close
 * enough that no particle fits through between them, its rim on the box's walls at the ceiling;
 * the spout is the square hole at its tip. All the particles start inside it (a loose lattice,
 * at rest), so none can be left on a ledge where the hopper meets the walls. The chamber below
 * is sized so that the pile stays under the spout. Nothing is teleported or parked: the flow is
 * the hopper draining.
 *
 * Layout of the arrays: the `poured` particles first (indices 0 … poured − 1), then the hopper's
 * static spheres.
 */

export interface PourScene {
  /** x, y, z, radius per particle: the poured particles, then the hopper. */
  spheres: Float32Array;
  /** vx, vy, vz per particle. */
  velocities: Float32Array;
  /** Per particle: 1 / volume (density 1) for the poured ones, 0 (static) for the hopper. */
  inverseMasses: Float32Array;
  /** [minX, minY, minZ, maxX, maxY, maxZ]: the walls of the whole box, hopper included. */
  bounds: [number, number, number, number, number, number];
  /** The particles that pour (the first ones); the rest is the hopper. */
  poured: number;
  /** Height of the spout: a particle below it has poured. */
  spoutY: number;
  /** Clear width of the spout (inside the spheres that rim it). */
  spoutWidth: number;
  /** Height of the hopper's rim, where it meets the walls. */
  hopperTop: number;
}

/** Radius of particle i: 0.35 to 0.6, spread evenly (golden-ratio sequence). */
export const radiusOf = (i: number): number => 0.35 + 0.25 * ((i * 0.6180339887) % 1);
const MAX_RADIUS = 0.6;
/**
 * The hopper's spheres: radius and spacing. Rings this close leave no gap a 0.35 particle fits
 * through, and the faces are smooth enough that particles slide down them with friction 0.4.
 */
const WALL_RADIUS = 0.6;
const WALL_SPACING = 0.8;
/** Slope of the hopper's faces from the horizontal. */
const SLOPE = (65 * Math.PI) / 180;
/** Spout width: a share of the box's, and never under ~6 particle diameters (narrower ones jam). */
const SPOUT_SHARE = 0.4;
const MIN_SPOUT = 7;
/** The starting lattice: body-centred, neighbours at least 2 · MAX_RADIUS apart with the jitter. */
const CELL = 1.42;
const JITTER = 0.02;
/** A centre stays this far (perpendicular) from the plane of the hopper's sphere centres. */
const CLEARANCE = MAX_RADIUS + WALL_RADIUS + 0.05;

interface Shape {
  width: number;
  spoutY: number;
  spoutWidth: number;
  hopperTop: number;
}

function shapeFor(width: number, volume: number): Shape {
  // The pile, about 0.6 solid, spread flat over the floor; a heap at its angle of repose (about
  // 35° with friction) stands higher in the middle; then room for the stream.
  const level = volume / 0.6 / (width * width);
  const spoutY = 1.1 * level + 0.3 * width + 2.5;
  const spoutWidth = Math.max(SPOUT_SHARE * width, MIN_SPOUT);
  const hopperTop = spoutY + (width / 2 - (spoutWidth / 2 + WALL_RADIUS)) * Math.tan(SLOPE);
  return { width, spoutY, spoutWidth, hopperTop };
}

/** The starting lattice's layers inside the hopper: height, offset, where rows start, how many a side. */
function* layers(shape: Shape): Generator<{ y: number; start: number; count: number }> {
  const centre = shape.width / 2;
  const inner = shape.spoutWidth / 2 + WALL_RADIUS;
  for (let layer = 0; ; layer++) {
    const y = shape.spoutY + CLEARANCE + (layer * CELL) / 2;
    if (y > shape.hopperTop - MAX_RADIUS) return;
    const offset = layer % 2 === 0 ? 0 : CELL / 2;
    // Half-width free for centres at this height: the face moved in by the clearance.
    const face = inner + (y - shape.spoutY) / Math.tan(SLOPE) - CLEARANCE / Math.sin(SLOPE);
    const half = Math.min(face, centre - MAX_RADIUS - JITTER);
    const count = Math.floor((2 * half - offset) / CELL) + 1;
    if (count <= 0) continue;
    yield { y, start: centre - half + offset + (2 * half - offset - (count - 1) * CELL) / 2, count };
  }
}

export function pourScene(n: number, seed = 7): PourScene {
  let volume = 0;
  for (let i = 0; i < n; i++) volume += (4 / 3) * Math.PI * radiusOf(i) ** 3;
  // The narrowest box (in steps of 3%) whose hopper holds every particle of the lattice.
  let shape = shapeFor(Math.fround(Math.cbrt(4 * n)), volume);
  for (;;) {
    let room = 0;
    for (const { count } of layers(shape)) room += count * count;
    if (room >= n) break;
    shape = shapeFor(Math.fround(shape.width * 1.03), volume);
  }
  const { width, spoutY, spoutWidth, hopperTop } = shape;
  const centre = width / 2;

  // The hopper: horizontal square rings of spheres, one above another along the faces, up to
  // the ring whose centres lie in the walls.
  const wall: number[] = [];
  const rise = WALL_SPACING * Math.sin(SLOPE);
  const inner = spoutWidth / 2 + WALL_RADIUS;
  for (let k = 0; ; k++) {
    let half = inner + (k * rise) / Math.tan(SLOPE);
    let y = spoutY + k * rise;
    const last = half >= centre;
    if (last) [half, y] = [centre, hopperTop];
    const segments = Math.ceil((2 * half) / WALL_SPACING);
    for (let side = 0; side < 4; side++) {
      for (let m = 0; m < segments; m++) {
        const t = -half + (2 * half * m) / segments;
        const [x, z] = [[t, -half], [half, t], [-t, half], [-half, -t]][side];
        wall.push(centre + x, y, centre + z, WALL_RADIUS);
      }
    }
    if (last) break;
  }

  // The particles, on the lattice from the spout up, at rest but for a little sideways drift.
  let s = seed >>> 0;
  const random = (): number => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const jitter = (): number => (random() - 0.5) * 2 * JITTER;
  const total = n + wall.length / 4;
  const spheres = new Float32Array(4 * total);
  const velocities = new Float32Array(3 * total);
  const inverseMasses = new Float32Array(total);
  let i = 0;
  for (const { y, start, count } of layers(shape)) {
    for (let a = 0; a < count && i < n; a++) {
      for (let b = 0; b < count && i < n; b++, i++) {
        const r = radiusOf(i);
        spheres.set([start + a * CELL + jitter(), y + jitter(), start + b * CELL + jitter(), r], 4 * i);
        velocities.set([(random() - 0.5) * 0.5, 0, (random() - 0.5) * 0.5], 3 * i);
        inverseMasses[i] = 1 / ((4 / 3) * Math.PI * r ** 3);
      }
    }
    if (i === n) break;
  }
  spheres.set(wall, 4 * n);
  return { spheres, velocities, inverseMasses, bounds: [0, 0, 0, width, hopperTop + WALL_RADIUS, width], poured: n, spoutY, spoutWidth, hopperTop };
}
