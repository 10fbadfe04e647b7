// No config key that does nothing: every key in docs/configuration.md's reference tables is listed here with
// the test that proves its effect, or as accepted for compatibility with the log line that says what it does
// instead (and the docs must say so too). A key added to the docs without an entry here fails this test.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';
import { runCli } from '../support/child.js';

type Entry =
  /** The test file and the title (or part of it) of the test that shows the key's effect. */
  | { proof: [string, string] }
  /** Accepted for compatibility: the start-up log line (at debug level at least) that says so. */
  | { accepted: RegExp }
  /** A section heading row ("RCLONE", "GOOGLE.ALLOWED"): its keys carry the effects. */
  | { section: true };

const T = (file: string, title: string): Entry => ({ proof: [`test/${file}.test.ts`, title] });
const ignoredLine = (key: string) => ({ accepted: new RegExp(`Config key '${key.replace(/[.[\]]/g, '\\$&')}' is not used by scanrelay; ignored`) });

const KEYS: Record<string, Entry> = {
  PLEX_ENABLED: T('config/key-effects', 'PLEX_ENABLED false builds no first Plex'),
  PLEX_LOCAL_URL: T('e2e/readme-walkthrough', 'First scan: edit the config, start it again'),
  PLEX_TOKEN: T('processor/processor', 'a 401 keeps the folder, marks Plex down'),
  PLEX_SCAN_MODE: T('config/key-effects', 'PLEX_SCAN_MODE picks the HTTP API or the scanner'),
  PLEX_SCAN_PAUSE: T('config/key-effects', 'PLEX_SCAN_PAUSE becomes the pause between its scans'),
  PLEX_DATABASE_PATH: T('e2e/drive-to-plex', 'a file already in Plex -> none'),
  PLEX_SCANNER: T('targets/scan-cli', 'takes the PLEX_* keys of a config'),
  PLEX_SUPPORT_DIR: T('targets/scan-cli', "with Plex's library path and support folder in its environment"),
  PLEX_LD_LIBRARY_PATH: T('targets/scan-cli', "with Plex's library path and support folder in its environment"),
  PLEX_USER: T('targets/scan-cli', 'goes through sudo -u PLEX_USER env'),
  PLEX_WAIT_FOR_EXTERNAL_SCANNERS: T('targets/scanner', 'polls through the injected sleep until the other scanner is gone'),
  PLEX_CHECK_BEFORE_SCAN: T('targets/plex-after-scan', 'asks with backoff within a bounded budget'),
  PLEX_CONFIRM_SCANS: T('targets/plex-follow', 'fast path: PLEX_CONFIRM_SCANS false does not follow a file scan'),
  PLEX_CONFIRM_TIMEOUT: T('targets/plex-follow', 'a scan still running at PLEX_CONFIRM_TIMEOUT ends unconfirmed'),
  PLEX_SCAN_CONCURRENCY: T('config/key-effects', 'PLEX_SCAN_CONCURRENCY bounds the scans in flight'),
  PLEX_MAX_OUTSTANDING: T('processor/back-pressure', 'apps three times faster than Plex: its backlog stays under the cap'),
  PLEX_NOTIFICATIONS: T('e2e/follow-restart', 'on the notification socket, no database'),
  PLEX_FOLLOW_INTERVAL: T('config/key-effects', 'PLEX_FOLLOW_INTERVAL is the time between two /activities requests'),
  PLEX_REFRESH_ITEMS: T('targets/item-refresh', 'Rename/Upgrade only where REFRESH_ITEMS (or PLEX_REFRESH_ITEMS) is on'),
  SERVER_TRUST_PROXY: T('server/trust-proxy', 'a list holding the proxy: its X-Forwarded-For is believed'),
  HISTORY_DAYS: T('queue/retention', 'HISTORY_DAYS: lines older than that many days go, newer ones stay'),
  HISTORY_MAX_ROWS: T('queue/retention', 'HISTORY_MAX_ROWS: only the newest lines are kept'),
  LOG_MAX_SIZE: T('log/rotation', 'the config keys reach the log of a real command'),
  LOG_KEEP: T('log/rotation', 'LOG_KEEP 0 starts the file over and keeps no old one'),
  PLEX_EMPTY_TRASH: T('targets/plex-after-scan', 'empties the scanned section once its scan ended'),
  PLEX_EMPTY_TRASH_MAX_FILES: T('targets/plex-after-scan', 'skips when more items than PLEX_EMPTY_TRASH_MAX_FILES are deleted'),
  PLEX_EMPTY_TRASH_CONTROL_FILES: T('targets/plex-after-scan', 'skips when a control file is missing'),
  PLEX_EMPTY_TRASH_ZERO_DELETED: T('targets/plex-after-scan', 'empties only for an Upgrade or with PLEX_EMPTY_TRASH_ZERO_DELETED'),
  PLEX_ANALYZE_TYPE: T('targets/plex-after-scan', 'deep with PLEX_ANALYZE_DIRECTORY analyzes every episode of the season'),
  PLEX_ANALYZE_DIRECTORY: T('targets/plex-after-scan', 'basic with PLEX_ANALYZE_DIRECTORY sends exactly one analyze'),
  // The module's effect against the fake Plex; the follow-up stage calls it once the processor wiring lands.
  PLEX_FIX_MISMATCHED: T('e2e/fix-mismatched', 'a legacy-agent show matched to the wrong series is matched'),
  PLEX_FIX_MISMATCHED_LANG: T('plex/match', 'built from the ID and PLEX_FIX_MISMATCHED_LANG'),
  PLEX_FIX_MISMATCHED_DRY_RUN: T('e2e/fix-mismatched', 'a right match is validated, and the dry run only logs'),

  SERVER_IP: T('config/key-effects', 'the server listens where they say'),
  SERVER_PORT: T('config/key-effects', 'the server listens where they say'),
  SERVER_BASE_PATH: T('server/base-path', 'a Sonarr webhook to <base>/<SERVER_PASS> is scanned'),
  SERVER_PASS: T('server/scan-routes', 'a wrong secret is 401 and the URL is not logged'),
  SERVER_PATH_MAPPINGS: T('server/scan-routes', 'a form-encoded Manual request is mapped and queued'),
  SERVER_FILE_EXIST_PATH_MAPPINGS: T('rclone/cache-refresh-checks', 'one refresh of the folder per missed check'),
  SERVER_SCAN_DELAYS: T('queue/scan-delays', 'an upgrade is scanned after its own delay while a new import waits for SERVER_SCAN_DELAY'),
  SERVER_SCAN_DELAY: T('processor/processor', '24 Download webhooks for one season within the delay make exactly one Plex refresh'),
  SERVER_SCAN_MAX_WAIT: T('queue/scan-delays', 'a folder that keeps receiving imports is scanned SERVER_SCAN_MAX_WAIT after its first request'),
  SERVER_MAX_FILE_CHECKS: T('processor/processor', 'waits for the file to exist, up to SERVER_MAX_FILE_CHECKS'),
  SERVER_FILE_CHECK_DELAY: T('rclone/cache-refresh-checks', 'one refresh of the folder per missed check'),
  SERVER_SCAN_FOLDER_ON_FILE_EXISTS_EXHAUSTION: T('config/key-effects', 'true: the folder is scanned once the checks run out'),
  SERVER_ALLOW_MANUAL_SCAN: T('server/manual-and-labels', 'closes the page, the manual POST (form and JSON) and the control API scan'),
  SERVER_IGNORE_LIST: T('server/scan-routes', 'SERVER_IGNORE_LIST applies: nothing queued'),
  SERVER_SCAN_PRIORITIES: T('paths/mapping', 'SERVER_SCAN_PRIORITIES: first matching entry, unmatched is 0'),
  SERVER_ANCHOR_FILES: T('processor/processor', 'holds every scan while an anchor file is missing'),
  SERVER_SCAN_RETRY_MAX_DELAY: T('processor/processor', 'retries back off and stay visible'),
  SERVER_MAX_REQUEST_PATHS: T('server/closed-by-default', 'SERVER_MAX_REQUEST_PATHS: more paths than the limit is a 413'),
  SERVER_METRICS_TOKEN: T('server/metrics', 'with SERVER_METRICS_TOKEN, needs the bearer token'),
  SERVER_USE_SQLITE: { accepted: /SERVER_USE_SQLITE \(false\) is accepted for compatibility and has no effect/ },
  RUN_COMMAND_BEFORE_SCAN: T('targets/plex-after-scan', 'runs both commands for every target kind as argv'),
  RUN_COMMAND_AFTER_SCAN: T('targets/plex-after-scan', 'runs both commands for every target kind as argv'),

  USE_DOCKER: T('targets/scan-cli', 'with USE_DOCKER'),
  DOCKER_NAME: T('targets/scan-cli', '<DOCKER_NAME> with USE_DOCKER'),
  USE_SUDO: T('targets/scan-cli', 'goes through sudo -u PLEX_USER env ... with USE_SUDO'),

  RCLONE: { section: true },
  'RCLONE.CONFIG': T('drive/crypt-to-plex', 'a new encrypted file becomes one Plex refresh of its decoded folder'),
  'RCLONE.CRYPT_MAPPINGS': T('drive/crypt-to-plex', 'a new encrypted file becomes one Plex refresh of its decoded folder'),
  'RCLONE.BINARY': { accepted: /RCLONE\.BINARY \('\/usr\/bin\/rclone'\) is accepted for compatibility and not run/ },
  'RCLONE.RC_CACHE_REFRESH': { section: true },
  'RCLONE.RC_CACHE_REFRESH.ENABLED': T('rclone/cache-refresh-checks', 'ENABLED false: rclone is never called'),
  'RCLONE.RC_CACHE_REFRESH.RC_URL': T('rclone/remote-control', 'each give one warning that names RC_URL'),
  'RCLONE.RC_CACHE_REFRESH.FILE_EXISTS_TO_REMOTE_MAPPINGS': T('rclone/remote-control', 'a path outside FILE_EXISTS_TO_REMOTE_MAPPINGS calls nothing'),

  GOOGLE: { section: true },
  'GOOGLE.ENABLED': T('e2e/drive-to-plex', 'new file -> one Plex refresh of the mapped folder'),
  'GOOGLE.CLIENT_ID': T('drive/authorize', "prints Google's consent URL (drive scope, offline access) with a loopback redirect"),
  'GOOGLE.CLIENT_SECRET': T('drive/authorize', "prints Google's consent URL (drive scope, offline access) with a loopback redirect"),
  'GOOGLE.SERVICE_ACCOUNT_FILE': T('drive/tokens', 'signs an RS256 JWT, gets a token with the jwt-bearer grant'),
  'GOOGLE.RCLONE_REMOTE': T('drive/tokens', 'uses the remote token while it is fresh'),
  'GOOGLE.RCLONE_CONFIG': T('drive/tokens', 'reads rclone.conf sections and tokens'),
  'GOOGLE.TOKEN_FILE': T('drive/tokens', 'refreshes before the stored expiry, keeps the refresh token and rewrites the file 0600'),
  'GOOGLE.ALLOWED': { section: true },
  'GOOGLE.ALLOWED.FILE_PATHS': T('drive/filters', 'watches FILE_PATHS prefixes case-insensitively'),
  'GOOGLE.ALLOWED.FILE_EXTENSIONS': T('drive/filters', 'checks extensions after a dot'),
  'GOOGLE.ALLOWED.FILE_EXTENSIONS_LIST': T('drive/filters', 'checks extensions after a dot'),
  'GOOGLE.ALLOWED.MIME_TYPES': T('drive/filters', 'checks MIME substrings'),
  'GOOGLE.ALLOWED.MIME_TYPES_LIST': T('drive/filters', 'checks MIME substrings'),
  'GOOGLE.TEAMDRIVE': T('drive/monitor', 'keeps one cursor per shared drive in TEAMDRIVES'),
  'GOOGLE.TEAMDRIVES': T('drive/monitor', 'keeps one cursor per shared drive in TEAMDRIVES'),
  'GOOGLE.POLL_INTERVAL': T('drive/monitor', 'start() polls at once and then every POLL_INTERVAL'),
  'GOOGLE.SHOW_CACHE_LOGS': T('drive/monitor', 'folder renames and moves update cached descendants without fetching'),
  'GOOGLE.DISABLE_DISK_FILE_SIZE_CHECK': T('drive/monitor', 'DISABLE_DISK_FILE_SIZE_CHECK skips on name alone'),
  'GOOGLE.AUTH_URL': T('drive/authorize', "prints Google's consent URL (drive scope, offline access) with a loopback redirect"),
  'GOOGLE.TOKEN_URL': T('drive/tokens', 'refreshes after Drive answers 401 and carries on'),
  'GOOGLE.API_URL': T('e2e/drive-to-plex', 'new file -> one Plex refresh of the mapped folder'),

  'TARGETS[].SCAN_CONCURRENCY': T('config/key-effects', 'TARGETS[].SCAN_CONCURRENCY sets an entry'),
  'TARGETS[].MAX_OUTSTANDING': T('processor/back-pressure', 'TARGETS[].MAX_OUTSTANDING caps an entry'),
  'TARGETS[].REFRESH_ITEMS': T('targets/item-refresh', 'Rename/Upgrade only where REFRESH_ITEMS (or PLEX_REFRESH_ITEMS) is on'),
  'TARGETS[].COMMAND': T('targets/calls-and-failures', 'runs the program with the folder, file, event and deletion in its environment'),
  'TARGETS[].TIMEOUT': T('targets/calls-and-failures', 'a program over TIMEOUT is stopped and retried'),
  'TARGETS[].SCAN_METHOD': T('targets/jellyfin-scans', 'media-updated is the old way: the monitor refreshes a minute later'),
  'TARGETS[].LIBRARY_ID': T('e2e/webhook-reaches-every-kind', 'one Sonarr Download reaches command, audiobookshelf, tdarr, sonarr and relay'),
  'TARGETS[].PASSWORD': T('targets/calls-and-failures', "posts the folder to the other instance's manual trigger with Basic auth"),
  'WATCH.PATHS': T('watch/watch', 'a file written under a watched local folder becomes one Plex refresh'),
  'WATCH.DEBOUNCE': T('watch/watch', 'a folder is handed on once, after the last change plus DEBOUNCE'),
  'WATCH.POLL_INTERVAL': T('watch/watch', 'polls on its own every POLL_INTERVAL'),
  PATH: T('watch/watch', 'a file written under a watched local folder becomes one Plex refresh'),
  BACKEND: T('watch/watch', 'a change is queued by the next poll (so within one poll interval)'),
  RECURSIVE: T('watch/watch', 'RECURSIVE false: only the folder itself counts'),
  INCLUDE: T('watch/watch', 'INCLUDE and EXCLUDE decide which files count'),
  EXCLUDE: T('watch/watch', 'EXCLUDE wins over INCLUDE'),
  POLL_INTERVAL: T('watch/watch', 'polls on its own every POLL_INTERVAL'),
  REWRITE: T('config/import-autoscan', 'a converted autoscan config starts `scanrelay server` and serves its triggers'),
  'AUTOSCAN.ENABLED': T('server/autoscan-routes', 'the routes do not exist while AUTOSCAN is off'),
  'AUTOSCAN.USER': T('server/autoscan-routes', 'Basic auth is checked before the body is read'),
  'AUTOSCAN.PASSWORD': T('server/autoscan-routes', 'Basic auth is checked before the body is read'),
  'AUTOSCAN.TRIGGERS': T('server/autoscan-routes', 'a route name that is not configured is 404'),
  'AUTOSCAN.MANUAL_REWRITE': T('server/autoscan-routes', '/triggers/manual: several dir on POST and GET'),
  'AUTOSCAN.A_TRAIN_REWRITE': T('server/autoscan-routes', 'POST /triggers/a-train/{drive}: created and deleted folders'),
  'AUTOSCAN.A_TRAIN_DRIVES': T('server/autoscan-routes', 'POST /triggers/a-train/{drive}: created and deleted folders'),
  'TARGETS[].NAME': T('e2e/multi-target', 'each server gets exactly the scans for its own libraries, at its own paths'),
  'TARGETS[].TYPE': T('e2e/multi-target', 'each server gets exactly the scans for its own libraries, at its own paths'),
  'TARGETS[].ENABLED': T('config/key-effects', 'false keeps the entry in the file but builds no target for it'),
  'TARGETS[].URL': T('e2e/multi-target', 'each server gets exactly the scans for its own libraries, at its own paths'),
  'TARGETS[].TOKEN': T('e2e/multi-target', 'each server gets exactly the scans for its own libraries, at its own paths'),
  'TARGETS[].PATH_MAPPINGS': T('targets/rewrite', 'hands the inner target the rewritten folder and file'),
  'TARGETS[].INCLUDE': T('targets/rewrite', 'lets only included folders through when INCLUDE is set'),
  'TARGETS[].EXCLUDE': T('targets/rewrite', 'stops excluded folders (either form) before the target'),
  'TARGETS[].SCAN_PAUSE': T('processor/processor', 'keeps the configured pause between scans to one target'),
  'TARGETS[].DATABASE_PATH': T('e2e/multi-target', 'a TARGETS Plex with its own DATABASE_PATH and EMPTY_TRASH empties its own trash'),
  'TARGETS[].SCANNER': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].SUPPORT_DIR': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].LD_LIBRARY_PATH': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].USER': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].USE_SUDO': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].USE_DOCKER': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].DOCKER_NAME': T('targets/plex-target-keys', 'leaves them unset when absent, so the PLEX_* keys apply'),
  'TARGETS[].EMPTY_TRASH': T('e2e/multi-target', 'a TARGETS Plex with its own DATABASE_PATH and EMPTY_TRASH empties its own trash'),
  'TARGETS[].EMPTY_TRASH_MAX_FILES': T('targets/plex-target-keys', 'the other keys follow their PLEX_* key unless set'),
  'TARGETS[].EMPTY_TRASH_CONTROL_FILES': T('targets/plex-target-keys', 'the other keys follow their PLEX_* key unless set'),
  'TARGETS[].EMPTY_TRASH_ZERO_DELETED': T('targets/plex-target-keys', 'the other keys follow their PLEX_* key unless set'),
  'TARGETS[].ANALYZE_TYPE': T('targets/plex-target-keys', 'the other keys follow their PLEX_* key unless set'),
  'TARGETS[].ANALYZE_DIRECTORY': T('targets/plex-target-keys', 'the other keys follow their PLEX_* key unless set'),

  NOTIFY: T('notify/notifications', 'a server down past DOWN_AFTER reaches Discord once, and its return once'),
  'NOTIFY.NAME': T('notify/notifications', 'a receiver that fails is retried, then logged; /health and the dashboard show its last result'),
  'NOTIFY.TYPE': T('notify/notifications', 'ntfy, Apprise and JSON get a scan that gave up in their own formats'),
  'NOTIFY.URL': T('notify/notifications', 'a server down past DOWN_AFTER reaches Discord once, and its return once'),
  'NOTIFY.EVENTS': T('notify/notifications', 'EVENTS filters'),
  'NOTIFY.DOWN_AFTER': T('notify/notifications', 'a short outage says nothing'),

  ARR: T('arr/catch-up', 'starts from now on first contact: what the app did before is never scanned; what it does after is, once'),
  'ARR.NAME': T('arr/catch-up', 'what a queued webhook asked for before a restart still counts after it; the cursor and its overlap survive'),
  'ARR.TYPE': T('arr/openapi-conformance', 'every request a catch-up and a connect sent the app is an operation of its document, with the key in X-Api-Key'),
  'ARR.URL': T('arr/catch-up', 'an app that does not answer, or hangs past the timeout, is down: one line; its history is read when it answers'),
  'ARR.API_KEY': T('arr/catch-up', 'a refused key is one line however often it is refused; webhooks are still taken; the catch-up resumes from its cursor when the key is right'),
  'ARR.CATCH_UP_INTERVAL': T('arr/catch-up', 'reads on a timer every CATCH_UP_INTERVAL; stopped, it reads nothing more'),
  'ARR.RECONCILE_INTERVAL': T('reconcile/schedule', 'runs FIRST_AFTER_MS after start, then every RECONCILE_INTERVAL'),

  PLEX_SECTION_PATH_MAPPINGS: ignoredLine('PLEX_SECTION_PATH_MAPPINGS'),
  PLEX_SECTION_PATH_MAPPINGS_WITH_API: ignoredLine('PLEX_SECTION_PATH_MAPPINGS_WITH_API'),
  GDRIVE: ignoredLine('GDRIVE'),
  RCLONE_RC_CACHE_EXPIRE: ignoredLine('RCLONE_RC_CACHE_EXPIRE'),
};

