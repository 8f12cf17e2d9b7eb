/**
 * scripts/engines-bench.ts in headless Chromium (Dawn) or Firefox (wgpu), with the flags and prefs
 * of the test projects (vitest.config.ts): serves scripts/engines-bench.html with Vite, opens it,
 * and prints what the page prints.
 *
 *   npx tsx scripts/engines-bench-browser.ts chromium|firefox [--driver swiftshader|lavapipe]
 *
 * `--driver` picks Firefox's Vulkan driver (Chromium's flags pin SwiftShader).
 */
import { createServer } from 'vite';
import { chromium } from 'playwright-core';
import puppeteer from 'puppeteer-core';
import { CHROMIUM, CHROMIUM_ARGS, FIREFOX, SWIFTSHADER_ICD } from '../vitest.config.js';
import { FIREFOX_WEBGPU_PREFS } from '../test/support/firefoxProvider.js';

const browserName = process.argv[2];
const driverAt = process.argv.indexOf('--driver');
const driver = driverAt > 0 ? process.argv[driverAt + 1] : 'swiftshader';
const ICDS: Record<string, string> = {
  swiftshader: SWIFTSHADER_ICD,
  lavapipe: '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json',
};
if (browserName !== 'chromium' && browserName !== 'firefox')
  throw new Error('usage: engines-bench-browser.ts chromium|firefox [--driver swiftshader|lavapipe]');
if (!ICDS[driver]) throw new Error(`--driver: one of ${Object.keys(ICDS).join(', ')}`);

const server = await createServer({
  root: import.meta.dirname,
  configFile: false,
  logLevel: 'error',
  server: { host: '127.0.0.1', port: 0 },
});
await server.listen();
const url = `${server.resolvedUrls!.local[0]}engines-bench.html`;
const done = (): boolean => document.querySelector('#out')!.textContent!.startsWith('DONE');
try {
  if (browserName === 'chromium') {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(done, null, { timeout: 600_000 });
    console.log((await page.textContent('#out'))!.slice(5));
    await browser.close();
  } else {
    const env = { ...process.env, VK_ICD_FILENAMES: ICDS[driver] } as Record<string, string>;
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      env,
      extraPrefsFirefox: FIREFOX_WEBGPU_PREFS,
      protocolTimeout: 0,
    });
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(done, { timeout: 600_000 });
    console.log((await page.$eval('#out', (e) => e.textContent))!.slice(5));
    await browser.close();
  }
} finally {
  await server.close();
}
