/**
 * The particle world's first use: particles dropped into a box pile up and come to rest.
 * 8,000 spheres of radius 0.5 (on a GPU; 1,000 on a software adapter, where 8,000 take about a
 * minute and a half on 2 cores) fall into a 20 × 60 × 20 box; every simulated second the example
 * prints what a user would look at: particles through a wall, the touching pairs, kinetic
 * energy, the height of the pile, and the time per step.
 *
 *   npm run example:pile [-- N]
 */
import { requestNodeDevice, createParticleWorld, describeDevice } from 'webgpu-collide/node';

const device = await requestNodeDevice();
const info = describeDevice(device);
console.log(
  `adapter: ${info?.description} (${info?.vendor}, ${info?.architecture})${info?.software ? ', software' : ''}`,
);
const n = Number(process.argv[2] ?? (info?.software ? 1000 : 8000));
console.log(
  process.argv[2] !== undefined
    ? `${n.toLocaleString('en')} particles`
    : `${n.toLocaleString('en')} particles${info?.software ? ' (a software adapter: 8,000 on a GPU)' : ''}; npm run example:pile -- N for another count`,
);
const r = 0.5;
const bounds = [0, 0, 0, 20, 60, 20];

// Centres at random in the box, at rest (many overlap at first: they come apart gently).
let seed = 7;
const random = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
const spheres = new Float32Array(4 * n);
for (let i = 0; i < n; i++) spheres.set([r + random() * 19, r + random() * 59, r + random() * 19, r], 4 * i);

const world = await createParticleWorld({
  device,
  capacity: n,
  bounds,
  gravity: [0, -9.8, 0],
  restitution: 0.2,
  friction: 0.5,
});
world.setParticles({ spheres, velocities: new Float32Array(3 * n) });

for (let second = 1; second <= 10; second++) {
  const start = performance.now();
  for (let frame = 0; frame < 60; frame++) await world.step(1 / 60); // one step a frame, 6 substeps each
  const ms = (performance.now() - start) / 60;
  const { spheres: s, velocities: v } = await world.read();
  let sunk = 0,
    top = 0,
    kinetic = 0;
  for (let i = 0; i < n; i++) {
    if ([0, 1, 2].some((a) => s[4 * i + a] - r < bounds[a] - 0.05 || s[4 * i + a] + r > bounds[a + 3] + 0.05)) sunk++;
    top = Math.max(top, s[4 * i + 1] + r);
    kinetic += 0.5 * ((4 / 3) * Math.PI * r ** 3) * (v[3 * i] ** 2 + v[3 * i + 1] ** 2 + v[3 * i + 2] ** 2);
  }
  console.log(
    `t = ${second} s: ${sunk} through a wall, top of the pile ${top.toFixed(2)}, kinetic energy ${(kinetic / n).toExponential(1)} per particle, ${await world.contactCount()} touching pairs, ${ms.toFixed(1)} ms a step`,
  );
}
world.destroy();
device.destroy();
