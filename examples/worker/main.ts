/**
 * The page: starts the worker, asks it for a run and prints the answer, while a frame counter
 * keeps ticking to show that the main thread is never blocked.
 */
import { WORKER_SIZES, type WorkerRequest, type WorkerReply } from './shared.js';

const out = document.querySelector('#out')!;
const frames = document.querySelector('#frames')!;
let frame = 0;
const tick = (): void => {
  frames.textContent = `main thread frames: ${++frame}`;
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);

const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
worker.onmessage = (event: MessageEvent<WorkerReply | { error: string }>) => {
  const reply = event.data;
  if ('error' in reply) {
    out.textContent = `worker failed: ${reply.error}`;
    return;
  }
  const fell = (reply.before[1] - reply.after[1]).toFixed(3);
  const { gpu, software } = WORKER_SIZES;
  out.textContent = [
    `device: ${reply.device}`,
    reply.software
      ? `software adapter: ${software.n.toLocaleString('en')} spheres and ${software.particles.toLocaleString('en')} particles (${gpu.n.toLocaleString('en')} and ${gpu.particles.toLocaleString('en')} on a GPU)`
      : `${gpu.n.toLocaleString('en')} spheres and ${gpu.particles.toLocaleString('en')} particles`,
    `spherePairs: ${reply.pairs.length / 2} overlapping pairs in ${reply.pairsMs.toFixed(1)} ms`,
    `world: ${reply.after.length / 4} particles, ${reply.stepMs.toFixed(1)} ms a step; particle 0 fell ${fell}`,
  ].join('\n');
  worker.terminate();
};
worker.onerror = (event) => (out.textContent = `worker failed: ${event.message}`);
worker.postMessage({ seed: 1, steps: 30 } satisfies WorkerRequest); // the sizes: by the worker's adapter
out.textContent = 'working in the worker…';
