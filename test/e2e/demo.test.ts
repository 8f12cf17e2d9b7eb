/**
 * End to end: build the demo, serve it on localhost, open it in headless Chromium (Debian's
 * /usr/bin/chromium, WebGPU on SwiftShader), and check what a person would see: frames render,
 * particles move, a pick on a known particle hits it (through a real mouse move), the self-check
 * passes, no WebGPU error; a screenshot goes to test-results/. Without WebGPU, the page says so.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync } from 'node:fs';
import { build, preview, type PreviewServer } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../vitest.config.js';

let server: PreviewServer;
let browser: Browser;
let url: string;

beforeAll(async () => {
  await build({ configFile: 'vite.config.ts', logLevel: 'warn' });
  server = await preview({ configFile: 'vite.config.ts', preview: { host: '127.0.0.1', port: 0, strictPort: false }, logLevel: 'warn' });
  url = server.resolvedUrls!.local[0];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  mkdirSync('test-results', { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.httpServer.close(() => resolve()));
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 750 } });
  await page.goto(new URL(path, url).toString());
  return page;
}

const demo = <T>(page: Page, fn: string): Promise<T> => page.evaluate(fn) as Promise<T>;

describe('the particle demo in Chromium', () => {
  it('renders colliding particles, picks the particle under the pointer, passes its self-check', async () => {
    const page = await open('/?count=2000&selftest');
    try {
      await page.waitForFunction('window.__demo.frames > 20', undefined, { timeout: 90_000 });
      expect(await demo<string[]>(page, 'window.__demo.errors'), 'page errors').toEqual([]);
      expect(await demo<number>(page, 'window.__demo.particleCount')).toBe(2000);

      // Particles move: the state changes from one moment to the next.
      const before = await demo<number[]>(page, 'window.__demo.positions().then((p) => Array.from(p))');
      await page.waitForFunction(`window.__demo.frames > ${(await demo<number>(page, 'window.__demo.frames')) + 10}`, undefined, { timeout: 60_000 });
      const after = await demo<number[]>(page, 'window.__demo.positions().then((p) => Array.from(p))');
      let moved = 0;
      for (let i = 0; i < before.length; i += 4) if (Math.hypot(after[i] - before[i], after[i + 1] - before[i + 1], after[i + 2] - before[i + 2]) > 1e-3) moved++;
      expect(moved, 'particles that moved').toBeGreaterThan(1500);

      // Pick: pause, find the particle whose surface is nearest the eye (nothing can be in front
      // of it), move the real mouse over its centre, and wait for the hover highlight.
      await demo(page, 'window.__demo.setPaused(true)');
      await page.waitForTimeout(300);
      const front = await demo<{ index: number; x: number; y: number }>(page, 'window.__demo.frontParticle()');
      expect(await demo<number>(page, `window.__demo.pickAt(${front.x}, ${front.y})`)).toBe(front.index);
      await page.mouse.move(front.x - 5, front.y - 5);
      await page.mouse.move(front.x, front.y);
      await page.waitForFunction(`window.__demo.hovered === ${front.index}`, undefined, { timeout: 30_000 });

      await page.waitForFunction('window.__demo.selftest !== null', undefined, { timeout: 90_000 });
      const selftest = await demo<{ ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }>(page, 'window.__demo.selftest');
      expect(selftest.checks.filter((c) => !c.ok)).toEqual([]);
      expect(selftest.ok).toBe(true);

      await demo(page, 'window.__demo.setPaused(false)');
      await page.waitForTimeout(1500);
      await page.screenshot({ path: 'test-results/demo.png' });
      expect(await demo<string[]>(page, 'window.__demo.errors'), 'page errors').toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('ray rain: thousands of GPU raycasts a frame, drawn from the GPU, no errors', async () => {
    const page = await open('/?count=2000');
    try {
      await page.waitForFunction('window.__demo.frames > 5', undefined, { timeout: 90_000 });
      // Turn on the GUI toggle as a person would.
      await page.getByText('ray rain', { exact: true }).click();
      const frames = await demo<number>(page, 'window.__demo.frames');
      await page.waitForFunction(`window.__demo.frames > ${frames + 10}`, undefined, { timeout: 60_000 });
      await page.screenshot({ path: 'test-results/demo-ray-rain.png' });
      expect(await demo<string[]>(page, 'window.__demo.errors')).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('without WebGPU the page explains what to use instead of showing a blank canvas', async () => {
    const page = await browser.newPage();
    try {
      await page.addInitScript(() => {
        Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
        delete (Navigator.prototype as unknown as { gpu?: unknown }).gpu;
      });
      await page.goto(url);
      const message = page.locator('#message');
      await message.waitFor({ state: 'visible', timeout: 30_000 });
      await expect.poll(() => message.textContent()).toMatch(/WebGPU/);
      expect(await message.textContent()).toMatch(/Chrome|Edge|Safari|Firefox/);
      await page.screenshot({ path: 'test-results/demo-no-webgpu.png' });
    } finally {
      await page.close();
    }
  });
});
