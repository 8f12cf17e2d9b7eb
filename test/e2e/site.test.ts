/**
 * End to end: the examples site (`npm run build:site`, scripts/build-site.ts) built, served on
 * localhost and opened in headless Chromium (Dawn) and Firefox (wgpu), both on SwiftShader: the
 * index loads, every link and image on it resolves, and every example page (site/examples.ts)
 * gets ready (its first frames drawn, or its answer printed) within 30 s, is not blank, reports
 * its numbers (its status line, as site/examples.ts expects it), and logs no error on the way (no console error, no page error, no failed request). Both browsers are
 * driven by puppeteer-core (Playwright cannot drive a stock Firefox); the deeper checks of the
 * demo and the three.js example (picking, dragging, ...) are in their own tests.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { preview, type PreviewServer } from 'vite';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_ARGS, FIREFOX, SWIFTSHADER_ICD } from '../../vitest.config.js';
import { FIREFOX_WEBGPU_PREFS } from '../support/firefoxProvider.js';
import { EXAMPLES } from '../../site/examples.js';
import { buildSite } from '../../scripts/build-site.js';

const READY_MS = 30_000;
let server: PreviewServer;
let url: string;
let outDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'site-'));
  await buildSite(outDir);
  server = await preview({
    root: resolve(import.meta.dirname, '../..'),
    configFile: false,
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false },
  });
  url = server.resolvedUrls!.local[0];
}, 180_000);

afterAll(async () => {
  await new Promise<void>((done) => (server ? server.httpServer.close(() => done()) : done()));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Records what goes wrong on a page: console errors, page errors, failed requests, HTTP errors. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page: ${(e as Error).message ?? e}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return problems;
}

/** The share of a screenshot's pixels that differ from its top-left pixel (the background), decoded in the page. */
async function drawnShare(page: Page): Promise<number> {
  const png = (await page.screenshot({ encoding: 'base64' })) as string;
  return page.evaluate(async (base64: string) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
    const context = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
    context.drawImage(bitmap, 0, 0);
    const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
    let differ = 0;
    for (let i = 0; i < data.length; i += 4)
      if (Math.abs(data[i] - data[0]) + Math.abs(data[i + 1] - data[1]) + Math.abs(data[i + 2] - data[2]) > 30)
        differ++;
    return differ / (data.length / 4);
  }, png);
}

const BROWSERS = {
  chromium: () => puppeteer.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true }),
  firefox: () =>
    puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      env: { ...process.env, VK_ICD_FILENAMES: process.env.FIREFOX_VK_ICD ?? SWIFTSHADER_ICD } as Record<
        string,
        string
      >,
      extraPrefsFirefox: FIREFOX_WEBGPU_PREFS,
      protocolTimeout: 0,
    }),
};

for (const [name, launch] of Object.entries(BROWSERS)) {
  describe(`the examples site in ${name}`, () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launch();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
    });

    it('the index loads, and every link and image on it resolves', async () => {
      const page = await browser.newPage();
      const problems = watch(page);
      try {
        await page.goto(url);
        const targets = await page.evaluate(() =>
          [
            ...Array.from(document.querySelectorAll('a[href]'), (a) => (a as HTMLAnchorElement).href),
            ...Array.from(document.querySelectorAll('img[src]'), (img) => (img as HTMLImageElement).src),
          ].filter((href) => !href.includes('#')),
        );
        expect(targets.length, 'links and images on the index').toBeGreaterThan(3 * EXAMPLES.length);
        for (const e of EXAMPLES) expect(targets.some((t) => t.endsWith(e.page))).toBe(true);
        const statuses = await page.evaluate(
          (hrefs: string[]) => Promise.all(hrefs.map(async (h) => [h, (await fetch(h)).status] as const)),
          [...new Set(targets)],
        );
        expect(statuses.filter(([, status]) => status !== 200)).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    }, 120_000);

    for (const e of EXAMPLES) {
      it(`${e.title} (${e.page}): ready within ${READY_MS / 1000} s, not blank, its numbers reported, no error`, async () => {
        const page = await browser.newPage();
        await page.setViewport({ width: 800, height: 600 });
        const problems = watch(page);
        try {
          await page.goto(new URL(e.page, url).href);
          await page.waitForFunction(e.ready, { timeout: READY_MS, polling: 250 });
          expect(await drawnShare(page), 'share of the page that is not background').toBeGreaterThan(0.01);
          // Its numbers, once it has them (the drum's first read comes a second in).
          await page.waitForFunction(
            ([selector, source]) => new RegExp(source).test(document.querySelector(selector)?.textContent ?? ''),
            { timeout: READY_MS, polling: 250 },
            [e.report.selector, e.report.pattern.source] as const,
          );
          expect(problems, 'console errors, page errors and failed requests').toEqual([]);
        } finally {
          await page.close();
        }
      }, 120_000);
    }
  });
}
