/**
 * End to end: the three.js example (examples/three) built, served on localhost and opened in
 * headless Chromium (WebGPU on SwiftShader, the flags of vitest.config.ts). It renders (the canvas
 * is not blank), the particles move from one screenshot to the next, a click on a particle picks
 * it with a GPU raycast and draws it highlighted (over everything, so in sight while the pile
 * moves), a click on the turning torus knot picks one of its triangles (raycastMesh at the knot's
 * pose, nearer than any particle) and draws it red, a click on the sky misses both and clears the
 * highlights, and nothing goes wrong on the way (no console error, no page error, no failed
 * request). The page sizes itself
 * from the adapter: on SwiftShader, a software adapter, 1,000 particles (about 10 fps there), not
 * a GPU's 100k, and its status says so and how to ask for more (`?n=`).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview, type PreviewServer, type InlineConfig } from 'vite';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../vitest.config.js';

const N = 1000;
const VIEWPORT = { width: 640, height: 480 };
let server: PreviewServer;
let browser: Browser;
let url: string;
let outDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'three-example-'));
  const config: InlineConfig = {
    root: 'examples/three',
    configFile: false,
    logLevel: 'warn',
    build: { outDir, emptyOutDir: true, target: 'es2022' },
  };
  await build(config);
  server = await preview({ ...config, preview: { host: '127.0.0.1', port: 0, strictPort: false } });
  url = server.resolvedUrls!.local[0];
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  mkdirSync('test-results', { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (server ? server.httpServer.close(() => resolve()) : resolve()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/**
 * A screenshot, decoded by the page itself (no PNG library) and kept there, in
 * `window.__shots[name]`, so that only the numbers below cross the protocol.
 */
async function shot(page: Page, name: string): Promise<void> {
  const png = await page.screenshot({ path: `test-results/three-${name}.png` });
  await page.evaluate(
    async ([name, base64]) => {
      const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
      const context = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
      context.drawImage(bitmap, 0, 0);
      const shots = ((window as unknown as { __shots?: Record<string, ImageData> }).__shots ??= {});
      shots[name] = context.getImageData(0, 0, bitmap.width, bitmap.height);
    },
    [name, png.toString('base64')],
  );
}

/** A spot on the page, in CSS pixels (the screenshots' pixels: device scale 1). */
type Spot = { x: number; y: number };

/**
 * What the shots show: the share of pixels in particle blue (the background, floor and box lines
 * are dark and grey), in the knot's gold and in the highlights' red, the share that changed from
 * `before`, the spot nearest the middle whose 5×5 neighbourhood is all particle (a sure place to
 * click), and the gold and red pixels within `radius` of `near`.
 */
function measure(
  page: Page,
  name: string,
  before?: string,
  near?: Spot,
  radius = 12,
): Promise<{
  particle: number;
  knot: number;
  red: number;
  changed: number;
  spot: Spot | null;
  knotNear: number;
  redNear: number;
}> {
  return page.evaluate(
    ([name, before, near, radius]) => {
      const shots = (window as unknown as { __shots: Record<string, ImageData> }).__shots;
      const { data, width, height } = shots[name];
      const particle = (i: number): boolean => data[i + 2] > 100 && data[i + 2] > data[i] + 50;
      const red = (i: number): boolean => data[i] > 150 && data[i] > data[i + 1] + 60 && data[i] > data[i + 2] + 40;
      // The knot's gold (0xe0c040), lit or in shade: red and green alike, little blue.
      const gold = (i: number): boolean =>
        data[i + 1] > 40 &&
        data[i] >= 0.9 * data[i + 1] &&
        data[i] < 1.5 * data[i + 1] &&
        data[i + 2] < 0.55 * data[i + 1];
      let [blues, golds, reds, changed, knotNear, redNear] = [0, 0, 0, 0, 0, 0];
      for (let i = 0; i < data.length; i += 4) {
        if (particle(i)) blues++;
        if (gold(i)) golds++;
        if (red(i)) reds++;
        if (before && Math.abs(data[i + 2] - shots[before].data[i + 2]) > 30) changed++;
        const p = i / 4;
        if (near && Math.hypot((p % width) - near.x, Math.floor(p / width) - near.y) <= radius) {
          if (gold(i)) knotNear++;
          if (red(i)) redNear++;
        }
      }
      let spot: { x: number; y: number } | null = null;
      let best = Infinity;
      for (let y = 8; y < height - 8; y += 4) {
        for (let x = 8; x < width - 8; x += 4) {
          const d = Math.hypot(x - width / 2, y - height / 2);
          let inside = d < best;
          for (let dy = -2; dy <= 2 && inside; dy++)
            for (let dx = -2; dx <= 2 && inside; dx++) inside = particle(4 * ((y + dy) * width + x + dx));
          if (inside) [spot, best] = [{ x, y }, d];
        }
      }
      const area = width * height;
      return {
        particle: blues / area,
        knot: golds / area,
        red: reds / area,
        changed: changed / area,
        spot,
        knotNear,
        redNear,
      };
    },
    [name, before, near, radius] as const,
  );
}

