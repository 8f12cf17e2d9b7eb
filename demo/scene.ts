/**
 * The demo's pouring scene, an hourglass: the particles start loose in a hopper that fills the
 * top of a tall box, and pour out of its spout, under gravity alone, onto the floor, where they
 * pile up; a box on the floor, the paddle, can be dragged through the pile.
 *
 * Everything solid is a box collider (`world.setColliders`): the hopper is an upside-down square
 * pyramid of four tilted plates, their upper edges on the box's walls at the ceiling, their lower
 * edges round a square hole; the spout is a short square chute of four upright plates below that
 * hole. All the particles start inside the hopper (a loose lattice, at rest), so none can be left
 * on a ledge where the hopper meets the walls. The chamber below is sized so that the pile stays
 * under the spout. Nothing is teleported or parked: the flow is the hopper draining.
 *
 * Layout of `boxes` (10 floats a box: centre, half extents, quaternion x, y, z, w): the hopper's
 * four plates, the spout's four, then the paddle (index `paddle`, the last). Every box but the
 * paddle is static; the demo gives the paddle a velocity while it is dragged.
 */

export interface PourScene {
  /** x, y, z, radius per particle. */
  spheres: Float32Array;
  /** vx, vy, vz per particle. */
  velocities: Float32Array;
  /** Per particle: 1 / volume (density 1). */
  inverseMasses: Float32Array;
  /** The box colliders, 10 floats a box: the hopper's and spout's plates (static), then the paddle. */
  boxes: Float32Array;
  /** The static boxes (hopper and spout): indices 0 … hopperBoxes − 1. */
  hopperBoxes: number;
  /** Index of the paddle, the box the visitor drags (the last). */
  paddle: number;
  /** [minX, minY, minZ, maxX, maxY, maxZ]: the walls of the whole box, hopper included. */
  bounds: [number, number, number, number, number, number];
  /** The particles that pour: all of them. */
  poured: number;
  /** Height of the spout's mouth (the bottom of the chute): a particle below it has poured. */
  spoutY: number;
  /** Clear width of the spout (between its plates). */
  spoutWidth: number;
  /** Height of the hopper's rim, where it meets the walls. */
  hopperTop: number;
}

/** Radius of particle i: 0.35 to 0.6, spread evenly (golden-ratio sequence). */
export const radiusOf = (i: number): number => 0.35 + 0.25 * ((i * 0.6180339887) % 1);
const MAX_RADIUS = 0.6;
/** Half the thickness of the hopper's and the spout's plates. */
const PLATE = 0.2;
/** Slope of the hopper's faces from the horizontal: particles slide down them with friction 0.4. */
const SLOPE = (65 * Math.PI) / 180;
/** Length of the spout's chute below the hopper. */
const SPOUT_LENGTH = 1.2;
/** Spout width: a share of the box's, and never under ~6 particle diameters (narrower ones jam). */
const SPOUT_SHARE = 0.4;
const MIN_SPOUT = 7;
/** The starting lattice: body-centred, neighbours at least 2 · MAX_RADIUS apart with the jitter. */
const CELL = 1.42;
const JITTER = 0.02;
/** A centre stays this far (perpendicular) from the hopper's inner faces. */
const CLEARANCE = MAX_RADIUS + 0.05;

interface Shape {
  width: number;
  spoutY: number;
  spoutWidth: number;
  /** Height of the hopper's lower edges (the top of the chute). */
  throat: number;
  hopperTop: number;
}

function shapeFor(width: number, volume: number): Shape {
  // The pile, about 0.6 solid, spread flat over the floor; a heap at its angle of repose (about
  // 35° with friction) stands higher in the middle; then room for the stream.
  const level = volume / 0.6 / (width * width);
  const spoutY = 1.1 * level + 0.3 * width + 2.5;
  const spoutWidth = Math.max(SPOUT_SHARE * width, MIN_SPOUT);
  const throat = spoutY + SPOUT_LENGTH;
  const hopperTop = throat + (width / 2 - spoutWidth / 2) * Math.tan(SLOPE);
  return { width, spoutY, spoutWidth, throat, hopperTop };
}

/** The starting lattice's layers inside the hopper: height, offset, where rows start, how many a side. */
function* layers(shape: Shape): Generator<{ y: number; start: number; count: number }> {
  const centre = shape.width / 2;
  for (let layer = 0; ; layer++) {
    const y = shape.throat + CLEARANCE + (layer * CELL) / 2;
    if (y > shape.hopperTop - MAX_RADIUS) return;
    const offset = layer % 2 === 0 ? 0 : CELL / 2;
    // Half-width free for centres at this height: the inner face moved in by the clearance.
    const face = shape.spoutWidth / 2 + (y - shape.throat) / Math.tan(SLOPE) - CLEARANCE / Math.sin(SLOPE);
    const half = Math.min(face, centre - MAX_RADIUS - JITTER);
    const count = Math.floor((2 * half - offset) / CELL) + 1;
    if (count <= 0) continue;
    yield { y, start: centre - half + offset + (2 * half - offset - (count - 1) * CELL) / 2, count };
  }
}