/** The keys of the reference tables, with the row's text (TARGETS fields as "TARGETS[].NAME"). */
function documentedKeys(): Map<string, string> {
  const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
  const ref = doc.slice(doc.indexOf('## Key reference'), doc.indexOf('## Differences from plex_autoscan'));
  const keys = new Map<string, string>();
  let section = '';
  for (const line of ref.split('\n')) {
    if (line.startsWith('### ')) section = line;
    const cell = /^\| (`[^|]*`) \|/.exec(line);
    if (!cell) continue;
    for (const [, key] of cell[1].matchAll(/`([A-Z0-9_.]+)`/g)) keys.set(section.includes('TARGETS') ? `TARGETS[].${key}` : key, line);
  }
  return keys;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('every documented config key', () => {
  const documented = documentedKeys();

  it('has an entry in this table, and every entry is documented', () => {
    expect([...documented.keys()].filter((k) => !(k in KEYS)), 'documented keys without an entry').toEqual([]);
    expect(Object.keys(KEYS).filter((k) => !documented.has(k)), 'entries for keys the docs do not list').toEqual([]);
    expect(documented.size).toBeGreaterThan(90);
  });

  it.each(Object.entries(KEYS).filter(([, e]) => 'proof' in e))('%s: its proof is a test that exists', (_key, entry) => {
    const [file, title] = (entry as { proof: [string, string] }).proof;
    expect(existsSync(join(repoRoot, file)), file).toBe(true);
    const text = readFileSync(join(repoRoot, file), 'utf8');
    // The title must be inside an it('…') name, not just anywhere in the file.
    const names = [...text.matchAll(/\bit(?:\.each\([^)]*\))?\(\s*(['`"])((?:(?!\1).)*)\1/gs)].map((m) => m[2]);
    expect(names.some((n) => n.includes(title)), `${file} has no test named like "${title}"`).toBe(true);
  });

  it('the keys accepted for compatibility say so in the docs and in the start-up log; unknown keys keep their note', async () => {
    const accepted = Object.entries(KEYS).filter(([, e]) => 'accepted' in e);
    for (const [key] of accepted) expect(documented.get(key), key).toMatch(/accepted for compatibility|accepts them|Where it came from|Replaced by|Before 2019|develop branch|Cloudbox/i);
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-keys-'));
    dirs.push(dir);
    writeConfigFile(dir, {
      SERVER_PASS: '0123456789abcdef0123456789abcdef',
      SERVER_USE_SQLITE: false,
      RCLONE: { BINARY: '/usr/bin/rclone', CRYPT_MAPPINGS: { 'My Drive/enc/': ['gcrypt:'] } },
      PLEX_SECTION_PATH_MAPPINGS: { '1': ['/Movies/'] },
      PLEX_SECTION_PATH_MAPPINGS_WITH_API: false,
      GDRIVE: { SCAN_EXTENSIONS: [] },
      RCLONE_RC_CACHE_EXPIRE: {},
      MY_OWN_NOTES: 'kept for me',
    });
    const log = join(dir, 'scanrelay.log');
    const child = runCli(['server', '--port', '0', '--host', '127.0.0.1', '--config', join(dir, 'config.json'), '--queuefile', join(dir, 'q.db'), '--logfile', log, '--loglevel', 'debug', '--log-format', 'json'], { cwd: dir });
    try {
      await child.waitFor(/Health: /, 15_000);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    const lines = readFileSync(log, 'utf8');
    for (const [key, entry] of accepted) expect(lines, key).toMatch((entry as { accepted: RegExp }).accepted);
    expect(lines).toMatch(/Unknown config key 'MY_OWN_NOTES' on line \d+ of .* It has no effect\./);
  });
});
