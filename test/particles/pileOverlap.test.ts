/**
 * Sleep and overlap (issue 37, item 7): a pile's largest overlap grew with its size, more than
 * with sleep off. A particle slow enough was at rest however deep its contacts, so particles
 * pressed together slept: a pair of sleepers gets no position correction (1,200 balls jammed into
 * too small a box slept holding pairs 186% of a radius deep), and an awake pair still deep after
 * a pile's landing (45% at frame 180 of 64,000 balls) was corrected against sleepers, static to
 * it. Now a contact deeper than slop + SLEEP_OVERLAP × the smaller radius makes a particle not
 * at rest (its partners stay awake, or wake) and not asleep.
 *
 * The scene that shows it in seconds: four balls in a row on the floor, squeezed between two
 * walls closer than the row is long, and a fifth resting on two of them. They come to rest at
 * once (nothing can move), each contact of the row overlapping by a third of the squeeze; before
 * the fix the row alone fell asleep whole with that overlap, and with the ball on it some of
 * them fell asleep every few steps.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { createParticleWorld } from '../../src/particles/index.js';
import { ParticleSolverTwin } from '../../src/reference/particles.js';
import { SLEEP_OVERLAP } from '../../src/particles/step.js';

const gpu = useGpu();

const R = 0.5;

/**
 * Four balls of radius 0.5 in a row along x on the floor, between walls `squeeze` closer than 4
 * diameters, and with `ball` a fifth resting in the groove between the first two (its contacts
 * shallow).
 */
function squeezedRow(squeeze: number, ball: boolean) {
  const n = ball ? 5 : 4;
  const width = 2 * R * 4 - squeeze;
  const spacing = (width - 2 * R) / 3;
  const spheres = new Float32Array(4 * n);
  const velocities = new Float32Array(4 * n);
  for (let i = 0; i < 4; i++) spheres.set([R + i * spacing, R, 1, R], 4 * i);
  if (ball) spheres.set([R + spacing / 2, R + Math.sqrt((2 * R) ** 2 - (spacing / 2) ** 2) + 1e-3, 1, R], 16);
  for (let i = 0; i < n; i++) velocities[4 * i + 3] = 1;
  return { spheres, velocities, bounds: [0, 0, 0, width, 3, 2] };
}

/** Largest overlap (rA + rB − distance) / r over the pairs, with the particles at rest or not. */
function largestOverlap(spheres: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < spheres.length / 4; i++) {
    for (let j = i + 1; j < spheres.length / 4; j++) {
      const d = Math.hypot(
        spheres[4 * j] - spheres[4 * i],
        spheres[4 * j + 1] - spheres[4 * i + 1],
        spheres[4 * j + 2] - spheres[4 * i + 2],
      );
      worst = Math.max(worst, (2 * R - d) / R);
    }
  }
  return worst;
}

describe('sleep never freezes an overlap deeper than slop + SLEEP_OVERLAP × r', () => {
  // slop 0.01 is 2% of the radius: the limit is 4% of it. Squeezed by 0.15, each of the row's
  // three contacts overlaps by 0.05 (10%); by 0.045, by 0.015 (3%).
  for (const [squeeze, deep] of [
    [0.15, true],
    [0.045, false],
  ] as const) {
    it(`a row squeezed by ${squeeze}${deep ? ', a ball on it: they stay awake' : ': it falls asleep'}, on the same steps as the CPU twin`, async () => {
      // (The shallow row has no ball on it: there the ball's weight, shared by two balls of a
      // row that cannot give, keeps part of it flickering between asleep and awake, as it did
      // before the fix.)
      const scene = squeezedRow(squeeze, deep);
      const n = scene.spheres.length / 4;
      const world = await createParticleWorld({
        device: gpu.device,
        capacity: n,
        bounds: scene.bounds,
        gravity: [0, -9.8, 0],
        restitution: 0,
        friction: 0.5,
        sleepTime: 0.1,
      });
      try {
        world.setParticles({ spheres: scene.spheres, velocities: new Float32Array(3 * n) });
        const params = world.stepParams(1 / 60);
        expect(params.slop).toBe(0.01);
        const twin = new ParticleSolverTwin();
        let cpu: { spheres: Float32Array; velocities: Float32Array } = {
          spheres: scene.spheres.slice(),
          velocities: scene.velocities.slice(),
        };
        let slept = 0;
        for (let step = 1; step <= 30; step++) {
          await world.step(params.dt);
          cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
          const state = await world.read();
          for (let k = 0; k < 4 * n; k++) {
            if (k % 4 === 3) continue;
            expect(Math.abs(state.spheres[k] - cpu.spheres[k]), `step ${step}: sphere component ${k}`).toBeLessThan(
              1e-6,
            );
          }
          const asleep = await world.sleepingCount();
          expect(asleep, `step ${step}: asleep`).toBe(twin.asleep);
          slept = Math.max(slept, asleep);
        }
        const overlap = largestOverlap((await world.read()).spheres);
        if (deep) {
          // Nothing can move, so the overlap stays; but no particle sleeps with it, nor does the
          // ball resting on two of them, whose own contacts are shallow: pressed that deep, a
          // particle is not at rest, and its partners stay awake (before the fix the row alone
          // fell asleep whole, and with the ball on it some fell asleep every few steps).
          expect(overlap).toBeGreaterThan(params.slop / R + SLEEP_OVERLAP);
          expect(slept).toBe(0);
        } else {
          expect(overlap).toBeLessThan(params.slop / R + SLEEP_OVERLAP);
          expect(slept).toBe(4);
        }
      } finally {
        world.destroy();
      }
    });
  }
});
