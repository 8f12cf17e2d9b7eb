/**
 * End to end: build the demo, serve it on localhost, open it in headless Chromium (Debian's
 * /usr/bin/chromium, WebGPU on SwiftShader), and check what a person would see: frames render,
 * particles move, a pick on a known particle hits it (through a real mouse move), the self-check
 * passes, the particles pour out of the hopper (box colliders, which stay put) and pile up on the
 * floor inside the walls, a particle of the pile can be dragged and pushed with the mouse, the
 * paddle (a kinematic box) dragged with the mouse pushes the pile and none of it ends inside the
 * box, and nothing goes wrong on the way (no WebGPU error, no console error, no failed request);
 * screenshots go to test-results/. Without WebGPU, the page says so.
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
  server = await preview({
    configFile: 'vite.config.ts',
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
    logLevel: 'warn',
  });
  url = server.resolvedUrls!.local[0];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  mkdirSync('test-results', { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.httpServer.close(() => resolve()));
});

/** Console errors, uncaught page errors and failed requests (a missing favicon is one) of a page. */
const problems = new WeakMap<Page, string[]>();

async function open(path: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 750 } });
  const seen: string[] = [];
  problems.set(page, seen);
  page.on('console', (message) => {
    if (message.type() === 'error') seen.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => seen.push(`page: ${error.message}`));
  page.on('requestfailed', (request) =>
    seen.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400) seen.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  await page.goto(new URL(path, url).toString());
  return page;
}

const demo = <T>(page: Page, fn: string): Promise<T> => page.evaluate(fn) as Promise<T>;

/** Waits until the page has simulated `seconds` since its start (the world advances 1/60 s a frame; 1/30 s on a software adapter). */
async function simulateUntil(page: Page, seconds: number, timeout: number): Promise<void> {
  await page.waitForFunction(`window.__demo.time >= ${seconds}`, undefined, { timeout, polling: 250 });
}

const positions = (page: Page): Promise<number[]> =>
  demo<number[]>(page, 'window.__demo.positions().then((p) => Array.from(p))');

/** Pauses the demo once it has simulated `seconds`, reads the positions, and lets it run on: the state at a known time. */
async function positionsAt(page: Page, seconds: number, timeout: number): Promise<{ time: number; p: number[] }> {
  await simulateUntil(page, seconds, timeout);
  await demo(page, 'window.__demo.setPaused(true)');
  const time = await demo<number>(page, 'window.__demo.time');
  const p = await positions(page);
  await demo(page, 'window.__demo.setPaused(false)');
  return { time, p };
}

