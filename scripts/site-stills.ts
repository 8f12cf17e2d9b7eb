/**
 * `npm run site:stills`: the gallery's stills, taken from the pages themselves. Builds the site,
 * serves it on localhost, opens each example whose still lives in site/stills/ in headless
 * Chromium (WebGPU on SwiftShader, the flags of vitest.config.ts), waits until the page is ready
 * (site/examples.ts: `stillWhen`, else `ready`) and a second more, and writes an 800 × 600 screenshot as its still.
 */
import { preview } from 'vite';
import { chromium } from 'playwright-core';
import { resolve } from 'node:path';
import { CHROMIUM, CHROMIUM_ARGS } from '../vitest.config.js';
import { EXAMPLES } from '../site/examples.js';
import { buildSite } from './build-site.js';

const root = resolve(import.meta.dirname, '..');
const out = await buildSite();
const server = await preview({
  root,
  configFile: false,
  build: { outDir: out },
  preview: { host: '127.0.0.1', port: 0 },
});
const url = server.resolvedUrls!.local[0];
const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
try {
  for (const e of EXAMPLES.filter((x) => x.still.startsWith('site/stills/'))) {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    await page.goto(new URL(e.page, url).href);
    await page.waitForFunction(e.stillWhen ?? e.ready, undefined, { timeout: 180_000, polling: 250 });
    await page.waitForTimeout(1000);
    await page.screenshot({ path: resolve(root, e.still) });
    console.log(`site-stills: ${e.still}`);
    await page.close();
  }
} finally {
  await browser.close();
  server.httpServer.close();
}
