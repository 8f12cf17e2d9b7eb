/**
 * The particle solver's solve (shaders/particles/solver.wgsl.ts has the overview): after the split
 * of busy particles from free ones (split.wgsl.ts), per substep the prepare (gravity, aims, warm
 * start; the walls' in walls.wgsl.ts); the sweeps over the pairs (colouring.wgsl.ts, pairs.wgsl.ts), each followed by
 * particleSettleWalls (walls.wgsl.ts) and particleSettle (each particle's collider contacts); then
 * particleIntegrate.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { formula } from './formula.js';
import {
  header,
  active,
  busyThread,
  busyParticle,
  settleThread,
  settleParticle,
  coneScale,
  strikeOf,
  contactGeometry,
  substepPrepare,
} from './common.wgsl.js';
import { hashRowFunction } from '../spatial/grid.wgsl.js';
import { nearWallFunction, toWalls } from './walls.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry } from '../../src/gpu/kernel.js';

/** The prepare's bindings. */
export const prepareBindings = bindings({
  ...substepPrepare,
  contacts: readWrite('array<ParticleContact>'),
  walls: readOnly('array<ParticleWalls>'),
  stats: readWrite('ParticleStats'),
});

/** particleSettle's bindings (over the settle list). */
export const settleBindings = bindings({
  params: uniform('ParticleParams'),
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  bodies: readWrite('array<ParticleBody>'),
  slots: readWrite('array<ParticleColliderContact>'),
});

/** particleIntegrate's bindings (over the busy list). */
export const integrateBindings = bindings({
  params: uniform('ParticleParams'),
  start: readOnly('array<u32>'),
  sorted: readWrite('array<vec4f>'),
  bodies: readWrite('array<ParticleBody>'),
});

/**
 * Statements binding `n` (the unit normal from particle s to its partner q, entry e) and `gap`
 * (|sq| − rs − rq) from the entry c: inlined, since on SwiftShader a function call per contact
 * costs more than its work. Coincident centres keep the entry's last normal; with `first` (the
 * step's first prepare), an entry that has none yet (the fill leaves 0) takes the pair's hashed
 * normal (coincidentNormal). A plain `if`: on SwiftShader every lane of a group pays for its
 * statements whether any lane takes it or not, and a loop of at most one pass costs the same
 * (the compiler makes it an `if`; a scratch kernel of 16 loads over 30,000 threads, no lane
 * taking it: none 3.8–5.3 ms, `if` 8.1–8.8, such a loop 8.5–8.9; every lane: 10.4–10.6 against
 * 15.7–16.1).
 */
const entryGeometry = (first: boolean): string => /* wgsl */ `
    let d = q.xyz - s.xyz;
    let dist2 = dot(d, d);
    let dist = sqrt(dist2);
    var n = d / dist;
    if (!(dist2 > 0.0)) {
      n = c.normal.xyz;
    }${
      first
        ? `
    if (!(dist2 > 0.0) && all(n == vec3f(0.0))) {
      n = coincidentNormal(id, c.id);
    }`
        : ''
    }
    let gap = dist - (s.w + q.w);`;

export const particlePrepareEntry = entry({
  name: 'particlePrepare',
  index: 'k',
  bound: 'atomicLoad(&start[params.count + 1u])',
});

/**
 * A substep's start; with `first` (the step's first substep), it also decides which entries the
 * step solves (what a search without the skin would list, from the positions and velocities the
 * step starts from: dormant entries get DORMANT_BIT and no impulse) and counts the touching pairs.
 */
