// The recipe of docs/architecture.md ("Where to add a new trigger"), followed once: a copy of src/ gets one new
// file for a made-up arr app and one line (with its import) in the trigger table. The copy typechecks with no
// other change, and its real server turns that app's webhooks into queued scans, reported and counted as the app.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from '../../src/sqlite/binding.js';
import { parseScanBody } from '../../src/triggers/index.js';
import { FakePlex } from '../fakes/plex.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { copySources, typecheckCopy } from '../support/source-copy.js';

const SECRET = 'c0c0a1c0c0a1c0c0a1c0c0a1c0c0a1c0';

/** Step 1: the new file, written the way src/triggers/readarr.ts is. */
const NEW_FILE = `// Comicarr (a made-up app): which files an event changed.
import type { Source } from '../request.js';
import type { ArrTrigger } from './arr-trigger.js';
import { objectAt, pathAt, type Payload } from './payload.js';
import { ignored, unhandled, type AppOutcome } from './result.js';
import { ScanList } from './scan-list.js';

export const comicarr: ArrTrigger<'comicarr'> = {
  source: 'comicarr',
  key: 'comic',
  events: ['ComicAdded', 'ComicFileDelete'],
  parse: comicarrEvent,
};

function comicarrEvent(payload: Payload, event: string, source: Source): AppOutcome {
  const path = pathAt(objectAt(payload, 'comicFile'), 'path');
  switch (event) {
    case 'Download':
      if (path === undefined) return ignored(event, 'Download event has no comicFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).file(path).requests() };
    case 'ComicFileDelete':
      if (path === undefined) return ignored(event, 'ComicFileDelete event has no comicFile.path');
      return { kind: 'scan', event, requests: new ScanList(source, event).deletedFile(path).requests() };
    default:
      return unhandled(event);
  }
}
`;

const download = { eventType: 'Download', comic: { id: 7, title: 'Saga', path: '/comics/Saga' }, comicFile: { path: '/comics/Saga/Saga 061.cbz' } };
const fileDelete = { eventType: 'ComicFileDelete', comic: { id: 7, title: 'Saga', path: '/comics/Saga' }, comicFile: { path: '/comics/Paper Girls/Paper Girls 01.cbz' } };

describe('where to add a new trigger: one new file plus one line in the table', () => {
  it('without the line, a payload of that shape names none of the known apps and is answered without a scan', () => {
    expect(parseScanBody(download, 'Comicarr/0.9.1 (debian 12)')).toEqual({
      kind: 'ignored',
      source: 'unknown',
      event: 'Download',
      reason: 'Download event names no series, movie, artist or author',
    });
  });

  describe('following the recipe in a copy of src/', { timeout: 120_000 }, () => {
    let copy: string;
    let plex: FakePlex;
    let tableDiff: string[];
    beforeAll(() => {
      copy = copySources('scanrelay-recipe-');
      writeFileSync(join(copy, 'src/triggers/comicarr.ts'), NEW_FILE);
      // Step 2: the table line, and the import it needs.
      const table = join(copy, 'src/triggers/arr-triggers.ts');
      const before = readFileSync(table, 'utf8');
      const after = before
        .replace("import { sonarr } from './sonarr.js';\n", "import { sonarr } from './sonarr.js';\nimport { comicarr } from './comicarr.js';\n")
        .replace('  readarr,\n]', '  readarr,\n  comicarr,\n]');
      writeFileSync(table, after);
      const lines = new Set(before.split('\n'));
      tableDiff = after.split('\n').filter((l) => !lines.has(l));
    });
    afterAll(async () => {
      killChildren();
      await plex?.stop();
      rmSync(copy, { recursive: true, force: true });
    });

    it('the change is the new file and two added lines of the table file; the copy typechecks as it is', () => {
      expect(tableDiff).toEqual(["import { comicarr } from './comicarr.js';", '  comicarr,']);
      // Fails with the compiler's messages if the Source type, the event lists or anything else wanted an edit too.
      typecheckCopy(copy);
    });

    it("the copy's server queues the new app's webhooks as scans, reports them as the app and counts them under its own events", async () => {
      plex = await new FakePlex({ sections: [{ key: '9', title: 'Comics', locations: ['/comics'] }] }).start();
      const dir = mkdtempSync(join(copy, 'run-'));
      const config = writeConfigFile(dir, {
        SERVER_PASS: SECRET,
        SERVER_IP: '127.0.0.1',
        SERVER_SCAN_DELAY: 3600, // the scans stay queued, to be read back
        PLEX_LOCAL_URL: plex.url,
        PLEX_TOKEN: plex.token,
        PLEX_SCAN_MODE: 'api',
      });
      const queuefile = join(dir, 'queue.db');
      const { url } = await startServer({ config, queuefile, dir, root: copy, timeoutMs: 60_000 });
      const post = async (body: object) => {
        const res = await fetch(`${url}/${SECRET}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'Comicarr/0.9.1 (debian 12)' },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };

      expect((await post(download)).status).toBe(200);
      expect((await post(fileDelete)).status).toBe(200);
      // An event of the app that its file does not scan for, and one no app sends: answered 200, no scan.
      expect(await post({ ...download, eventType: 'ComicAdded' })).toEqual({ status: 200, body: { ok: true, ignored: 'ComicAdded events do not apply to a comic payload' } });
      expect(await post({ ...download, eventType: 'Bogus' })).toEqual({ status: 200, body: { ok: true, ignored: 'Bogus is not an event scanrelay scans for' } });
      // A payload with no app's object is read as the app its User-Agent names, and says which path it lacks.
      expect((await post({ eventType: 'Download' })).body).toEqual({ ok: true, ignored: 'Download event has no comicFile.path' });

      const db = new Database(queuefile, { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare('SELECT folder, source, event, any_deleted FROM folders ORDER BY folder').all();
        expect(rows).toEqual([
          { folder: '/comics/Paper Girls', source: 'comicarr', event: 'ComicFileDelete', any_deleted: 1 },
          { folder: '/comics/Saga', source: 'comicarr', event: 'Download', any_deleted: 0 },
        ]);
      } finally {
        db.close();
      }

      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/scanrelay_requests_total\{source="comicarr",event="Download",outcome="queued"\} 1\n/);
      expect(metrics).toMatch(/scanrelay_requests_total\{source="comicarr",event="ComicFileDelete",outcome="queued"\} 1\n/);
      expect(metrics).toMatch(/scanrelay_requests_total\{source="comicarr",event="ComicAdded",outcome="ignored"\} 1\n/);
      expect(metrics).toMatch(/scanrelay_requests_total\{source="comicarr",event="other",outcome="ignored"\} 1\n/);
    });
  });
});
