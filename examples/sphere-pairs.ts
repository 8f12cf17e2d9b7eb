/**
 * The headless example: 100,000 random spheres, their overlapping pairs on the GPU with both
 * broad phases, checked against the CPU reference grid, with timings.
 *
 *   npm run example [-- N]
 */
import { requestNodeDevice, createCollider, describeDevice, reference } from 'webgpu-collide/node';

const n = Number(process.argv[2] ?? 100_000);
const device = await requestNodeDevice();
const info = describeDevice(device);
console.log(
  `adapter: ${info?.description} (${info?.vendor}, ${info?.architecture})${info?.software ? ', software' : ''}`,
);
console.log(`${n.toLocaleString('en')} spheres of radius 1 (npm run example -- N for another count)`);
const collider = await createCollider({ device });

// Spheres of radius 1 in a box, filling a tenth of its volume.
const side = Math.cbrt((n * (4 / 3) * Math.PI) / 0.1);
const spheres = new Float32Array(4 * n);
let seed = 42;
const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
for (let i = 0; i < n; i++) spheres.set([random() * side, random() * side, random() * side, 1], 4 * i);

let t = performance.now();
const cpu = reference.gridSpherePairs(spheres, collider.planFor(spheres));
console.log(`CPU reference grid: ${cpu.length / 2} pairs in ${(performance.now() - t).toFixed(1)} ms`);
const expected = new Set(Array.from({ length: cpu.length / 2 }, (_, k) => `${cpu[2 * k]},${cpu[2 * k + 1]}`));

for (const broadphase of ['grid', 'all-pairs'] as const) {
  if (broadphase === 'all-pairs' && n > 50_000 && info?.software) {
    console.log('all-pairs: skipped (N²/2 tests on a software adapter would take minutes)');
    continue;
  }
  await collider.spherePairs(spheres, { broadphase }); // warm-up: pipelines and buffers
  t = performance.now();
  const pairs = await collider.spherePairs(spheres, { broadphase, profile: true });
  const wall = performance.now() - t;
  const same =
    pairs.length === cpu.length &&
    Array.from({ length: pairs.length / 2 }, (_, k) => `${pairs[2 * k]},${pairs[2 * k + 1]}`).every((p) =>
      expected.has(p),
    );
  const stages = collider.lastProfile?.stages.map((s) => `${s.name} ${s.ms.toFixed(2)}`).join(', ');
  console.log(
    `${broadphase}: ${pairs.length / 2} pairs in ${wall.toFixed(1)} ms wall (GPU: ${stages || 'no timestamps'}), ${same ? 'same as the CPU reference' : 'DIFFERENT from the CPU reference'}`,
  );
  console.log(
    `  first pairs (i, j): ${Array.from({ length: Math.min(5, pairs.length / 2) }, (_, k) => `(${pairs[2 * k]}, ${pairs[2 * k + 1]})`).join(' ')}`,
  );
}
collider.destroy();
device.destroy();
