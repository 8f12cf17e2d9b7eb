/**
 * The three.js example's frame time (examples/three): served with Vite, opened in headless
 * Chromium with the flags of the test projects (vitest.config.ts: WebGPU on SwiftShader here),
 * once per particle count. Each frame records a world step (1/60 s with the world's default
 * substeps and iterations) and renders every particle from the world's buffer. After a warm-up
 * the page times `frames` frames of its animation loop (performance.now() when the loop's frame
 * counter moves); the median and range of the intervals are printed, with the fps the page shows.
 *
 *   npx tsx scripts/three-frame-time.ts [--sizes 10000,100000] [--frames 5]
 */
import { parseArgs } from 'node:util';
import { createServer } from 'vite';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../vitest.config.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '10000,100000' }, frames: { type: 'string', default: '5' } },
});
const sizes = values.sizes.split(',').map(Number);
const frames = Number(values.frames);
if (sizes.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(frames) || frames < 2) {
  console.error('usage: three-frame-time.ts [--sizes N,...] [--frames K ≥ 2]');
  process.exit(2);
}

const server = await createServer({
  root: 'examples/three',
  configFile: false,
  logLevel: 'error',
  server: { host: '127.0.0.1', port: 0 },
});
await server.listen();
const url = server.resolvedUrls!.local[0];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
const median = (v: number[]): number => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
try {
  for (const n of sizes) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${url}?n=${n}`);
    await page.waitForFunction('window.__three?.frames >= 3', undefined, { timeout: 600_000, polling: 100 });
    const stamps = await page.evaluate(async (k) => {
      const three = (window as unknown as { __three: { frames: number } }).__three;
      const out: number[] = [];
      let last = three.frames;
      while (out.length <= k) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (three.frames !== last) {
          last = three.frames;
          out.push(performance.now());
        }
      }
      return out;
    }, frames);
    const gaps = stamps.slice(1).map((t, i) => t - stamps[i]);
    const status = (await page.locator('#status').textContent())?.split('\n')[0];
    console.log(
      `${n.toLocaleString('en')} particles: frame ${median(gaps).toFixed(0)} ms median (${Math.min(...gaps).toFixed(0)}–${Math.max(...gaps).toFixed(0)}, ${gaps.length} frames); page shows "${status}"${errors.length ? `; errors: ${errors.join('; ')}` : ''}`,
    );
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
