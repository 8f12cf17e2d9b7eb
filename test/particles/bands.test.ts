/**
 * The bands of a step's pairs (shaders/particles/colourPlan.wgsl.ts): a sweep solves a pair only
 * from the substep in which it may first close. Pairs closing head-on in each substep of a step
 * must still stop short of contact (restitution 0: the substep in which a pair would close stops
 * it); a band one substep late lets such a pair overlap, by 7% of a radius here. The slop
 * is small, so that the margin (twice the slop) does not put every pair in the first band.
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { deepestPairOverlap } from '../support/pile.js';
import { createParticleWorld, defaultInverseMass } from '../../src/particles/index.js';
import { ParticleSolverTwin } from '../../src/reference/particles.js';

const gpu = useGpu();

const R = 0.1;
const DT = 1 / 60;
/** Pairs, 10 apart along z: their gaps spread over what they close in a step. */
const PAIRS = 48;

/**
 * Pair k: two balls on the x axis closing at `speeds` (the left one's rightward, the right one's
 * leftward), at a gap that closes at (k + 0.5) / PAIRS of the step.
 */
function headOn(speeds: [number, number]) {
  const spheres = new Float32Array(8 * PAIRS);
  const velocities = new Float32Array(6 * PAIRS);
  const closing = (speeds[0] + speeds[1]) * DT;
  for (let k = 0; k < PAIRS; k++) {
    const gap = ((k + 0.5) / PAIRS) * closing;
    spheres.set([-(R + gap / 2), 0, 10 * k, R, R + gap / 2, 0, 10 * k, R], 8 * k);
    velocities.set([speeds[0], 0, 0, -speeds[1], 0, 0], 6 * k);
  }
  return { spheres, velocities };
}

/** Velocities and inverse masses as the twin takes them (vx, vy, vz, w). */
function packed(velocities: Float32Array, spheres: Float32Array): Float32Array {
  const out = new Float32Array(spheres.length);
  for (let i = 0; i < spheres.length / 4; i++) {
    out.set(velocities.subarray(3 * i, 3 * i + 3), 4 * i);
    out[4 * i + 3] = Math.fround(defaultInverseMass(spheres[4 * i + 3]));
  }
  return out;
}

describe('the bands of a step’s pairs', () => {
  for (const speeds of [
    [3, 3],
    [6, 0],
    [0.5, 5.5],
  ] as [number, number][]) {
    it(`pairs closing head-on at ${speeds[0]} and ${speeds[1]} m/s in every substep stop at contact, on the GPU and in the twin`, async () => {
      const { spheres, velocities } = headOn(speeds);
      const world = await createParticleWorld({
        device: gpu.device,
        capacity: 2 * PAIRS,
        gravity: [0, 0, 0],
        restitution: 0,
        friction: 0,
        slop: 1e-4,
      });
      try {
        world.setParticles({ spheres, velocities });
        await world.step(DT);
        const gpuState = await world.read();
        const twin = new ParticleSolverTwin();
        const cpu = twin.step(spheres, packed(velocities, spheres), world.stepParams(DT), world.plan!);
        // No pair overlaps (one band late: 7.3% of a radius).
        expect(deepestPairOverlap(gpuState.spheres, R), 'GPU').toBeLessThan(1e-3);
        expect(deepestPairOverlap(cpu.spheres, R), 'twin').toBeLessThan(1e-3);
      } finally {
        world.destroy();
      }
    });
  }

  it('a ball struck within the step stops short of the next one: the strike counts in the band (A at 6 m/s onto B at rest, C ahead at 1 m/s)', async () => {
    const r = 0.5;
    const gapAB = 0.001;
    const gapBC = 0.035;
    const xB = 2 * r + gapAB;
    const spheres = new Float32Array([0, 0, 0, r, xB, 0, 0, r, xB + 2 * r + gapBC, 0, 0, r]);
    const velocities = new Float32Array([6, 0, 0, 0, 0, 0, 1, 0, 0]);
    const world = await createParticleWorld({
      device: gpu.device,
      capacity: 3,
      gravity: [0, 0, 0],
      restitution: 1,
      friction: 0,
    });
    try {
      world.setParticles({ spheres, velocities });
      await world.step(DT);
      const twin = new ParticleSolverTwin();
      const cpu = twin.step(spheres, packed(velocities, spheres), world.stepParams(DT), world.plan!);
      for (const [name, out] of [
        ['GPU', (await world.read()).spheres],
        ['twin', cpu.spheres],
      ] as const) {
        // B–C's gap at the end of the step, in radii (solved from the first substep: +0.13 r;
        // with the band from the particles' own speeds alone, B ends 2.4% r into C).
        const gap = (out[8] - out[4] - 2 * r) / r;
        expect(gap, `${name}: B–C gap`).toBeGreaterThan(0);
      }
    } finally {
      world.destroy();
    }
  });
});