export const particlePrepareShader = ({ first, colliders = false }: { first: boolean; colliders?: boolean }) => wgsl`

${header()}
${prepareBindings.wgsl}
${nearWallFunction}
#if ${first}
${hashRowFunction}
${contactGeometry}
#endif

${particlePrepareEntry.wgsl}
  let t = atomicLoad(&start[params.count + 2u + k]);
  let h = params.dt;
  let s = sorted[t];
  let id = sortedId[t];
  let w = bodiesIn[t].v.w;
  // Gravity first: the approach speeds below are those the solve starts from.
  let v = bodiesIn[t].v.xyz + select(vec3f(0.0), params.gravity * h, w > 0.0);
  let first = params.entryBase + min(atomicLoad(&start[t]), params.entryCapacity);
  let last = params.entryBase + min(atomicLoad(&start[t + 1u]), params.entryCapacity);
#if ${colliders}
  // colliderPrepare's warm start and contact count (it ran just before, over the boxed particles).
  var dv = bodiesIn[t].p.xyz;
  let boxed = bodiesIn[t].p.w > 0.0;
#else
  let boxed = false;
  var dv = vec3f(0.0);
#endif
#if ${first}
  let bt = bodiesIn[t].v;
  let strikeT = bitcast<f32>(atomicLoad(&${strikeOf('t')}));
  var touching = 0u;
  // The first entry of the run of dormant entries the loop is in (last: none); each run's first
  // entry gets the entry after the run (as the bits of its aim, unread in a dormant entry), so
  // that the later prepares skip the run at once.
  var run = last;
#endif
  { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
    var e = first;
    if (e < last) {
      loop {
        // The entry read and written whole: one access each instead of one per field.
        let c = contacts[e];
#if ${!first}
        if (c.nbr >= DORMANT_BIT) {
          // A run of dormant entries (the first prepare's): on past it.
          e = bitcast<u32>(c.aim) - 1u;
          continue;
        }
#endif
        let u = c.nbr & ~DORMANT_BIT;
        let q = sorted[u];
        let qb = bodiesIn[u].v;
        ${entryGeometry(first)}
#if ${first}
        if (gap <= 0.0 && t < u) {
          touching += 1u;
        }
        if (!${active('gap', formula.pairReach('s', 'bt', 'strikeT', 'q', 'qb', `bitcast<f32>(atomicLoad(&${strikeOf('u')}))`))}) {
          // Out of this step's solve, with no impulse to carry into a later step.
          contacts[e].nbr = u | DORMANT_BIT;
          contacts[e].impulse = vec4f(0.0);
          if (run == last) {
            run = e;
          }
          continue;
        }
        if (run != last) {
          contacts[run].aim = bitcast<f32>(e);
          run = last;
        }
#endif
        let qv = qb.xyz + select(vec3f(0.0), params.gravity * h, qb.w > 0.0);
        let vn0 = dot(qv - v, n);
        let aim = ${formula.aim('gap', 'vn0')};
        var impulse = vec4f(0.0);
        if (${formula.keepsImpulse('gap', 'vn0', 'min(s.w, q.w)')}) {
          // The warm start; the friction impulse stays in the tangent plane as the normal turns.
          let lt = c.impulse.yzw;
          impulse = vec4f(c.impulse.x, lt - dot(lt, n) * n);
        }
        // The sweeps of this substep reuse the geometry (normal, push aim): positions move only after them.
        contacts[e] = ParticleContact(impulse, vec4f(n, ${formula.push('gap')}), u, c.id, aim, 0.0);
        // The impulse on this particle is −(λn·n + λt): the partner's is its opposite.
        dv -= w * (impulse.x * n + impulse.yzw);
        continuing {
          e++;
          break if !(e < last);
        }
      }
    }
  }
#if ${first}
  if (run != last) {
    contacts[run].aim = bitcast<f32>(last);
  }
#endif
  ${toWalls}
  if (w > 0.0 && boxed) {
    // The settle list: particleSettle walks these only (particlePrepareWalls lists the walls').
    let at = atomicAdd(&start[2u * params.count + 2u], 1u);
    atomicStore(&start[2u * params.count + 3u + at], t);
  }
#if ${first}
  if (touching > 0u) {
    atomicAdd(&stats.touching, touching);
  }
#endif
  bodiesOut[t] = ParticleBody(vec4f(v + dv, w), vec4f(0.0));
}
`;

/**
 * The integration that ends a substep, after its last sweep (particleIntegrate; particleSplit's
 * free particles too): x += (v + p)·h, the sphere kept inside the bounds
 * (centred where they are narrower than it); a clamped axis loses its outward velocity, which
 * only lowers the kinetic energy.
 */
