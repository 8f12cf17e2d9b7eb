/**
 * A dedicated worker that does the collision work off the main thread: `navigator.gpu` exists in
 * dedicated workers (Chromium, Firefox, Deno), so the library runs there unchanged. It answers
 * each WorkerRequest with a WorkerReply (shared.ts), and then lets go of its device.
 */
import { requestBrowserDevice, describeDevice, createCollider, createParticleWorld } from '../../src/index.js';
import { seededSpheres, WORKER_SIZES, type WorkerRequest, type WorkerReply } from './shared.js';

async function run(request: WorkerRequest): Promise<WorkerReply> {
  const device = await requestBrowserDevice();
  const software = Boolean(describeDevice(device)?.software);
  const { seed, steps } = request;
  const n = request.n ?? WORKER_SIZES[software ? 'software' : 'gpu'].n;
  const particles = request.particles ?? WORKER_SIZES[software ? 'software' : 'gpu'].particles;
  try {
    // Overlapping pairs of a seeded scene.
    const collider = await createCollider({ device });
    let t = performance.now();
    const pairs = await collider.spherePairs(seededSpheres(n, seed));
    const pairsMs = performance.now() - t;
    collider.destroy();

    // A small world: particles in a box under gravity, stepped at 60 Hz.
    const before = seededSpheres(particles, seed + 1);
    const side = Math.max(...before.filter((_, k) => k % 4 !== 3)) + 1;
    const world = await createParticleWorld({
      device,
      capacity: particles,
      bounds: [-1, -1, -1, side, side, side],
      gravity: [0, -9.8, 0],
    });
    world.setParticles({ spheres: before, velocities: new Float32Array(3 * particles) });
    t = performance.now();
    for (let k = 0; k < steps; k++) await world.step(1 / 60);
    const { spheres: after } = await world.read();
    const stepMs = (performance.now() - t) / steps;
    world.destroy();

    return {
      device: describeDevice(device)?.label ?? 'unknown device',
      software,
      n,
      particles,
      pairs,
      pairsMs,
      before,
      after,
      stepMs,
    };
  } finally {
    device.destroy();
  }
}

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  try {
    const reply = await run(event.data);
    (self as unknown as Worker).postMessage(reply, [reply.pairs.buffer, reply.before.buffer, reply.after.buffer]);
  } catch (error) {
    (self as unknown as Worker).postMessage({ error: String((error as Error)?.stack ?? error) });
  }
};
