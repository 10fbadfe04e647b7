// Debian's Chromium, which the browser tests drive with playwright-core. A machine without it fails those tests
// with what to install, instead of skipping them: a skipped browser test would pass a broken page unnoticed.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** The browser's path, or an error naming the package to install (.ci/run installs it). */
export function chromiumPath(): string {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium; .ci/run does)`);
  return CHROMIUM;
}

/** Headless Chromium as the page tests run it: nothing of its own on the network (no updates, sync or QUIC). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