describe('the particle demo in Chromium', () => {
  it('renders colliding particles, picks the particle under the pointer, passes its self-check, pours a pile', async () => {
    // 600 particles pour in about 5 simulated seconds and rest by 8.5 (SwiftShader: the demo steps
    // 1/30 s a frame there, at several frames a second). The demo's steps do not depend on the
    // machine's speed: read paused, the moving ones over each half second from 5 s are 129, 84,
    // 52, 35, 18, 3, then none from 8.1 s to 12 s; from 9 to 10 s the test allows 17.
    const count = 600;
    const page = await open(`/?count=${count}&selftest`);
    try {
      await page.waitForFunction('window.__demo.frames > 20', undefined, { timeout: 90_000 });
      expect(await demo<string[]>(page, 'window.__demo.errors'), 'page errors').toEqual([]);
      expect(await demo<number>(page, 'window.__demo.particleCount')).toBe(count);
      const scene = (await demo<{
        bounds: number[];
        spoutY: number;
        hopperTop: number;
        hopperBoxes: number;
        paddle: number;
        boxes: number;
      }>(page, 'window.__demo.scene'))!;
      expect(scene.hopperBoxes, 'the hopper and its spout are box colliders').toBeGreaterThan(0);
      expect(scene.boxes, 'and one more, the paddle').toBe(scene.hopperBoxes + 1);
      const boxPoses = (): Promise<number[]> =>
        demo<number[]>(page, 'window.__demo.boxes().then((p) => Array.from(p))');
      expect(await page.locator('#stats').textContent()).toMatch(/fps · frame \d+(\.\d)? ms · 600 particles/);

      // Particles move: the state changes from one moment to the next (they start loose in the
      // hopper and fall); the hopper's boxes (and the paddle, not dragged) are static.
      const before = await positions(page);
      const boxesBefore = await boxPoses();
      await page.waitForFunction(
        `window.__demo.frames > ${(await demo<number>(page, 'window.__demo.frames')) + 10}`,
        undefined,
        { timeout: 60_000 },
      );
      const after = await positions(page);
      let moved = 0;
      for (let i = 0; i < 4 * count; i += 4)
        if (Math.hypot(after[i] - before[i], after[i + 1] - before[i + 1], after[i + 2] - before[i + 2]) > 1e-3)
          moved++;
      expect(moved, 'particles that moved').toBeGreaterThan(0.5 * count);
      expect(boxesBefore.length).toBe(12 * scene.boxes);
      expect(await boxPoses(), 'the hopper and the paddle stay put').toEqual(boxesBefore);

      // Pick: pause, find the particle whose surface is nearest the eye (nothing can be in front
      // of it), move the real mouse over its centre, and wait for the hover highlight.
      await demo(page, 'window.__demo.setPaused(true)');
      await page.waitForTimeout(300);
      const front = await demo<{ index: number; x: number; y: number }>(page, 'window.__demo.frontParticle()');
      expect(await demo<number>(page, `window.__demo.pickAt(${front.x}, ${front.y})`)).toBe(front.index);
      await page.mouse.move(front.x - 5, front.y - 5);
      await page.mouse.move(front.x, front.y);
      await page.waitForFunction(`window.__demo.hovered === ${front.index}`, undefined, { timeout: 30_000 });
      await page.mouse.move(1, 1); // off the particles, so that the pour below is not hovered

      await page.waitForFunction('window.__demo.selftest !== null', undefined, { timeout: 90_000 });
      const selftest = await demo<{ ok: boolean; checks: { name: string; ok: boolean; detail: string }[] }>(
        page,
        'window.__demo.selftest',
      );
      expect(selftest.checks.filter((c) => !c.ok)).toEqual([]);
      expect(selftest.ok).toBe(true);

      // The pour: some simulated seconds later the particles have left the hopper and lie on the
      // floor in a pile that has come to rest, every one inside the walls. Each read is made
      // paused, so that the demo does not step while the positions come back: the window is the
      // 1 s asked for, however slowly the machine runs it.
      await demo(page, 'window.__demo.setPaused(false)');
      const { time: restFrom, p: first } = await positionsAt(page, 9, 400_000);
      const { time: restTo, p: pile } = await positionsAt(page, restFrom + 1, 120_000);
      const [x0, y0, z0, x1, y1, z1] = scene.bounds;
      let outside = 0;
      let poured = 0;
      let lowerHalf = 0;
      let resting = 0;
      for (let i = 0; i < count; i++) {
        const [x, y, z, r] = pile.slice(4 * i, 4 * i + 4);
        const slack = 1e-3 * (1 + x1);
        if (
          x - r < x0 - slack ||
          x + r > x1 + slack ||
          y - r < y0 - slack ||
          y + r > y1 + slack ||
          z - r < z0 - slack ||
          z + r > z1 + slack
        )
          outside++;
        if (y < scene.spoutY) poured++;
        if (y < (y0 + y1) / 2) lowerHalf++;
        if (Math.hypot(x - first[4 * i], y - first[4 * i + 1], z - first[4 * i + 2]) < 0.05) resting++;
      }
      expect(outside, 'particles outside the walls').toBe(0);
      expect(poured, 'particles out of the hopper').toBeGreaterThan(0.95 * count);
      expect(lowerHalf, 'particles in the lower half of the box').toBeGreaterThan(0.95 * count);
      expect(
        resting,
        `particles at rest (moved < 0.05 from ${restFrom.toFixed(2)} s to ${restTo.toFixed(2)} s)`,
      ).toBeGreaterThan(0.97 * count);
      await page.screenshot({ path: 'test-results/demo.png' });

      // Drag: paused, press on the pile's particle nearest the eye and move the mouse up: the
      // particle follows the pointer.
      await demo(page, 'window.__demo.setPaused(true)');
      const target = await demo<{ index: number; x: number; y: number }>(page, 'window.__demo.frontParticle(true)');
      expect(
        await demo<number>(page, `window.__demo.pickAt(${target.x}, ${target.y})`),
        'the pile particle is in front',
      ).toBe(target.index);
      await page.mouse.move(target.x, target.y);
      await page.mouse.down();
      await page.waitForFunction(`window.__demo.dragged === ${target.index}`, undefined, { timeout: 30_000 });
      const [x, y] = [target.x, target.y - 80];
      await page.mouse.move(x, y, { steps: 4 });
      await page.mouse.up();
      const lifted = await positions(page);
      expect(
        lifted[4 * target.index + 1] - pile[4 * target.index + 1],
        'height gained by the dragged particle',
      ).toBeGreaterThan(1);

      // Push: shift-click the lifted particle; stepping again, it flies off (15 units/s).
      expect(
        await demo<number>(page, `window.__demo.pickAt(${x}, ${y})`),
        'the lifted particle is under the pointer',
      ).toBe(target.index);
      await page.keyboard.down('Shift');
      await page.mouse.click(x, y);
      await page.keyboard.up('Shift');
      await page.waitForFunction(`window.__demo.pushed === ${target.index}`, undefined, { timeout: 30_000 });
      const velocities = await demo<number[]>(page, 'window.__demo.velocities().then((v) => Array.from(v))');
      const speed = Math.hypot(...[0, 1, 2].map((a) => velocities[3 * target.index + a]));
      expect(speed, 'speed the push gave the particle').toBeCloseTo(15, 3);
      await demo(page, 'window.__demo.setPaused(false)');
      await simulateUntil(page, (await demo<number>(page, 'window.__demo.time')) + 10 / 60, 60_000);
      const pushed = await positions(page);
      const travel = Math.hypot(...[0, 1, 2].map((a) => pushed[4 * target.index + a] - lifted[4 * target.index + a]));
      // It flies at 15 units/s, 2.5 in 10 frames if nothing is in the way; the push is along the
      // view ray, towards the pile behind it, which may stop it early: at least one frame's flight.
      expect(travel, 'distance the pushed particle flew in 10 frames').toBeGreaterThan(0.25);

      // The paddle: press on a part of it that no particle hides (its upper edge, along its
      // length), drag the mouse towards the far wall, as a person would: it follows at its
      // capped speed, pushes the pile ahead of it, and no particle ends inside it.
      const poses = await boxPoses();
      expect(poses.slice(0, 12 * scene.hopperBoxes), 'the hopper has not moved').toEqual(
        boxesBefore.slice(0, 12 * scene.hopperBoxes),
      );
      const [cx, cy, cz, , hx, hy, hz] = poses.slice(12 * scene.paddle, 12 * scene.paddle + 7);
      // Candidates, the likeliest first: the top face's centre line along z (the camera looks down
      // on it; only a particle lying on the paddle can hide it), then a grid over the face towards
      // the pile, high to low. The pile is poured by a GPU whose atomics order it differently from
      // run to run: any single point may be hidden, not all of them.
      const candidates: number[][] = [];
      const along = Array.from({ length: 19 }, (_, k) => -0.9 + 0.1 * k);
      for (const dz of along) candidates.push([cx, cy + hy, cz + dz * hz]);
      for (const dy of [0.9, 0.7, 0.5, 0.3])
        for (const dz of along.filter((_, k) => k % 2 === 0)) candidates.push([cx + hx, cy + dy * hy, cz + dz * hz]);
      let grab: { x: number; y: number } | null = null;
      const took: string[] = [];
      for (const point of candidates) {
        const at = await demo<{ x: number; y: number }>(page, `window.__demo.screenOf([${point.join(', ')}])`);
        const takes = await demo<{ kind: string; index: number }>(page, `window.__demo.grabAt(${at.x}, ${at.y})`);
        if (takes.kind === 'box' && takes.index === scene.paddle) {
          grab = at;
          break;
        }
        took.push(`${takes.kind} ${takes.index}`);
      }
      expect(
        grab,
        `a point of the paddle that a press takes hold of (took instead: ${took.join(', ')})`,
      ).not.toBeNull();
      const pileBefore = await positions(page);
      // Where the pointer's ray meets the paddle's plane moves by the same step as the paddle: aim
      // the mouse at the point 6 units along +x from the grabbed one (by the page's own projection).
      const [fromCentre, toCentre] = await Promise.all([
        demo<{ x: number; y: number }>(page, `window.__demo.screenOf([${cx}, ${cy}, ${cz}])`),
        demo<{ x: number; y: number }>(page, `window.__demo.screenOf([${cx + 6}, ${cy}, ${cz}])`),
      ]);
      await page.mouse.move(grab!.x, grab!.y);
      await page.mouse.down();
      await page.waitForFunction(`window.__demo.boxDragged === ${scene.paddle}`, undefined, { timeout: 30_000 });
      await page.mouse.move(grab!.x + toCentre.x - fromCentre.x, grab!.y + toCentre.y - fromCentre.y, { steps: 8 });
      await expect
        .poll(async () => (await boxPoses())[12 * scene.paddle] - cx, {
          timeout: 120_000,
          interval: 250,
          message: 'distance the paddle moved along x',
        })
        .toBeGreaterThan(5);
      const boxSpeed = Math.hypot(...(await demo<number[]>(page, 'window.__demo.boxVelocity')));
      await page.mouse.up();
      await page.waitForFunction(`window.__demo.boxDragged === -1`, undefined, { timeout: 30_000 });
      await simulateUntil(page, (await demo<number>(page, 'window.__demo.time')) + 5 / 30, 60_000);
      expect(await demo<number[]>(page, 'window.__demo.boxVelocity'), 'released, the paddle stops').toEqual([0, 0, 0]);
      const done = await boxPoses();
      const paddleAt = done.slice(12 * scene.paddle, 12 * scene.paddle + 3);
      expect(paddleAt[0] - cx, 'the paddle moved about 6 along x').toBeGreaterThan(5);
      expect(paddleAt[0] - cx).toBeLessThan(7);
      expect(Math.abs(paddleAt[1] - cy) + Math.abs(paddleAt[2] - cz), 'and not up or sideways').toBeLessThan(0.6);
      expect(done.slice(0, 12 * scene.hopperBoxes), 'the hopper has not moved').toEqual(
        boxesBefore.slice(0, 12 * scene.hopperBoxes),
      );
      const pileAfter = await positions(page);
      let shoved = 0;
      let inside = 0;
      for (let i = 0; i < count; i++) {
        if (pileAfter[4 * i] - pileBefore[4 * i] > 0.5) shoved++;
        const [x, y, z] = pileAfter.slice(4 * i, 4 * i + 3);
        if (Math.abs(x - paddleAt[0]) < hx && Math.abs(y - paddleAt[1]) < hy && Math.abs(z - paddleAt[2]) < hz)
          inside++;
      }
      expect(shoved, 'particles the paddle pushed along x by 0.5 or more').toBeGreaterThan(20);
      expect(inside, 'particle centres inside the paddle').toBe(0);
      await page.screenshot({ path: 'test-results/demo-paddle.png' });
      expect(boxSpeed, "the paddle's speed while dragged (units/s)").toBeLessThanOrEqual(12 + 1e-6);

      expect(await demo<string[]>(page, 'window.__demo.errors'), 'page errors').toEqual([]);
      expect(problems.get(page), 'console errors and failed requests').toEqual([]);
    } finally {
      await page.close();
    }
  }, 600_000);

  it('sized from the adapter; ray rain: thousands of GPU raycasts a frame, drawn from the GPU, no errors', async () => {
    const page = await open('/');
    try {
      await page.waitForFunction('window.__demo.frames > 5', undefined, { timeout: 90_000 });
      // No ?count: the adapter picks. SwiftShader is a software adapter: 400 particles, 1/30 s a
      // frame, and the stats say so and how to ask for more; a GPU would get 100,000.
      const software = await demo<boolean>(page, 'window.__demo.fallback');
      expect(await demo<number>(page, 'window.__demo.particleCount')).toBe(software ? 400 : 100_000);
      if (software) {
        expect(await demo<number>(page, 'window.__demo.frameDt')).toBeCloseTo(1 / 30, 9);
        await expect
          .poll(() => page.locator('#stats').textContent())
          .toMatch(/software adapter.*400 particles by default.*\?count=N/);
      }
      // Turn on the GUI toggle as a person would.
      await page.getByText('ray rain', { exact: true }).click();
      const frames = await demo<number>(page, 'window.__demo.frames');
      await page.waitForFunction(`window.__demo.frames > ${frames + 10}`, undefined, { timeout: 60_000 });
      await page.screenshot({ path: 'test-results/demo-ray-rain.png' });
      expect(await demo<string[]>(page, 'window.__demo.errors')).toEqual([]);
      expect(problems.get(page), 'console errors and failed requests').toEqual([]);
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
