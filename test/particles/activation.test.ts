/**
 * The step's choice of pairs (formula.pairReach, particleSplit's strike bounds): a listed pair
 * takes part in the step's solve when its gap is within the margin plus what it may close in the
 * step at its relative speed and both particles' strike bounds. Balls that move together are
 * left out; a ball whose speed a contact of the step changes (a box it bounces off, a ball that
 * strikes it: bands.test.ts) keeps its pairs with the balls it may then meet within both
 * particles' travel in the step (what the lists cover).
 */
import { describe, it, expect } from 'vitest';
import { useGpu } from '../support/gpu.js';
import { deepestPairOverlap } from '../support/pile.js';
import { createParticleWorld, defaultInverseMass } from '../../src/particles/index.js';
import { ParticleSolverTwin } from '../../src/reference/particles.js';

const gpu = useGpu();

const R = 0.1;
const DT = 1 / 60;
/** Columns, 1 apart along x: the balls' start heights spread over a substep's fall. */
const COLUMNS = 12;
const SPEED = 6;

/**
 * Column k: ball A falling at SPEED onto a static floor box (top at y = 0), which it reaches
 * within the step's first substeps, and ball B following it at the same speed, GAP above it.
 */
function column(gap: number) {
  const spheres = new Float32Array(8 * COLUMNS);
  const velocities = new Float32Array(8 * COLUMNS);
  for (let k = 0; k < COLUMNS; k++) {
    const above = ((k + 0.5) / COLUMNS) * SPEED * (DT / 6);
    const yA = R + above;
    spheres.set([k, yA, 0, R, k, yA + 2 * R + gap, 0, R], 8 * k);
    const w = Math.fround(defaultInverseMass(R));
    velocities.set([0, -SPEED, 0, w, 0, -SPEED, 0, w], 8 * k);
  }
  return { spheres, velocities };
}

const FLOOR = [COLUMNS / 2, -0.5, 0, COLUMNS, 0.5, 2, 0, 0, 0, 1];

/** The heavy striker's radius (27 times a light ball's mass). */
const HEAVY = 3 * R;

/** The light balls' common speed (their reach in the step, which the lists cover, is its travel). */
const DRIFT = 3;

/**
 * Column k (along x, 1 apart in y): light balls B and C drifting together at DRIFT along x, C
 * GAP beyond B, and heavy ball H behind B, faster by SPEED, which reaches B within the step's
 * first substeps. Spheres and velocities of 4 floats each (the velocities' w the inverse mass).
 */
function strike(gap: number) {
  const spheres = new Float32Array(12 * COLUMNS);
  const velocities = new Float32Array(12 * COLUMNS);
  const light = Math.fround(defaultInverseMass(R));
  const heavy = Math.fround(defaultInverseMass(HEAVY));
  for (let k = 0; k < COLUMNS; k++) {
    const before = ((k + 0.5) / COLUMNS) * SPEED * (DT / 6);
    const xB = -(2 * R + gap);
    spheres.set([xB - (R + HEAVY) - before, k, 0, HEAVY, xB, k, 0, R, 0, k, 0, R], 12 * k);
    velocities.set([DRIFT + SPEED, 0, 0, heavy, DRIFT, 0, 0, light, DRIFT, 0, 0, light], 12 * k);
  }
  return { spheres, velocities };
}

/** The deepest overlap of each column's light balls B and C, in radii. */
function deepestLightOverlap(spheres: Float32Array): number {
  let worst = 0;
  for (let k = 0; k < COLUMNS; k++) {
    const b = 12 * k + 4;
    const d = Math.hypot(spheres[b + 4] - spheres[b], spheres[b + 5] - spheres[b + 1], spheres[b + 6] - spheres[b + 2]);
    worst = Math.max(worst, (2 * R - d) / R);
  }
  return worst;
}

