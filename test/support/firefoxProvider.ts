/**
 * A Vitest browser provider that drives a stock Firefox (Debian's firefox-esr) over WebDriver
 * BiDi with puppeteer-core, so that the browser tests run on Firefox's WebGPU (wgpu) as they do
 * on Chromium's (Dawn). Playwright cannot drive a stock Firefox (it needs its own patched
 * build) and there is no geckodriver here, so Vitest's built-in providers cannot be used.
 *
 * The provider only opens Vitest's tester page: the tests, `expect`, the reporting and the
 * per-test results are Vitest's own, over its WebSocket. There are no provider commands
 * (userEvent, screenshots, module mocking): the GPU tests use none.
 *
 * WebGPU is off by default in Firefox on Linux: `dom.webgpu.enabled` turns it on, and
 * `gfx.webgpu.ignore-blocklist` lets a software Vulkan driver through (without it
 * `requestAdapter()` returns null). Firefox 140 refuses WebGPU in release builds; 141+ (the
 * ESR from Debian's security updates is 153) has it.
 */
import { defineBrowserProvider } from '@vitest/browser';
import type { BrowserProvider, BrowserProviderOption, TestProject } from 'vitest/node';
import type { Browser, Page } from 'puppeteer-core';

export interface FirefoxProviderOptions {
  /** The Firefox binary (Debian: /usr/lib/firefox-esr/firefox-esr; the /usr/bin one is a shell script). */
  executablePath: string;
  /** Extra environment for Firefox, e.g. VK_ICD_FILENAMES to pick the Vulkan driver. */
  env?: Record<string, string>;
  /** Extra Firefox prefs, on top of the WebGPU ones. */
  prefs?: Record<string, unknown>;
}

export const FIREFOX_WEBGPU_PREFS = {
  'dom.webgpu.enabled': true,
  'gfx.webgpu.ignore-blocklist': true,
};

class FirefoxProvider implements BrowserProvider {
  name = 'firefox-bidi';
  supportsParallelism = false;
  private browser: Promise<Browser> | null = null;
  private pages = new Map<string, Page>();
  private closing = false;

  constructor(
    private readonly project: TestProject,
    private readonly options: FirefoxProviderOptions,
  ) {}

  private launch(): Promise<Browser> {
    this.browser ??= import('puppeteer-core').then(({ default: puppeteer }) =>
      puppeteer.launch({
        browser: 'firefox',
        executablePath: this.options.executablePath,
        headless: this.project.config.browser.headless !== false,
        env: { ...process.env, ...this.options.env } as Record<string, string>,
        extraPrefsFirefox: { ...FIREFOX_WEBGPU_PREFS, ...this.options.prefs },
        protocolTimeout: 0,
      }),
    );
    return this.browser;
  }

  getCommandsContext(sessionId: string): Record<string, unknown> {
    return { page: this.pages.get(sessionId) };
  }

  async openPage(sessionId: string, url: string): Promise<void> {
    if (this.closing) throw new Error('[firefox-bidi] the provider was closed');
    const browser = await this.launch();
    await this.pages.get(sessionId)?.close();
    const page = await browser.newPage();
    this.pages.set(sessionId, page);
    page.on('pageerror', (error) => console.error(`[firefox] page error: ${(error as Error).message ?? error}`));
    await page.goto(url, { timeout: 0 });
  }

  async close(): Promise<void> {
    this.closing = true;
    const browser = this.browser;
    this.browser = null;
    this.pages.clear();
    if (browser) await (await browser.catch(() => null))?.close();
  }
}

/** Vitest's `browser.provider` for a stock Firefox over WebDriver BiDi. */
export function firefoxBidi(options: FirefoxProviderOptions): BrowserProviderOption {
  return defineBrowserProvider({
    name: 'firefox-bidi',
    supportedBrowser: ['firefox'],
    options,
    providerFactory: (project: TestProject) => new FirefoxProvider(project, options),
  });
}