describe('the three.js example in Chromium', () => {
  it('draws the world from its GPU buffer, moves, and picks a clicked particle or knot triangle', async () => {
    const page = await browser.newPage({ viewport: VIEWPORT });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('requestfailed', (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`),
    );
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    const three = <T>(expression: string): Promise<T> => page.evaluate(expression) as Promise<T>;
    const picksPast = async (before: number): Promise<void> => {
      await page.waitForFunction(`window.__three.picks > ${before}`, undefined, { timeout: 30_000, polling: 100 });
    };
    const framesPast = async (more: number): Promise<void> => {
      const now = await three<number>('window.__three.frames');
      await page.waitForFunction(`window.__three.frames >= ${now + more}`, undefined, {
        timeout: 30_000,
        polling: 100,
      });
    };
    try {
      await page.goto(url);
      await page.waitForFunction('window.__three?.frames >= 5', undefined, { timeout: 60_000, polling: 100 });
      expect(await three<boolean>('window.__three.software'), 'SwiftShader counts as a software adapter').toBe(true);
      expect(await three<number>('window.__three.count')).toBe(N);
      await expect
        .poll(() => page.locator('#status').textContent())
        .toMatch(
          /1,000 particles · \d+ fps · t \d+\.\d s\nsoftware adapter: 1,000 particles by default.*\?n=N for more/,
        );

      // Not blank, and moving: two screenshots some frames apart, both full of particles, differ.
      await shot(page, '1');
      await framesPast(3);
      await shot(page, '2');
      const first = await measure(page, '1');
      const second = await measure(page, '2', '1');
      expect(first.particle, 'share of the canvas that shows particles').toBeGreaterThan(0.01);
      expect(second.particle).toBeGreaterThan(0.01);
      expect(second.changed, 'share of the pixels that changed').toBeGreaterThan(0.001);

      // Pick: click inside the particles nearest the middle of the screen, as a person would; the
      // GPU raycast hits one, the status names it and it is drawn red.
      // The pile moves between a screenshot and the click (more so on a loaded machine, where a
      // frame's wall time grows): a click that found the spot empty is made again on a new
      // screenshot, as a person would, up to five times.
      expect(second.spot, 'a spot covered by particles').not.toBeNull();
      let spot = second.spot!;
      let picks = 0;
      for (let attempt = 0; ; attempt++) {
        await page.mouse.click(spot.x, spot.y);
        await picksPast(picks);
        picks = await three<number>('window.__three.picks');
        if ((await three<number>('window.__three.picked')) >= 0 || attempt === 4) break;
        await shot(page, `retry-${attempt}`);
        const again = (await measure(page, `retry-${attempt}`)).spot;
        if (again) spot = again;
      }
      expect(await three<number>('window.__three.knotTriangle'), 'no knot triangle: the particle is nearer').toBe(-1);
      const picked = await three<number>('window.__three.picked');
      expect(picked).toBeGreaterThanOrEqual(0);
      expect(picked).toBeLessThan(N);
      await framesPast(2);
      await expect
        .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
        .toContain(`picked particle #${picked} at distance`);
      // The picked particle is drawn red over everything: in sight at once, and still in sight
      // frames later, after the pile has moved and perhaps buried it.
      await shot(page, 'picked');
      expect((await measure(page, 'picked')).red, 'red pixels of the picked particle').toBeGreaterThan(0);
      await framesPast(5);
      await shot(page, 'picked-later');
      expect((await measure(page, 'picked-later')).red, 'red pixels, 5 frames later').toBeGreaterThan(0);

      // The knot: the page says where it is on screen (its vertex nearest the camera, in front of
      // the rest of it); the shot shows it drawn there in gold. A click there casts the ray against
      // the knot at its pose of the moment: a triangle is hit, nearer than any particle, the
      // status names it, and it is drawn red there (the particle's highlight gone).
      const triangles = await three<number>('window.__three.knotTriangles');
      expect(triangles, 'the knot: 96 × 12 quads, two triangles each').toBe(2304);
      await expect
        .poll(() => page.locator('#status').textContent(), { timeout: 30_000 })
        .toContain('a torus knot of 2,304 triangles');
      // The rain falls on the knot (a mesh collider of the world): a ball passing in front of the
      // knot's spot as it is clicked is nearer, so a click that picked a ball is made again, at
      // the knot's spot of the moment, up to five times.
      let knotAt = await three<Spot & { distance: number }>('window.__three.knotScreen()');
      for (let attempt = 0; attempt < 5; attempt++) {
        knotAt = await three<Spot & { distance: number }>('window.__three.knotScreen()');
        await shot(page, 'knot');
        const beforeKnot = await measure(page, 'knot', undefined, knotAt);
        expect(beforeKnot.knot, 'share of the canvas that shows the knot').toBeGreaterThan(0.002);
        expect(beforeKnot.knotNear, 'gold pixels around the knot spot').toBeGreaterThan(0);
        picks = await three<number>('window.__three.picks');
        await page.mouse.click(knotAt.x, knotAt.y);
        await picksPast(picks);
        if ((await three<number>('window.__three.knotTriangle')) >= 0) break;
        await framesPast(10);
      }
      const triangle = await three<number>('window.__three.knotTriangle');
      expect(triangle, 'the knot triangle picked').toBeGreaterThanOrEqual(0);
      expect(triangle).toBeLessThan(triangles);
      expect(await three<number>('window.__three.picked'), 'no particle: the knot is nearer').toBe(-1);
      await framesPast(2);
      const knotStatus = /picked knot triangle #(\d+) at distance (\d+\.\d+)/;
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toMatch(knotStatus);
      const [, named, distance] = knotStatus.exec((await page.locator('#status').textContent())!)!;
      expect(Number(named)).toBe(triangle);
      // The hit is on the front of the knot, by the vertex nearest the camera (within its tube).
      expect(Math.abs(Number(distance) - knotAt.distance), 'hit distance against the vertex').toBeLessThan(
        0.1 * knotAt.distance,
      );
      await shot(page, 'knot-picked');
      const knotPicked = await measure(page, 'knot-picked', undefined, knotAt, 30);
      expect(knotPicked.redNear, 'red pixels of the picked triangle, by the click').toBeGreaterThan(0);

      // A click on the sky (top right, above the box and the knot) misses both; the highlights go.
      picks = await three<number>('window.__three.picks');
      await page.mouse.click(VIEWPORT.width - 4, 4);
      await picksPast(picks);
      expect(await three<number>('window.__three.picked')).toBe(-1);
      expect(await three<number>('window.__three.knotTriangle')).toBe(-1);
      await expect.poll(() => page.locator('#status').textContent(), { timeout: 30_000 }).toContain('missed');
      await framesPast(2);
      await shot(page, 'missed');
      expect((await measure(page, 'missed')).red, 'red pixels after a miss').toBe(0);

      expect(problems, 'console errors, page errors and failed requests').toEqual([]);
    } finally {
      await page.close();
    }
  }, 120_000);
});