export const integrateStatements = /* wgsl */ `
  var x = s.xyz + (v1 + vp1) * params.dt;
  if (params.bounded != 0u) {
    let lo0 = params.boundsMin + vec3f(s.w);
    let hi0 = params.boundsMax - vec3f(s.w);
    let narrow = lo0 > hi0;
    let middle = (params.boundsMin + params.boundsMax) * 0.5;
    let lo = select(lo0, middle, narrow);
    let hi = select(hi0, middle, narrow);
    v1 = select(v1, max(v1, vec3f(0.0)), x < lo);
    v1 = select(v1, min(v1, vec3f(0.0)), x > hi);
    x = clamp(x, lo, hi);
  }
  sorted[t] = vec4f(x, s.w);`;

/**
 * particleSettle's statements for particle `id`'s collider slots (./colliders.wgsl.ts) (v, vp, w
 * in scope; `slots` bound): each a contact with an infinitely heavy body moving at the slot's
 * surface velocity, solved with the particle's whole mass and applied before the next.
 */
export const settleColliders = (friction: boolean): string => /* wgsl */ `
  {
    let base = (params.rangeBase + id) * params.boxSlots;
    for (var i = 0u; i < params.boxSlots; i++) {
      let c = slots[base + i];
      if (c.box == EMPTY_SLOT) {
        break;
      }
      let n = c.normal.xyz;
      let rel = c.surface.xyz - v;
      let vn = dot(rel, n);
      let normal = max(c.impulse.x + (c.surface.w - vn) / w, 0.0);
      var lt = c.impulse.yzw;
      var dlt = vec3f(0.0);
${
  friction
    ? `      if (params.friction > 0.0) {
        var next = lt - (rel - vn * n) / w;
        next = next * coneScale(dot(next, next), params.friction * normal);
        dlt = next - lt;
        lt = next;
      }`
    : ''
}
      v -= w * ((normal - c.impulse.x) * n + dlt);
      slots[base + i].impulse = vec4f(normal, lt);
      let pushed = max(c.pseudo + (c.normal.w + dot(vp, n)) / w, 0.0);
      vp -= w * (pushed - c.pseudo) * n;
      slots[base + i].pseudo = pushed;
    }
  }`;

/** particleSettle: over the settle list (settleThread). */
export const particleSettleEntry = entry({ name: 'particleSettle', ...settleThread });

/**
 * The end of a sweep, per particle of the substep's settle list (those with a collider contact),
 * in place, after its walls (particleSettleWalls, walls.wgsl.ts): its collider contacts, slot by
 * slot, each solved with the particle's whole mass from the velocity the one before left
 * (Gauss–Seidel). Without `friction` (a world whose friction is 0) the friction code is left
 * out: on SwiftShader a loop pays for a branch no lane takes (docs/ARCHITECTURE.md, Passes), and
 * the results are the same bit for bit.
 */
export const particleSettleShader = ({ friction = true }: { friction?: boolean } = {}) => wgsl`

${header()}
${settleBindings.wgsl}
${coneScale}

${particleSettleEntry.wgsl}
${settleParticle}
  let body = bodies[t];
  let w = body.v.w;
  let id = sortedId[t];
  var v = body.v.xyz;
  var vp = body.p.xyz;
  ${settleColliders(friction)}
  bodies[t] = ParticleBody(vec4f(v, w), vec4f(vp, body.p.w));
}
`;

export const particleIntegrateEntry = entry({ name: 'particleIntegrate', ...busyThread });

/**
 * The end of a substep, per busy particle, after its last sweep's settle: the integration
 * (integrateStatements). A pass of its own, not the settle's last: on SwiftShader every lane pays
 * for the wall and collider code a settle compiles, taken or not, and most busy particles have
 * neither (the 30,000-ball pour: 65–75 GPU ms a step folded, 10 alone, scratch profile).
 */
export const particleIntegrateShader = () => wgsl`
${header()}
${integrateBindings.wgsl}

${particleIntegrateEntry.wgsl}
${busyParticle}
  let body = bodies[t];
  let w = body.v.w;
  if (w == 0.0) {
    // A static particle never moves (its velocity is 0 from the stable sort).
    return;
  }
  let s = sorted[t];
  var v1 = body.v.xyz;
  let vp1 = body.p.xyz;
  ${integrateStatements}
  // The pseudo-velocity spent: 0, which the next substep's prepare reads where colliderPrepare writes none.
  bodies[t] = ParticleBody(vec4f(v1, w), vec4f(0.0));
}
`;
