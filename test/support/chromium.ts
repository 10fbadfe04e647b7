// Debian's Chromium, which the browser tests drive with playwright-core. A machine without it fails those tests
// with what to install, instead of skipping them: a skipped browser test would pass a broken page unnoticed.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** The browser's path, or an error naming the package to install (.ci/run installs it). */
function chromiumPath(): string {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does)`);
  return CHROMIUM;
}

/** What a test file gets of the worker's Chromium: its own pages (each a browser context of its own), which `close` closes. */
export interface ChromiumPages {
  newPage(options?: BrowserContextOptions): Promise<Page>;
  close(): Promise<void>;
}

// One Chromium per vitest worker, launched by the first browser test file it runs and shared by the next ones (the
// worker keeps its modules from file to file: vitest.config.ts, isolate false): a launch costs more CPU than most of
// those files' tests. Kept on globalThis, so a module loaded again still finds it. Playwright ends the browsers it
// launched when the worker's process exits.
const key = Symbol.for('scanrelay.test.chromium');
const worker = globalThis as { [key]?: Promise<Browser> };

/** Headless Chromium as the page tests run it: nothing of its own on the network (no updates, sync or QUIC). */
function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Pages of the worker's Chromium for one test file; `close` closes them, so nothing of the file outlives it. */
export async function chromiumPages(): Promise<ChromiumPages> {
  const launched = (worker[key] ??= launch().then((browser) => {
    // A browser that went away (crashed, killed) is launched again by the next file.
    browser.on('disconnected', () => delete worker[key]);
    return browser;
  }));
  const browser = await launched.catch((err: unknown) => {
    delete worker[key];
    throw err;
  });
  const pages = new Set<Page>();
  return {
    async newPage(options) {
      const page = await browser.newPage(options);
      pages.add(page);
      return page;
    },
    async close() {
      await Promise.all([...pages].map((page) => page.close()));
      pages.clear();
    },
  };
}
