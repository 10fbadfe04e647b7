// The recipe of docs/architecture.md ("Where to add a new target"), followed once: a copy of src/ gets one module
// for a made-up reading server and one line (with its import) in the table of kinds. The copy typechecks with no
// other change; its real server scans a folder on it, obeys the table's keys, and its doctor answers for it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { listenLocal } from '../support/net.js';
import { copySources, typecheckCopy } from '../support/source-copy.js';
import { until } from '../support/until.js';

const SECRET = 'b00cb00cb00cb00cb00cb00cb00cb00c';
const KEY = 'papyrus-key-7d7d';

/** Step 1: the module, written the way src/targets/audiobookshelf.ts is. */
const MODULE = `// The "papyrus" kind (a made-up reading server): finds the shelf holding the folder (GET /shelves) and asks it to
// rescan that folder (POST /shelves/{id}/rescan?path=...).
import { ACKNOWLEDGEMENT, LIBRARY_LIST, SERVER_STATUS } from '../http/answer-caps.js';
import { apiCaller } from '../http/api-call.js';
import { choice, optional } from '../value-rules.js';
import { trimTrailingSeparator } from '../paths/folder.js';
import type { ScanOutcome } from '../scan.js';
import { needsToken, needsUrl, targetKind } from './kind.js';
import { knownLocations, LibraryList } from './library-list.js';

export const papyrus = targetKind({
  keys: () => ({
    /** How soon the server reads the folder. */
    PRIORITY: optional(choice(['low', 'high'])),
  }),
  requires: { URL: needsUrl('papyrus'), TOKEN: needsToken('papyrus') },
  build(entry, ctx) {
    const api = apiCaller({
      who: \`papyrus '\${entry.NAME}'\`,
      url: entry.URL ?? '',
      urlKey: ctx.urlKey,
      headers: { 'X-Papyrus-Key': entry.TOKEN ?? '' },
      secrets: [entry.TOKEN ?? ''],
      fetch: ctx.fetch,
      clock: ctx.clock,
      logger: ctx.logger,
      authHint: 'check TOKEN',
    });
    const shelves = new LibraryList(async () => {
      const list = await api.json<{ id: string; name: string; roots: string[] }[]>('GET', '/shelves', { cap: LIBRARY_LIST });
      return list.map((s) => ({ id: s.id, title: s.name, locations: s.roots }));
    }, ctx.clock);
    return {
      kind: 'papyrus',
      libraries: (ask) => shelves.get(ask),
      async scan(folder: string): Promise<ScanOutcome> {
        const path = trimTrailingSeparator(folder);
        try {
          const found = await shelves.holding(path);
          if (found.holders.length === 0) return { status: 'unmatched', detail: \`'\${path}' is on no shelf (known: \${knownLocations(found.all)})\` };
          const shelf = found.holders[0];
          await api.call('POST', \`/shelves/\${shelf.id}/rescan\`, { cap: ACKNOWLEDGEMENT, query: { path, priority: entry.PRIORITY ?? 'low' } });
          return { status: 'scanned', detail: shelf.title, sections: [shelf.id] };
        } catch (err) {
          return api.retry(err);
        }
      },
      available: () => api.answers('GET', '/ping', { cap: SERVER_STATUS }),
    };
  },
});
`;