describe('the step’s pairs', () => {
  it('a ball that bounces off a box within the step stops short of the ball following it: the box contact counts in its strike bound', async () => {
    // B follows A at A's speed, half a radius behind: their relative speed alone leaves the
    // pair out of the step; A's bounce (restitution 0.5) turns it back into B within the step.
    const { spheres, velocities } = column(0.5 * R);
    const world = await createParticleWorld({
      device: gpu.device,
      capacity: 2 * COLUMNS,
      gravity: [0, 0, 0],
      restitution: 0.5,
      friction: 0,
    });
    try {
      const v3 = new Float32Array(6 * COLUMNS);
      for (let i = 0; i < 2 * COLUMNS; i++) v3.set(velocities.subarray(4 * i, 4 * i + 3), 3 * i);
      world.setParticles({ spheres, velocities: v3 });
      world.setColliders({ boxes: new Float32Array(FLOOR) });
      const colliders = {
        poses: new Float32Array([...FLOOR.slice(0, 3), 0, ...FLOOR.slice(3, 6), 0, 0, 0, 0, 1]),
        velocities: new Float32Array(8),
      };
      const params = world.stepParams(DT);
      const twin = new ParticleSolverTwin();
      let cpu: { spheres: Float32Array; velocities: Float32Array } = {
        spheres: spheres.slice(),
        velocities: velocities.slice(),
      };
      let worstGpu = 0;
      let worstTwin = 0;
      for (let step = 0; step < 3; step++) {
        await world.step(DT);
        cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!, colliders);
        worstGpu = Math.max(worstGpu, deepestPairOverlap((await world.read()).spheres, R));
        worstTwin = Math.max(worstTwin, deepestPairOverlap(cpu.spheres, R));
      }
      // Without A's box contact in its strike bound, B ends a whole radius into A.
      expect(worstGpu, 'GPU: deepest A–B overlap, in radii').toBeLessThan(0.02);
      expect(worstTwin, 'twin: deepest A–B overlap, in radii').toBeLessThan(0.02);
    } finally {
      world.destroy();
    }
  });

  it('a light ball struck by a heavy one stops short of the ball beyond it: a strike weighs the struck ball’s share of the inverse mass', async () => {
    // C drifts half a radius beyond B at B's speed: only B's strike bound brings the pair into
    // the step. B leaves H's strike faster by (1 + e) × 27/28 of H's approach (its share of the
    // pair's inverse mass); weighed by H's share (1/28) instead, the pair would stay out and B
    // would end most of a radius into C.
    const { spheres, velocities } = strike(0.5 * R);
    const world = await createParticleWorld({
      device: gpu.device,
      capacity: 3 * COLUMNS,
      gravity: [0, 0, 0],
      restitution: 0.5,
      friction: 0,
    });
    try {
      const v3 = new Float32Array(9 * COLUMNS);
      const w = new Float32Array(3 * COLUMNS);
      for (let i = 0; i < 3 * COLUMNS; i++) {
        v3.set(velocities.subarray(4 * i, 4 * i + 3), 3 * i);
        w[i] = velocities[4 * i + 3];
      }
      world.setParticles({ spheres, velocities: v3, inverseMasses: w });
      const params = world.stepParams(DT);
      const twin = new ParticleSolverTwin();
      let cpu: { spheres: Float32Array; velocities: Float32Array } = {
        spheres: spheres.slice(),
        velocities: velocities.slice(),
      };
      let worstGpu = 0;
      let worstTwin = 0;
      for (let step = 0; step < 3; step++) {
        await world.step(DT);
        cpu = twin.step(cpu.spheres, cpu.velocities, params, world.plan!);
        worstGpu = Math.max(worstGpu, deepestLightOverlap((await world.read()).spheres));
        worstTwin = Math.max(worstTwin, deepestLightOverlap(cpu.spheres));
      }
      // B did leave: H struck it within the first step.
      const read = await world.read();
      expect(read.velocities[3 * 1], 'GPU: B’s speed after the strike').toBeGreaterThan(DRIFT + SPEED);
      expect(worstGpu, 'GPU: deepest B–C overlap, in radii').toBeLessThan(0.02);
      expect(worstTwin, 'twin: deepest B–C overlap, in radii').toBeLessThan(0.02);
    } finally {
      world.destroy();
    }
  });
});
