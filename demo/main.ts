// Runs spherePairs in the browser (navigator.gpu) and checks it against the CPU reference grid.
import { createCollider, reference, describeDevice } from '../src/index.js';

const out = document.getElementById('out')!;
const say = (line: string): void => {
  out.textContent = out.textContent === 'Running…' ? line : `${out.textContent}\n${line}`;
};

try {
  const collider = await createCollider();
  const info = describeDevice(collider.device);
  say(`adapter: ${info?.description || info?.vendor || 'unknown'}${info?.isFallbackAdapter ? ' (software)' : ''}`);
  const n = 50_000;
  const side = Math.cbrt((n * (4 / 3) * Math.PI) / 0.1);
  const spheres = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) spheres.set([Math.random() * side, Math.random() * side, Math.random() * side, 1], 4 * i);
  await collider.spherePairs(spheres);
  const t = performance.now();
  const pairs = await collider.spherePairs(spheres, { profile: true });
  const wall = performance.now() - t;
  const cpu = reference.gridSpherePairs(spheres, collider.planFor(spheres));
  say(`${n} spheres: ${pairs.length / 2} pairs in ${wall.toFixed(1)} ms (GPU ${collider.lastProfile?.totalMs.toFixed(2) ?? '?'} ms)`);
  say(pairs.length === cpu.length ? 'same count as the CPU reference grid' : `MISMATCH: CPU reference has ${cpu.length / 2}`);
} catch (error) {
  say(`error: ${(error as Error).message}`);
}
