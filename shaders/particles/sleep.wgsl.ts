/**
 * The particle solver's sleep (shaders/particles/solver.wgsl.ts has the overview): who sleeps
 * this step, and the write-back of the state and of each particle's time at rest.
 */
import { wgsl } from 'wgsl-preprocessor/wgsl-preprocessor.js';
import { header, entriesOf } from './common.wgsl.js';
import { bindings, uniform, readOnly, readWrite, entry } from '../../src/gpu/kernel.js';

export const sleepBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  start: readOnly('array<u32>'),
  bodiesA: readWrite('array<ParticleBody>'),
  bodiesB: readWrite('array<ParticleBody>'),
  contacts: readWrite('array<ParticleContact>'),
  rest: readWrite('array<ParticleRest>'),
  stats: readWrite('ParticleStats'),
});

export const writeBackBindings = bindings({
  params: uniform('ParticleParams'),
  sorted: readOnly('array<vec4f>'),
  sortedId: readOnly('array<u32>'),
  bodies: readOnly('array<ParticleBody>'),
  spheres: readWrite('array<vec4f>'),
  velocities: readWrite('array<vec4f>'),
  rest: readWrite('array<ParticleRest>'),
});

export const particleSleepEntry = entry({ name: 'particleSleep', index: 't', bound: 'params.count' });

/**
 * Sleep, after the lists are made and before the split (the world leaves it out when sleep is
 * off). Particle t is asleep for this step when it moves (inverse mass > 0), the lists are whole,
 * it has been at rest for sleepTime (and at least one step), every listed partner has too, its
 * list lost no entry since the last step (a partner that left may have been its support), and
 * no contact of its overlaps by more than slop + SLEEP_OVERLAP × the smaller radius. Such a deep
 * contact (tested for every particle at rest so far, with sleep on) also makes the particle not
 * at rest: the write-back starts its time again (the pass notes it in ParticleRest.deep, which
 * only the write-back reads), so its partners stay awake, or wake, and it is corrected among
 * moving partners instead of against sleepers that hold it like static walls.
 * A sleeper's bodies, in both buffers, are at rest with inverse mass 0 (so its partners' prepare
 * and sweeps treat it as static) and p.w = −1 (the split and the write-back know it by that); it
 * counts its touching pairs, each by its first particle, as the prepare does for the others.
 * A particle that slept in the last step and is awake now makes each of its pairs' two entries
 * equal and opposite again (below), keeping the warm start: cold entries would let the particles
 * at the edge of a sleeping region sag at each wake and wake the next ones, so that a pile would
 * never sleep.
 */
