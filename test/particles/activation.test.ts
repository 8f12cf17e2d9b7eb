/**
 * The step's choice of pairs (formula.pairReach, particleSplit's strike bounds): a listed pair
 * takes part in the step's solve when its gap is within the margin plus what it may close in the
 * step at its relative speed and both particles' strike bounds. Balls that move together are
 * left out; a ball whose speed a contact of the step changes (a box it bounces off, a ball that
 * strikes it: bands.test.ts) keeps its pairs with the balls it may then meet.
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
});
