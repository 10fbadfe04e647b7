// Where the idle relay's memory goes, part by part: RSS after idling (40 s, bench/memory.ts) of small programs that each add one of
// the relay's parts to the one before (bare node:http, then Fastify, the config schema in zod, better-sqlite3,
// pino, prom-client, ws), then the relay itself, all started together on one Node. Each program is bundled as the
// relay is (scripts/bundle.mjs's options, one ES module, node:http by require) and run with the relay's Node
// flags. The bare server is shown twice, with the relay's flags and with none. `node --import tsx bench/memory.ts --by-part` prints the table.
import { build } from 'esbuild';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleOptions } from '../scripts/bundle.mjs';
import { BARE_SERVER, repoRoot, rssMb, serverFlags, spawnScript, type ServerChild } from './support.js';

interface Part {
  name: string;
  /** Import lines. */
  imports: string;
  /** Statements run at start, before listening. */
  setup: string;
}

/** Each adds itself to all the parts before it. */
const PARTS: Part[] = [
  {
    name: '+ Fastify (one route)',
    imports: `import Fastify from 'fastify';`,
    setup: `const app = Fastify({ logger: false }); app.get('/health', async () => ({ ok: true })); keep.push(app);`,
  },
  {
    name: '+ zod: the config schema, a default config parsed',
    imports: `import { defaultConfig } from './src/config/defaults.ts';`,
    setup: `keep.push(defaultConfig());`,
  },
  {
    name: '+ better-sqlite3: a WAL database with a table',
    imports: `import Database from './src/sqlite/binding.ts';`,
    setup: `{ const db = new Database(process.argv[3] + '/part.db'); db.pragma('journal_mode = WAL'); db.exec('CREATE TABLE IF NOT EXISTS t (a TEXT PRIMARY KEY)'); db.prepare('INSERT OR IGNORE INTO t VALUES (?)').run('x'); keep.push(db); }`,
  },
  {
    name: '+ pino: the log file logger',
    imports: `import { createLogger } from './src/log/logger.ts';`,
    setup: `{ const logger = createLogger({ level: 'info', file: process.argv[3] + '/part.log', console: null, buffered: true }); logger.info('started'); keep.push(logger); }`,
  },
  {
    name: '+ prom-client: a registry with the default metrics',
    imports: `import { collectDefaultMetrics, Registry } from 'prom-client';`,
    setup: `{ const register = new Registry(); collectDefaultMetrics({ register }); keep.push(register); }`,
  },
  {
    name: '+ ws: the WebSocket client loaded',
    imports: `import WebSocket from 'ws';`,
    setup: `keep.push(WebSocket);`,
  },
];

function program(parts: Part[]): string {
  return [
    ...parts.map((p) => p.imports),
    `const keep = [];`,
    ...parts.map((p) => p.setup),
    `await app.listen({ port: 0, host: '127.0.0.1' }); console.log('http://127.0.0.1:' + app.server.address().port);`,
    `process.on('SIGTERM', () => process.exit(0));`,
  ].join('\n');
}

/** Bundles the cumulative programs into dist/bench-parts/ (beside node_modules, so better-sqlite3 resolves). */
export async function buildParts(): Promise<{ name: string; file: string }[]> {
  const dir = join(repoRoot, 'dist', 'bench-parts');
  mkdirSync(dir, { recursive: true });
  const out: { name: string; file: string }[] = [];
  for (let i = 1; i <= PARTS.length; i++) {
    const file = join(dir, `part-${i}.mjs`);
    await build({
      ...bundleOptions,
      entryPoints: undefined,
      outdir: undefined,
      splitting: false,
      sourcemap: false,
      legalComments: 'none',
      stdin: { contents: program(PARTS.slice(0, i)), resolveDir: repoRoot, sourcefile: `part-${i}.ts`, loader: 'ts' },
      outfile: file,
    });
    out.push({ name: PARTS[i - 1].name, file });
  }
  return out;
}

export interface PartRss {
  name: string;
  rss: number;
  /** Of it, anonymous memory (heap, malloc) and pages of files (the node binary, libraries) in MB. */
  anon: number;
  file: number;
}

/** RssAnon and RssFile of a live process, in MB. */
function rssParts(pid: number): { anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { anon: kb('RssAnon'), file: kb('RssFile') };
}

/** One round: every part, the bare server (with the flags and without) and the relay started together. */
export async function partsRound(node: string, parts: { name: string; file: string }[], dir: string, relay: () => Promise<ServerChild>, idleMs: number): Promise<PartRss[]> {
  const flags = serverFlags();
  const children: { name: string; child: Promise<ServerChild> }[] = [
    { name: 'bare node:http, no flags', child: spawnScript(node, [], ['-e', BARE_SERVER, '0']) },
    { name: `bare node:http, the relay's flags`, child: spawnScript(node, flags, ['-e', BARE_SERVER, '0']) },
    ...parts.map((p) => ({ name: p.name, child: spawnScript(node, flags, [p.file, '0', dir]) })),
    { name: 'the relay (scanrelay server, a Plex target)', child: relay() },
  ];
  const started = await Promise.all(children.map((c) => c.child));
  try {
    await new Promise((r) => setTimeout(r, idleMs));
    return children.map((c, i) => ({ name: c.name, rss: rssMb(started[i].pid), ...rssParts(started[i].pid) }));
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}
