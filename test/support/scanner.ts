// The fake Plex Media Scanner (test/fakes/plex-scanner.mjs) and the scanner settings the tests start from.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type { ScannerSettings } from '../../src/targets/plex/scanner.js';
import { repoRoot } from './fixtures.js';

/** Records its argv, environment and user to $FAKE_SCANNER_LOG, and fails on demand. */
export const fakeScanner = join(repoRoot, 'test', 'fakes', 'plex-scanner.mjs');

/** Makes the fake executable (a fresh checkout may not keep the mode). */
export function prepareFakeScanner(): void {
  chmodSync(fakeScanner, 0o755);
}

/** plex_autoscan's defaults for a native install, pointed at the fake scanner unless `over` says otherwise. */
export function scannerSettings(over: Partial<ScannerSettings> = {}): ScannerSettings {
  return {
    scanner: fakeScanner,
    supportDir: '/var/lib/plexmediaserver/Library/Application Support',
    ldLibraryPath: '/usr/lib/plexmediaserver/lib',
    user: 'plex',
    useSudo: false,
    useDocker: false,
    dockerName: 'plex',
    waitForExternalScanners: false,
    ...over,
  };
}
