/**
 * The split that starts the particle solver's solve (shaders/particles/solver.wgsl.ts has the
 * overview): particleSplit sends the busy particles to the busy list and runs the whole step of
 * every other one, then particleBusyArgs sizes the solve's indirect dispatch from that list
 * (substep.wgsl.ts takes its particles from it: `busyParticle`).
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { integrateStatements } from './substep.wgsl.js';
import { header, writeArgs, strikeOf } from './common.wgsl.js';
import { formula } from './formula.js';
import { LIST_ARGS } from './layout.js';
import { boxedList } from './colliders.wgsl.js';
import { walledList, wallSettleList } from './walls.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry, ONE_THREAD } from '../../src/gpu/kernel.js';

export const splitBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readWrite('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  start: readWrite('array<atomic<u32>>'),
  bodiesA: readWrite('array<ParticleBody>'),
  bodiesB: readWrite('array<ParticleBody>'),
  walls: readOnly('array<ParticleWalls>'),
  contacts: readOnly('array<ParticleContact>'),
  slots: readOnly('array<ParticleColliderContact>'),
});

export const busyArgsBindings = bindings({
  params: uniform('ParticleParams'),
  start: readOnly('array<u32>'),
  args: readWrite('array<u32>'),
});

export const particleSplitEntry = entry({ name: 'particleSplit', index: 't', bound: 'params.count' });

/**
 * Splits the particles: a busy one (a contact-list entry, a wall record, or a wall within reach
 * at any substep: gap ≤ 2·margin + 2·travel, travel = (|v| + |g|·dt)·dt, with room for rounding,
 * which bounds prepareWall's nearWall at every substep) goes to the busy list for the solve; any
 * other runs its whole step here, with the operations the prepare, the sweeps and the
 * integration would do with nothing to solve (so the result does not depend on the split), and
 * leaves its body in the buffer the solve ends in. A sleeper (particleSleep) is neither.
 *
 * It also writes each particle's strike bound (common.wgsl.ts, strikeOf), the most a contact it
 * may meet in the step may change its speed, for the first prepare's choice of the step's pairs
 * (formula.pairReach): (1 + e) times the fastest of its approach to a listed partner it may touch
 * within the step at that speed (gap ≤ margin + approach · dt, and within both reaches) times its
 * share of the pair's inverse mass (w / (w + w_u)), its approach to each box it lists along the
 * box's normal (colliderList's) plus gravity's over the step (its speed plus the fastest box's
 * for a mesh's triangle), its speed if a wall is within reach; 0 for a static particle, a
 * sleeper or a particle with nothing to solve. A bound of the first strike only: a particle
 * struck by one that was struck in the same step may change speed more (docs/CONTRACT.md, "Sweeps").
 */