export const particleSleepShader = () => wgsl`
${header()}
${sleepBindings.wgsl}

fn restedLongEnough(time: f32) -> bool {
  return time > 0.0 && time >= params.sleepTime;
}

${particleSleepEntry.wgsl}
  let id = sortedId[t];
  ${entriesOf}
  let entries = last - first;
  let truncated = start[params.count] > params.entryCapacity;
  let moving = bodiesA[t].v.w > 0.0;
  var asleep = moving && !truncated && restedLongEnough(rest[id].time) && entries >= rest[id].entries;
  var touching = 0u;
  // A particle at rest so far (with sleep on) is tested for a deep contact: pressed deeper than
  // the correction leaves a pile at rest, it is not at rest (the write-back starts its time
  // again, so that its partners stay awake, or wake, and it is corrected among moving
  // partners, not caged by sleepers), nor asleep. Both ends of a pair judge it from
  // bit-identical gaps.
  var deep = false;
  if (moving && rest[id].time > 0.0 && params.sleepTime <= MAX_SLEEP_TIME) {
    let s = sorted[t];
    { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
      var e = first;
      if (e < last) {
        loop {
          // Field by field: only the fields this pass never writes (a woken particle writes the
          // impulses of its own entries).
          if (asleep && !restedLongEnough(rest[contacts[e].id].time)) {
            asleep = false;
          }
          let u = contacts[e].nbr & ~DORMANT_BIT;
          let q = sorted[u];
          let d = q.xyz - s.xyz;
          let gap = sqrt(dot(d, d)) - (s.w + q.w);
          if (-gap - params.slop > SLEEP_OVERLAP * min(s.w, q.w)) {
            deep = true;
            asleep = false;
            break;
          }
          if (gap <= 0.0 && t < u) {
            touching += 1u;
          }
          continuing {
            e++;
            break if !(e < last);
          }
        }
      }
    }
  }
  // Read by the write-back only.
  rest[id].deep = select(0u, 1u, deep);
  let slept = rest[id].slept != 0u;
  rest[id].entries = entries;
  if (asleep) {
    if (touching > 0u) {
      atomicAdd(&stats.touching, touching);
    }
    atomicAdd(&stats.asleep, 1u);
    let still = ParticleBody(vec4f(0.0), vec4f(0.0, 0.0, 0.0, -1.0));
    bodiesA[t] = still;
    bodiesB[t] = still;
    return;
  }
  // Made dynamic since the last step: it was static then (its entries never solved, 0), while
  // its partners' entries hold the impulses with which it held them.
  let madeDynamic = rest[id].isStatic != 0u && bodiesA[t].v.w > 0.0;
  if (slept || madeDynamic) {
    // Woken: each of its entries takes its partner's (the normal impulse, the friction impulse
    // reversed), so both entries of each pair are equal and opposite again, warm. Its own entries
    // held the impulses of when it fell asleep (or none, static); a partner that stayed awake
    // solved against it as static and holds the current ones. If the partner slept in the last step too, the entry
    // of the lower index takes the higher's (a thread writes only its own entries, and never one
    // that another thread reads in this pass). A static partner's entries are never solved (it
    // applies no impulse): the particle keeps its own there.
    { // for (var e = first; e < last; e++), tested at the bottom (forLoop, common.wgsl.ts)
      var e = first;
      if (e < last) {
        loop {
          let other = contacts[e].id;
          // (The index rule is for two sleepers: one made dynamic always takes a woken sleeper's.)
          if ((slept && rest[other].slept != 0u && id > other) || rest[other].isStatic != 0u) {
            continue;
          }
          let u = contacts[e].nbr & ~DORMANT_BIT;
          let uFirst = params.entryBase + min(start[u], params.entryCapacity);
          let uLast = params.entryBase + min(start[u + 1u], params.entryCapacity);
          { // for (var f = uFirst; f < uLast; f++), tested at the bottom (forLoop, common.wgsl.ts)
            var f = uFirst;
            if (f < uLast) {
              loop {
                if (contacts[f].id == id) {
                  let theirs = contacts[f].impulse;
                  contacts[e].impulse = vec4f(theirs.x, -theirs.yzw);
                  break;
                }
                continuing {
                  f++;
                  break if !(f < uLast);
                }
              }
            }
          }
          continuing {
            e++;
            break if !(e < last);
          }
        }
      }
    }
  }
}
`;

export const particleWriteBackEntry = entry({ name: 'particleWriteBack', index: 't', bound: 'params.count' });

/**
 * The end of a step: each particle's position and velocity back to the world's state, by index
 * (its inverse mass stays: a sleeper's bodies hold 0), and its sleep record: its time at rest
 * (one more step if it ends slower than sleepSpeed and moved no farther than sleepSpeed × dt,
 * and particleSleep found no deep contact, else 0), where it ended (particleGather compares), and whether it slept.
 */
export const particleWriteBackShader = () => wgsl`
${header()}
${writeBackBindings.wgsl}

${particleWriteBackEntry.wgsl}
  let id = sortedId[t];
  let x = sorted[t];
  let body = bodies[t];
  let v = body.v.xyz;
  let before = velocities[id];
  spheres[id] = x;
  velocities[id] = vec4f(v, before.w);
  // At rest: slow, moved no farther than that speed allows (the position correction moves
  // particles that the velocity leaves at rest), and held up: a free particle's velocity changes
  // by g·dt a step, a supported one's by about nothing (without this, a particle slow at the top
  // of its flight, with sleepTime at most a step, would sleep in mid-air). Without gravity a
  // free particle keeps its velocity, and the speed alone decides.
  let at = rest[id];
  let g = length(params.gravity);
  let held = g == 0.0 || length(v - before.xyz) <= 0.5 * g * params.frameDt;
  // Pressed deeper than slop + SLEEP_OVERLAP × r (particleSleep's note in the spare word): not at rest.
  let still = length(v) <= params.sleepSpeed && length(x.xyz - at.position) <= params.sleepSpeed * params.frameDt && held && at.deep == 0u;
  rest[id] = ParticleRest(x.xyz, select(0.0, at.time + params.frameDt, still), select(0u, 1u, body.p.w < 0.0), at.entries, select(0u, 1u, before.w == 0.0), 0u);
}
`;
