/**
 * The twin of the particle solver's sleep (shaders/particles/sleep.wgsl.ts): who sleeps this
 * step (particleSleep), and each particle's sleep record at the end of it (particleWriteBack).
 */
import { SLEEP_OVERLAP } from '../../particles/step.js';
import { f32, length } from './geometry.js';
import { MAX_SLEEP_TIME, posOf, gapOf, type Entry, type StepState } from './state.js';

/** Who sleeps this step. */
export interface Sleep {
  /** By position: asleep for this step. */
  asleep: Uint8Array;
  /** By index: a contact deeper than slop + SLEEP_OVERLAP × the smaller radius (the GPU's note in ParticleRest.deep). */
  deep: Uint8Array;
  /** Particles asleep. */
  sleeping: number;
}

/**
 * particleSleep: a moving particle at rest long enough (at least a step), its listed partners
 * too, its list no shorter than in the last step, no contact of its deeper than slop +
 * SLEEP_OVERLAP × the smaller radius, is asleep: static and at rest for the step (its bodies 0).
 * A particle at rest so far with such a deep contact is not at rest (its time starts again at
 * the write-back), so that its partners stay awake and the overlap is corrected among moving
 * particles. One that slept in the last step and is awake, or was static then and moves now,
 * takes its partners' impulses. With sleep off (sleepTime Infinity) none sleeps; the rest
 * records still hold.
 */
export function particleSleep(state: StepState, lists: Entry[][]): Sleep {
  const { n, order, pos, body, rest, settings } = state;
  const { sleepTime, slop } = settings;
  const asleep = new Uint8Array(n);
  const deep = new Uint8Array(n);
  let sleeping = 0;
  const rested = (id: number): boolean => rest.time[id] > 0 && rest.time[id] >= sleepTime;
  const overlapLimit = f32(SLEEP_OVERLAP);
  const shallow = (t: number, u: number): boolean =>
    !(
      f32(-gapOf(posOf(state, t), posOf(state, u)) - slop) >
      f32(overlapLimit * Math.min(pos[4 * t + 3], pos[4 * u + 3]))
    );
  const woken: number[] = [];
  for (let t = 0; t < n; t++) {
    const id = order[t];
    if (body[8 * t + 3] > 0 && rest.time[id] > 0 && sleepTime <= MAX_SLEEP_TIME)
      deep[id] = lists[t].every((c) => shallow(t, c.nbr)) ? 0 : 1;
    if (
      body[8 * t + 3] > 0 &&
      rested(id) &&
      lists[t].length >= rest.entries[id] &&
      !deep[id] &&
      lists[t].every((c) => rested(c.id))
    )
      asleep[t] = 1;
    else if (rest.slept[id] || (rest.isStatic[id] && body[8 * t + 3] > 0)) woken.push(t); // or made dynamic
    rest.entries[id] = lists[t].length;
  }
  for (let t = 0; t < n; t++) {
    if (!asleep[t]) continue;
    sleeping++;
    body.fill(0, 8 * t, 8 * t + 8);
  }
  // Each entry of a woken particle takes its partner's, mirrored (if the partner slept too,
  // the lower index's entry takes the higher's): no entry written here is read here.
  for (const t of woken) {
    const id = order[t];
    for (const c of lists[t]) {
      if ((rest.slept[id] && rest.slept[c.id] && id > c.id) || rest.isStatic[c.id]) continue;
      const back = lists[c.nbr].find((e) => e.id === id);
      if (back) c.impulse = [back.impulse[0], -back.impulse[1], -back.impulse[2], -back.impulse[3]];
    }
  }
  return { asleep, deep, sleeping };
}

/**
 * particleWriteBack's sleep record, by index: where the particle ended, whether it slept,
 * whether it is static, and its time at rest: one step more if it ends slower than sleepSpeed,
 * moved no farther than sleepSpeed × dt, is held up (its velocity changed by at most half of
 * g·dt; no such test without gravity) and has no deep contact, else 0.
 */
export function particleWriteBack(state: StepState, velocities: Float32Array, sleep: Sleep): void {
  const { n, order, pos, body, rest, settings } = state;
  const { sleepSpeed, frameDt, gravityLength } = settings;
  for (let t = 0; t < n; t++) {
    const id = order[t];
    const d = [0, 1, 2].map((a) => f32(pos[4 * t + a] - rest.position[3 * id + a]));
    const dv = [0, 1, 2].map((a) => f32(body[8 * t + a] - velocities[4 * id + a]));
    const held = gravityLength === 0 || f32(length(dv)) <= f32(f32(0.5 * gravityLength) * frameDt);
    const still =
      f32(length(body.subarray(8 * t, 8 * t + 3))) <= sleepSpeed &&
      f32(length(d)) <= f32(sleepSpeed * frameDt) &&
      held &&
      !sleep.deep[id];
    rest.position.set(pos.subarray(4 * t, 4 * t + 3), 3 * id);
    rest.time[id] = still ? f32(rest.time[id] + frameDt) : 0;
    rest.slept[id] = sleep.asleep[t];
    rest.isStatic[id] = velocities[4 * id + 3] === 0 ? 1 : 0;
  }
}
