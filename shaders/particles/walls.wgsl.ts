/**
 * The walls of the world's bounds in a substep (shaders/particles/solver.wgsl.ts has the
 * overview): particlePrepareWalls, after each substep's prepare, over the walled list (the busy
 * particles particleSplit found with a wall contact or a wall within reach in the step), starts
 * each one's wall contacts (their aims and warm start) and lists those with one;
 * particleSettleWalls solves them after each sweep, before particleSettle (substep.wgsl.ts) solves
 * the collider contacts. Passes of their own, not parts of the prepare and of one settle: on
 * SwiftShader every lane of a group runs the statements of each `if` it reaches, taken or not, so
 * the prepare paid for the walls' code for every busy particle (the pour of issue 47: a fifth of
 * the later prepares' time) where a third of them were near a wall, and the settle for every
 * particle on a peg (six of its ten GPU ms a sweep).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { formula } from './formula.js';
import { header, coneScale, substepPrepare } from './common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry } from '../../src/gpu/kernel.js';

/**
 * The walled list: the busy particles that may meet a wall in this substep (nearWall) or had a
 * wall contact in the last, which a substep's prepare appends (its length at start[5·count + 4],
 * its particles after it) and particlePrepareWalls walks.
 */
export const walledList = {
  length: 'start[5u * params.count + 4u]',
  at: (k: string): string => `start[5u * params.count + 5u + ${k}]`,
};

/**
 * The wall settle list: the busy particles with a wall contact in this substep, which
 * particlePrepareWalls appends (its length at start[6·count + 5], its particles after it) and
 * particleSettleWalls walks after each sweep.
 */
export const wallSettleList = {
  length: 'start[6u * params.count + 5u]',
  at: (k: string): string => `start[6u * params.count + 6u + ${k}]`,
};

/**
 * Whether a wall contact of the sphere s moving at v may take part in this substep: prepareWall's
 * test, with room to spare for rounding (prepareWall decides exactly).
 */
export const nearWallFunction = /* wgsl */ `
fn nearWall(s: vec4f, v: vec3f, h: f32) -> bool {
  let low = (s.xyz - vec3f(s.w)) - params.boundsMin;
  let high = params.boundsMax - (s.xyz + vec3f(s.w));
  let gap = min(low, high);
  let vn0 = select(-v, v, low <= high);
  let spare = max(vec3f(params.margin), 1e-5 * (abs(gap) + abs(vn0 * h) + vec3f(s.w)));
  return any(gap + min(vn0, vec3f(0.0)) * h <= vec3f(params.margin) + spare);
}`;

/**
 * The prepare's statements (s, v, h, w, id, t in scope; `walls` and `start` bound) that list
 * particle t for particlePrepareWalls where it may meet a wall in the substep or had a wall
 * contact in the last: the test particlePrepare made before its walls' code moved here, with the
 * velocity and position of the same substep (a particle struck toward a wall in the step is
 * caught in the next substep, as before).
 */
export const toWalls = /* wgsl */ `
  if (params.bounded != 0u && ((w > 0.0 && nearWall(s, v, h)) || walls[id].impulseX.y != 0.0 || walls[id].impulseY.y != 0.0 || walls[id].impulseZ.y != 0.0)) {
    let j = atomicAdd(&${walledList.length}, 1u);
    atomicStore(&${walledList.at('j')}, t);
  }`;

/** particlePrepareWalls' bindings. */
export const prepareWallsBindings = bindings({
  ...substepPrepare,
  walls: readWrite('array<ParticleWalls>'),
});

export const AXES = [0, 1, 2] as const;
const X = 'xyz';
const FIELD = ['impulseX', 'impulseY', 'impulseZ'];

/**
 * The wall contact of one axis, written out per axis with literal components (on SwiftShader,
 * indexing a local array by a loop variable spills it to memory and costs more than the math).
 * `wall.impulseA` = (normal impulse, side: −1 lower, +1 upper, 0 none, friction impulse along
 * the next two axes); the normal n = side·e_a points from the particle to the wall, whose
 * velocity is 0, so the relative normal velocity is −v·n.
 */
function wallGap(axis: number, side: string): string {
  const a = X[axis];
  return `select(params.boundsMax.${a} - (s.${a} + s.w), (s.${a} - s.w) - params.boundsMin.${a}, ${side} < 0.0)`;
}

function prepareWall(axis: number): string {
  const [a, b, c] = [X[axis], X[(axis + 1) % 3], X[(axis + 2) % 3]];
  return /* wgsl */ `
  {
    var c = vec4f(0.0);
    if (walled) {
      let low = (s.${a} - s.w) - params.boundsMin.${a};
      let high = params.boundsMax.${a} - (s.${a} + s.w);
      let side = select(1.0, -1.0, low <= high);
      let gap = min(low, high);
      let vn0 = -v.${a} * side;
      if (gap + min(vn0, 0.0) * h <= params.margin) {
        c = wall.${FIELD[axis]};
        if (c.y != side || !${formula.keepsImpulse('gap', 'vn0', 's.w')}) {
          c = vec4f(0.0, side, 0.0, 0.0);
        }
        aims.${a} = ${formula.aim('gap', 'vn0')};
        dv.${a} -= w * c.x * side;
        dv.${b} -= w * c.z;
        dv.${c} -= w * c.w;
      }
    }
    wall.${FIELD[axis]} = c;
  }`;
}