/** The made-up server: one shelf at /shelf/comics; each rescan is held a moment, so overlapping ones would show. */
async function startPapyrus() {
  const rescans: { path: string; priority: string }[] = [];
  let now = 0;
  let most = 0;
  const server: Server = createServer((req, res) => {
    if (req.headers['x-papyrus-key'] !== KEY) return void res.writeHead(401).end();
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ping') return void res.writeHead(200).end('{}');
    if (url.pathname === '/shelves') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ id: 's1', name: 'Comics', roots: ['/shelf/comics'] }]));
    if (req.method === 'POST' && url.pathname === '/shelves/s1/rescan') {
      most = Math.max(most, ++now);
      setTimeout(() => {
        now--;
        rescans.push({ path: url.searchParams.get('path') ?? '', priority: url.searchParams.get('priority') ?? '' });
        res.writeHead(204).end();
      }, 20);
      return;
    }
    res.writeHead(404).end();
  });
  const url = await listenLocal(server);
  return { url, rescans, most: () => most, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('where to add a new target: one module plus one line in the table', { timeout: 120_000 }, () => {
  let copy: string;
  let papyrus: Awaited<ReturnType<typeof startPapyrus>>;
  let tableDiff: string[];
  beforeAll(() => {
    copy = copySources('scanrelay-target-recipe-');
    writeFileSync(join(copy, 'src/targets/papyrus.ts'), MODULE);
    // Step 2: the table line, and the import it needs.
    const table = join(copy, 'src/targets/kinds.ts');
    const before = readFileSync(table, 'utf8');
    const after = before
      .replace("import { tdarr } from './tdarr.js';\n", "import { tdarr } from './tdarr.js';\nimport { papyrus } from './papyrus.js';\n")
      .replace('  relay,\n}', '  relay,\n  papyrus,\n}');
    writeFileSync(table, after);
    const lines = new Set(before.split('\n'));
    tableDiff = after.split('\n').filter((l) => !lines.has(l));
  });
  afterAll(async () => {
    killChildren();
    await papyrus?.close();
    rmSync(copy, { recursive: true, force: true });
  });

  it('the change is the new module and two added lines of the table; the copy typechecks as it is', () => {
    expect(tableDiff).toEqual(["import { papyrus } from './papyrus.js';", '  papyrus,']);
    // Fails with the compiler's messages if the TYPE list, the entry schema or anything else wanted an edit too.
    typecheckCopy(copy);
  });

  it("the copy's server scans on the new kind one at a time (SCAN_CONCURRENCY 1), in its own path form, and its doctor answers for it", async () => {
    papyrus = await startPapyrus();
    const dir = mkdtempSync(join(copy, 'run-'));
    const config = writeConfigFile(dir, {
      SERVER_PASS: SECRET,
      SERVER_IP: '127.0.0.1',
      SERVER_SCAN_DELAY: 0,
      SERVER_MAX_FILE_CHECKS: 0,
      SERVER_ALLOW_MANUAL_SCAN: true,
      PLEX_ENABLED: false,
      TARGETS: [{ NAME: 'shelf', TYPE: 'papyrus', URL: papyrus.url, TOKEN: KEY, PRIORITY: 'high', SCAN_CONCURRENCY: 1, PATH_MAPPINGS: { '/shelf/': ['/data/'] } }],
    });
    const { url } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, root: copy, timeoutMs: 60_000 });
    const books = ['Saga', 'Paper Girls', 'Monstress'];
    for (const book of books) {
      const body = `eventType=Manual&filepath=${encodeURIComponent(`/data/comics/${book}/01.cbz`)}`;
      const res = await fetch(`${url}/${SECRET}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
      expect(res.status).toBe(200);
    }

    await until(() => papyrus.rescans.length === 3, { ms: 20_000, what: () => JSON.stringify(papyrus.rescans) });
    expect(papyrus.rescans.map((r) => r.path).sort()).toEqual(books.map((b) => `/shelf/comics/${b}`).sort());
    expect(papyrus.rescans.every((r) => r.priority === 'high')).toBe(true);
    expect(papyrus.most()).toBe(1);

    const doctor = await (await fetch(`${url}/${SECRET}/doctor?path=${encodeURIComponent('/data/comics/Saga/02.cbz')}`)).text();
    expect(doctor).toContain('in <strong>Comics</strong>: <code>/shelf/comics</code>');
    expect(doctor).toMatch(/<strong>scan<\/strong>: Would scan (&#39;|&#x27;)\/shelf\/comics\/Saga(&#39;|&#x27;) on shelf \(Comics\)\./);
  });
});