/** A box record: centre, half extents, and a turn of `angle` about the x or z axis. */
function box(centre: number[], half: number[], axis: 'x' | 'z' = 'z', angle = 0): number[] {
  const s = Math.sin(angle / 2);
  return [...centre, ...half, axis === 'x' ? s : 0, 0, axis === 'z' ? s : 0, Math.cos(angle / 2)];
}

/**
 * The hopper's four plates and the spout's four, round the vertical line through (centre,
 * centre). A hopper plate's inner face runs from the throat's edge up to the wall at SLOPE; the
 * plates of the x sides span the whole box along z and those of the z sides along x, so that
 * they cross outside the funnel and leave no gap at its corners.
 */
function hopperBoxes(shape: Shape): number[] {
  const { width, spoutWidth, spoutY, throat, hopperTop } = shape;
  const centre = width / 2;
  const inner = spoutWidth / 2;
  // The inner face, in the plane of a side: from (inner, throat) to (centre, hopperTop), measured
  // outwards from the axis; the plate's centre lies PLATE behind its middle, against the inward normal.
  const length = Math.hypot(centre - inner, hopperTop - throat);
  const [sin, cos] = [Math.sin(SLOPE), Math.cos(SLOPE)];
  const out = (inner + centre) / 2 + PLATE * sin; // outward distance of the plate's centre from the axis
  const y = (throat + hopperTop) / 2 - PLATE * cos;
  const span = width / 2;
  const boxes: number[] = [
    // x sides: turned about z (their long axis up the slope); the −x side the other way.
    ...box([centre + out, y, centre], [length / 2, PLATE, span], 'z', SLOPE),
    ...box([centre - out, y, centre], [length / 2, PLATE, span], 'z', -SLOPE),
    // z sides: turned about x.
    ...box([centre, y, centre + out], [span, PLATE, length / 2], 'x', -SLOPE),
    ...box([centre, y, centre - out], [span, PLATE, length / 2], 'x', SLOPE),
  ];
  // The chute: four upright plates from the throat down to the spout's mouth, their inner faces
  // on the hole's edges; the x sides' plates reach across the z sides' so the corners are closed.
  const chuteY = (spoutY + throat) / 2;
  const chuteHalf = SPOUT_LENGTH / 2;
  const across = inner + 2 * PLATE;
  boxes.push(
    ...box([centre + inner + PLATE, chuteY, centre], [PLATE, chuteHalf, across]),
    ...box([centre - inner - PLATE, chuteY, centre], [PLATE, chuteHalf, across]),
    ...box([centre, chuteY, centre + inner + PLATE], [inner, chuteHalf, PLATE]),
    ...box([centre, chuteY, centre - inner - PLATE], [inner, chuteHalf, PLATE]),
  );
  return boxes;
}

/**
 * The paddle: an upright plate across z on the floor near the −x wall (behind the pile as the
 * camera first sees it), half as long as the floor is wide, well under the spout's mouth. Its
 * half extents and where it starts.
 */
function paddleFor(width: number, spoutY: number): { centre: number[]; half: number[] } {
  const half = [Math.max(0.3, 0.02 * width), Math.min(0.25 * spoutY, Math.max(1.2, 0.06 * width)), 0.25 * width];
  return { centre: [half[0] + Math.max(1, 0.05 * width), half[1] + 0.02, width / 2], half };
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

  const hopper = hopperBoxes(shape);
  const paddle = paddleFor(width, spoutY);
  const boxes = new Float32Array([...hopper, ...box(paddle.centre, paddle.half)]);

  // The particles, on the lattice from the spout up, at rest but for a little sideways drift.
  let s = seed >>> 0;
  const random = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const jitter = (): number => (random() - 0.5) * 2 * JITTER;
  const spheres = new Float32Array(4 * n);
  const velocities = new Float32Array(3 * n);
  const inverseMasses = new Float32Array(n);
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
  const hopperCount = hopper.length / 10;
  return {
    spheres,
    velocities,
    inverseMasses,
    boxes,
    hopperBoxes: hopperCount,
    paddle: hopperCount,
    bounds: [0, 0, 0, width, hopperTop + 2 * PLATE, width],
    poured: n,
    spoutY,
    spoutWidth,
    hopperTop,
  };
}