export function settleWall(axis: number, friction: boolean): string {
  const [a, b, c] = [X[axis], X[(axis + 1) % 3], X[(axis + 2) % 3]];
  return /* wgsl */ `
    if (wall.${FIELD[axis]}.y != 0.0) {
      let c = wall.${FIELD[axis]};
      let side = c.y;
      let vn = -v.${a} * side;
      let normal = max(c.x + (wall.aim.${a} - vn) / w, 0.0);
      var lt = vec2f(c.z, c.w);
      var dlt = vec2f(0.0);
      if (${friction ? 'params.friction > 0.0' : 'false' /* compiled out: particleSettleShader */}) {
        // Tangential velocity of the wall relative to the particle: −v along the other axes.
        var next = lt + vec2f(v.${b}, v.${c}) / w;
        next = next * coneScale(dot(next, next), params.friction * normal);
        dlt = next - lt;
        lt = next;
      }
      v.${a} -= w * (normal - c.x) * side;
      v.${b} -= w * dlt.x;
      v.${c} -= w * dlt.y;
      wall.${FIELD[axis]} = vec4f(normal, side, lt);
      let pushed = max(wall.pseudo.${a} + (${formula.push(wallGap(axis, 'side'))} + vp.${a} * side) / w, 0.0);
      vp.${a} -= w * (pushed - wall.pseudo.${a}) * side;
      wall.pseudo.${a} = pushed;
    }`;
}

export const particlePrepareWallsEntry = entry({
  name: 'particlePrepareWalls',
  index: 'k',
  bound: `atomicLoad(&${walledList.length})`,
});

/**
 * After a substep's prepare, per particle of the walled list: on each axis the nearer wall, a
 * contact when the sphere may reach it within the substep plus the margin, kept warm from the
 * last substep on the same side while it stays closed; the warm start added to the body the
 * prepare wrote (its velocity before the solve is the prepare's: the body it read, with gravity),
 * and a moving particle with a wall contact appended to the wall settle list.
 */
export const particlePrepareWallsShader = () => wgsl`
${header()}
${prepareWallsBindings.wgsl}

${particlePrepareWallsEntry.wgsl}
  let t = atomicLoad(&${walledList.at('k')});
  let h = params.dt;
  let s = sorted[t];
  let id = sortedId[t];
  let w = bodiesIn[t].v.w;
  let v = bodiesIn[t].v.xyz + select(vec3f(0.0), params.gravity * h, w > 0.0);
  let walled = params.bounded != 0u && w > 0.0;
  // The prepare listed it (toWalls): near a wall, or with a wall contact from before.
  {
    var dv = vec3f(0.0);
    var wall = walls[id];
    var aims = vec4f(0.0);
    ${AXES.map(prepareWall).join('')}
    wall.aim = aims;
    wall.pseudo = vec4f(0.0);
    walls[id] = wall;
    if (wall.impulseX.y != 0.0 || wall.impulseY.y != 0.0 || wall.impulseZ.y != 0.0) {
      let body = bodiesOut[t];
      bodiesOut[t] = ParticleBody(vec4f(body.v.xyz + dv, w), body.p);
      if (w > 0.0) {
        let at = atomicAdd(&${wallSettleList.length}, 1u);
        atomicStore(&${wallSettleList.at('at')}, t);
      }
    }
  }
}
`;

/** particleSettleWalls' bindings (over the wall settle list). */
export const settleWallsBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  bodies: readWrite('array<ParticleBody>'),
  walls: readWrite('array<ParticleWalls>'),
});

export const particleSettleWallsEntry = entry({
  name: 'particleSettleWalls',
  index: 'k',
  bound: wallSettleList.length,
});

/**
 * The end of a sweep, per particle of the wall settle list, in place: its wall contacts, axis by
 * axis, each solved with the particle's whole mass from the velocity the one before left
 * (Gauss–Seidel), before its collider contacts (particleSettle). Without `friction` (a world
 * whose friction is 0) the friction code is left out (the same results bit for bit).
 */
export const particleSettleWallsShader = ({ friction = true }: { friction?: boolean } = {}) => wgsl`
${header()}
${settleWallsBindings.wgsl}
${coneScale}

${particleSettleWallsEntry.wgsl}
  let t = ${wallSettleList.at('k')};
  let body = bodies[t];
  let w = body.v.w;
  let id = sortedId[t];
  let s = sorted[t];
  var v = body.v.xyz;
  var vp = body.p.xyz;
  var wall = walls[id];
  ${AXES.map((axis) => settleWall(axis, friction)).join('')}
  walls[id] = wall;
  bodies[t] = ParticleBody(vec4f(v, w), vec4f(vp, body.p.w));
}
`;