export const particleSplitShader = () => wgsl`
${header()}
${splitBindings.wgsl}

${particleSplitEntry.wgsl}
  let body = bodiesA[t];
  atomicStore(&${strikeOf('t')}, 0u);
  if (body.p.w < 0.0) {
    // Asleep (particleSleep wrote its bodies): nothing to do.
    return;
  }
  let w = body.v.w;
  var s = sorted[t];
  // Lists cut short by the capacity (an encode() step that overflowed) are not symmetric: then
  // every particle is busy, so that no listed partner runs its step here.
  let truncated = atomicLoad(&start[params.count]) > params.entryCapacity;
  let first = params.entryBase + min(atomicLoad(&start[t]), params.entryCapacity);
  let last = params.entryBase + min(atomicLoad(&start[t + 1u]), params.entryCapacity);
  let id = sortedId[t];
  var busy = truncated || last > first;
  var boxed = false;
  if (params.boxCount + params.meshCount > 0u) {
    // A collider contact this step (colliderList).
    boxed = slots[(params.rangeBase + id) * params.boxSlots].box != EMPTY_SLOT;
  }
  var walled = false;
  if (params.bounded != 0u) {
    let wall = walls[id];
    walled = wall.impulseX.y != 0.0 || wall.impulseY.y != 0.0 || wall.impulseZ.y != 0.0;
    if (w > 0.0) {
      let travel = (length(body.v.xyz) + length(params.gravity) * params.frameDt) * params.frameDt;
      let low = (s.xyz - vec3f(s.w)) - params.boundsMin;
      let high = params.boundsMax - (s.xyz + vec3f(s.w));
      let gap = min(low, high);
      let rounding = 1e-4 * (abs(gap) + vec3f(s.w + travel)) + 1e-5 * (abs(s.xyz) + abs(params.boundsMin) + abs(params.boundsMax));
      walled = walled || any(gap <= vec3f(2.0 * params.margin + 2.0 * travel) + rounding);
    }
  }
  busy = busy || boxed || walled;
  if (busy) {
    if (w > 0.0) {
      let vt = body.v.xyz;
      let reach = ${formula.reach('s', 'body.v')};
      var fastest = select(0.0, length(vt), walled);
      if (boxed) {
        let base = (params.rangeBase + id) * params.boxSlots;
        for (var i = 0u; i < params.boxSlots; i++) {
          let c = slots[base + i];
          if (c.box == EMPTY_SLOT) {
            break;
          }
          // A box: its approach along the normal where colliderList found it, and gravity's
          // over the step; a mesh's triangle: its speed and the fastest box's.
          var approach = length(vt) + params.boxSpeed;
          if (c.normal.w != 0.0) {
            approach = max(dot(vt - c.surface.xyz, c.normal.xyz), 0.0) + length(params.gravity) * params.frameDt;
          }
          fastest = max(fastest, approach);
        }
      }
      for (var e = first; e < last; e++) {
        let u = contacts[e].nbr & ~DORMANT_BIT;
        let q = sorted[u];
        let bu = bodiesA[u].v;
        let rel = bu.xyz - vt;
        let d = q.xyz - s.xyz;
        let dist = sqrt(dot(d, d));
        // Coincident centres: any direction.
        let approach = select(length(rel), -dot(rel, d) / dist, dist > 0.0);
        // Within the step's reach of the pair too, as a search without the skin lists it: the
        // skin changes no bound.
        if (dist - (s.w + q.w) <= params.margin + min(approach * params.frameDt, reach + ${formula.reach('q', 'bu')})) {
          // Times its share of the pair's inverse mass: what one strike changes its speed by.
          fastest = max(fastest, approach * (w / (w + bu.w)));
        }
      }
      atomicStore(&${strikeOf('t')}, bitcast<u32>((1.0 + params.restitution) * fastest));
    }
    let k = atomicAdd(&start[params.count + 1u], 1u);
    atomicStore(&start[params.count + 2u + k], t);
    if (boxed) {
      let j = atomicAdd(&${boxedList.length}, 1u);
      atomicStore(&${boxedList.at('j')}, t);
    }
    return;
  }
  // Nothing to solve all step: each substep's prepare (gravity, no impulse), sweeps (no
  // change) and integration, operation for operation.
  let gravity = select(vec3f(0.0), params.gravity * params.dt, w > 0.0);
  var v1 = body.v.xyz;
  var vp1 = vec3f(0.0);
  { // for (var sub = 0u; sub < params.substeps; sub++), tested at the bottom (forLoop, common.wgsl.ts)
    var sub = 0u;
    if (sub < params.substeps) {
      loop {
        v1 = (v1 + gravity) + vec3f(0.0);
        vp1 = vec3f(0.0);
        if (w == 0.0) {
          // A static particle: the sweeps copy its body, and it never moves.
          continue;
        }
        { // for (var sweep = 0u; sweep < params.iterations; sweep++), tested at the bottom (forLoop, common.wgsl.ts)
          var sweep = 0u;
          if (sweep < params.iterations) {
            loop {
              v1 = v1 + vec3f(0.0);
              vp1 = vp1 + vec3f(0.0);
              continuing {
                sweep++;
                break if !(sweep < params.iterations);
              }
            }
          }
        }
        {
          ${integrateStatements}
          s = vec4f(x, s.w);
        }
        continuing {
          sub++;
          break if !(sub < params.substeps);
        }
      }
    }
  }
  let out = ParticleBody(vec4f(v1, w), vec4f(vp1, 0.0));
  if (params.resultInB != 0u) {
    bodiesB[t] = out;
  } else {
    bodiesA[t] = out;
  }
}
`;

export const particleBusyArgsEntry = entry({ name: 'particleBusyArgs', size: ONE_THREAD });

/**
 * One thread: the indirect dispatch arguments (folded as dispatchFolded does) for the busy list's
 * length (the split's), for the walled list's (a substep's prepare: walls.wgsl.ts, walledList),
 * or for the settle lists' (the prepares': common.wgsl.ts, settleThread, and wallSettleList).
 */
export const particleBusyArgsShader = ({ list }: { list: 'busy' | 'walled' | 'settle' }) => wgsl`
${header()}
${busyArgsBindings.wgsl}
${writeArgs}

${particleBusyArgsEntry.wgsl}
#if ${list === 'busy'}
  writeArgs(${LIST_ARGS.busy}u, start[params.count + 1u]);
  writeArgs(${LIST_ARGS.boxed}u, ${boxedList.length});
#elif ${list === 'walled'}
  writeArgs(${LIST_ARGS.walled}u, ${walledList.length});
#else
  writeArgs(${LIST_ARGS.settle}u, start[2u * params.count + 2u]);
  writeArgs(${LIST_ARGS.settleWalls}u, ${wallSettleList.length});
#endif
}
`;
