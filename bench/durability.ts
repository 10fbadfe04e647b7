// Benchmark 3 — durability: kill -9 the real server at a random moment of a 20,000-request burst (64 concurrent
// keep-alive clients), restart it on the same queue file, drain to a fake Plex; every acknowledged folder must be
// delivered. Several rounds, each killed at a different moment.
import Database from '../src/sqlite/binding.js';
import { join } from 'node:path';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import { cleanup, createMediaFiles, log, SECRET, sleep, sonarrDownload, standalone, startServer, tempDir, writeConfig, type Figure } from './support.js';

const BURST = 20_000;
const CONCURRENCY = 64;
const ROUNDS = Number(process.env.BENCH_DURABILITY_ROUNDS ?? 3);
const DRAIN_TIMEOUT_MS = 180_000;

interface Round {
  killAt: number;
  sent: number;
  acknowledged: number;
  delivered: number;
  lost: number;
  drainMs: number;
}

async function round(plex: FakePlex, r: number): Promise<Round> {
  const dir = tempDir('kill');
  try {
    plex.requests.length = 0;
    const config = writeConfig(dir, { SERVER_SCAN_DELAY: 0, PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token });
    // Every episode the burst names is on disk (the default file check) and in Plex's view of it (the follow-up).
    const episode = (i: number) => `/data/media/tv/Show ${r}-${i}/Season 01/Show ${r}-${i} - S01E01 - Episode WEBDL-1080p.mkv`;
    const files = Array.from({ length: BURST }, (_, i) => episode(i));
    createMediaFiles(dir, files);
    for (const f of files) plex.onDisk.add(f);
    const queuefile = join(dir, 'queue.db');
    const first = await startServer({ dir, config, queuefile });

    // The kill lands after a random number of requests were sent (between 5% and 95% of the burst).
    const killAt = Math.floor(BURST * (0.05 + 0.9 * Math.random()));
    const acked = new Set<string>();
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (!killed && next < BURST) {
        const i = next++;
        if (i === killAt) {
          killed = true;
          first.proc.kill('SIGKILL');
          break;
        }
        try {
          const res = await fetch(`${first.url}/${SECRET}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: sonarrDownload(`Show ${r}-${i}`),
            signal: AbortSignal.timeout(10_000),
          });
          await res.arrayBuffer();
          if (res.status >= 200 && res.status < 300) acked.add(`/data/media/tv/Show ${r}-${i}/Season 01`);
        } catch {
          /* cut by the kill: not acknowledged */
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await first.exited;
    const sent = Math.min(next, BURST);

    const second = await startServer({ dir, config, queuefile });
    const started = Date.now();
    const delivered = () => new Set(plex.refreshes.map((x) => x.path));
    let missing = [...acked];
    while (Date.now() - started < DRAIN_TIMEOUT_MS) {
      const d = delivered();
      missing = missing.filter((f) => !d.has(f));
      if (missing.length === 0) break;
      await sleep(250);
    }
    const drainMs = Date.now() - started;
    await second.stop('SIGTERM');
    const d = delivered();
    // Undelivered but still in the queue file is a stall, not a loss: say which.
    const db = new Database(queuefile, { readonly: true });
    const find = db.prepare('SELECT 1 FROM folders WHERE folder = ?');
    const stillQueued = missing.filter((f) => find.get(f) !== undefined).length;
    db.close();
    if (missing.length) log(`durability round ${r + 1}: ${missing.length} acknowledged folders undelivered after ${DRAIN_TIMEOUT_MS / 1000} s, of which ${stillQueued} still in the queue file (stalled, not lost); server output tail:\n${second.tail().slice(-2000)}`);
    const result = { killAt, sent, acknowledged: acked.size, delivered: [...acked].filter((f) => d.has(f)).length, lost: missing.length, drainMs };
    log(`durability round ${r + 1}/${ROUNDS}: killed at request ${killAt}; acknowledged ${result.acknowledged} / delivered ${result.delivered} / lost ${result.lost} (distinct folders refreshed ${d.size}; drain after restart ${drainMs} ms)`);
    return result;
  } finally {
    cleanup(dir);
  }
}

export async function run(): Promise<Figure[]> {
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  plex.scanPolls = 0; // each small folder is scanned before anyone polls
  // As a real Plex: its notification socket tells each scan's end, so follow-ups free their slots (the default
  // PLEX_MAX_OUTSTANDING cap) as scans end. Without it the drain runs at the cap per /activities poll (docs/performance.md).
  attachPlexNotifications(plex);
  const rounds: Round[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(plex, r));
  } finally {
    await plex.stop();
  }
  const acknowledged = rounds.reduce((a, x) => a + x.acknowledged, 0);
  const delivered = rounds.reduce((a, x) => a + x.delivered, 0);
  const lost = rounds.reduce((a, x) => a + x.lost, 0);
  const perRound = rounds.map((x) => `${x.acknowledged}/${x.delivered}/${x.lost}`).join(', ');
  return [
    {
      id: '3',
      name: `durability: kill -9 during a 20,000-request burst, ${rounds.length} rounds; lost (acknowledged/delivered/lost per round: ${perRound})`,
      value: lost,
      unit: 'lost',
      baseline: { label: 'acknowledged', value: acknowledged, unit: 'acked' },
      ratio: acknowledged ? delivered / acknowledged : undefined,
      target: 'lost = 0 every run',
      pass: lost === 0 && rounds.every((x) => x.lost === 0 && x.acknowledged > 0),
      note: lost === 0 ? undefined : `${lost} acknowledged folder(s) never delivered`,
    },
  ];
}

await standalone(import.meta.url, run);
