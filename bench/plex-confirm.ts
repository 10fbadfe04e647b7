// Benchmark 12 — confirmation from Plex's notifications, beside /activities polling with the database. A fake Plex of 5,000 movies and 5,000 episodes runs its scans one at a time, 300 ms each; 200 new
// files arrive across 100 folders (50 movie folders, 50 season folders, two files each), all scans asked at
// once. (a) The PlexFollower with its defaults on the notification socket, no database: one GET
// /library/metadata per item a scan created. (b) The same follower without the socket (PLEX_FOLLOW_INTERVAL 1 s,
// 5 s grace), the database read standing in as a lookup in the fake's library. Figures: time from each scan's end to `confirmed` (p50, p95), and the bytes and
// requests read from Plex per confirmed file (socket frames counted as bytes read).
// Run alone: node --import tsx bench/plex-confirm.ts
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { systemClock } from '../src/clock.js';
import { PlexApi } from '../src/targets/plex/api.js';
import { NO_AFTER_SCAN } from '../src/targets/plex/after-scan.js';
import type { PlexTicket } from '../src/targets/plex/follow/follow-up.js';
import { PlexFollower } from '../src/targets/plex/follow/follower.js';
import { PlexNotifications } from '../src/targets/plex/follow/notifications.js';
import { FakePlex } from '../test/fakes/plex.js';
import { attachPlexNotifications } from '../test/fakes/plex-notifications.js';
import type { Figure } from './support.js';

const LIBRARY = 5_000;
const FOLDERS = 100;
const SCAN_MS = 300;
const SECTIONS = [
  { key: '1', title: 'Movies', type: 'movie', locations: ['/data/media/movies'] },
  { key: '2', title: 'TV Shows', type: 'show', locations: ['/data/media/tv'] },
];

interface Folder {
  path: string;
  section: string;
  files: string[];
}

/** The fake with its library, the new files on its disk, and the time each scan ended (by folder). */
function fakePlex(): { plex: FakePlex; folders: Folder[]; endedAt: Map<string, number> } {
  const plex = new FakePlex({ sections: SECTIONS });
  plex.fifoMs = SCAN_MS;
  const folders: Folder[] = [];
  for (let i = 0; i < FOLDERS; i++) {
    const movie = i % 2 === 0;
    const path = movie ? `/data/media/movies/New Film ${i} (2026)` : `/data/media/tv/New Show ${i}/Season 01`;
    const files = movie ? [`${path}/New Film ${i} (2026) - cd1.mkv`, `${path}/New Film ${i} (2026) - cd2.mkv`] : [`${path}/New Show ${i} S01E01.mkv`, `${path}/New Show ${i} S01E02.mkv`];
    for (const f of files) plex.onDisk.add(f);
    folders.push({ path, section: movie ? '1' : '2', files });
  }
  const endedAt = new Map<string, number>();
  return { plex, folders, endedAt };
}

function fillLibrary(plex: FakePlex): void {
  for (let i = 0; i < LIBRARY; i++) plex.addToLibrary(`/data/media/movies/Film ${i} (2001)/Film ${i} (2001).mkv`, undefined);
  for (let i = 0; i < LIBRARY; i++) plex.addToLibrary(`/data/media/tv/Show ${i % 250}/Season ${1 + Math.floor(i / 250)}/Show ${i % 250} E${i}.mkv`, `s${i % 250}`);
}

/** Records when each scan ended (the fake's finishedScans), by folder. */
function watchEnds(plex: FakePlex, endedAt: Map<string, number>): void {
  const finished = plex.finishedScans;
  const push = finished.push.bind(finished);
  finished.push = (...ended) => {
    for (const e of ended) endedAt.set(e.path, Date.now());
    return push(...ended);
  };
}

/** fetch that counts requests and bytes read (status line, headers, body). */
function countingFetch(count: { requests: number; bytes: number }): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const body = await res.arrayBuffer();
    count.requests++;
    let headerBytes = `HTTP/1.1 ${res.status} ${res.statusText}\r\n`.length + 2;
    res.headers.forEach((v, k) => (headerBytes += k.length + v.length + 4));
    count.bytes += headerBytes + body.byteLength;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

const refresh = (plex: FakePlex, f: Folder) => fetch(`${plex.url}/library/sections/${f.section}/refresh?path=${encodeURIComponent(f.path)}`, { headers: { 'X-Plex-Token': plex.token } });

interface Result {
  latencies: number[];
  confirmed: number;
  requests: number;
  bytes: number;
}

/** (a) The follower with its defaults on the notification socket, no database. */
async function viaNotifications(): Promise<Result> {
  const { plex, folders, endedAt } = fakePlex();
  await plex.start();
  const socketFrames = attachPlexNotifications(plex);
  fillLibrary(plex);
  watchEnds(plex, endedAt);
  const count = { requests: 0, bytes: 0 };
  const api = new PlexApi({ url: plex.url, token: plex.token, fetch: countingFetch(count) });
  const logger = pino({ level: 'silent' });
  const notifications = new PlexNotifications({ url: plex.url, token: plex.token, clock: systemClock });
  const follower = new PlexFollower({ ...defaults(api, logger), watch: notifications });
  const r = await follow(plex, folders, endedAt, follower, async () => {
    await until(() => notifications.connected);
  });
  await socketFrames.close();
  await plex.stop();
  return { ...r, requests: count.requests, bytes: count.bytes + socketFrames.bytesSent };
}

/** The follower's defaults (PLEX_FOLLOW_INTERVAL 1 s, 5 s grace, nothing after the scan). */
const defaults = (api: PlexApi, logger: pino.Logger) => ({ api, clock: systemClock, logger, pollMs: 1_000, graceMs: 5_000, timeoutMs: 600_000, after: NO_AFTER_SCAN, analyze: false });

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

/** Asks every scan at once, follows every file, and waits for every outcome. */
async function follow(plex: FakePlex, folders: Folder[], endedAt: Map<string, number>, follower: PlexFollower, ready: () => Promise<void>): Promise<Omit<Result, 'requests' | 'bytes'>> {
  const latencies: number[] = [];
  const total = folders.length * 2;
  let confirmed = 0;
  let outcomes = 0;
  let allDone!: () => void;
  const done = new Promise<void>((r) => (allDone = r));
  const folderOfItem = new Map<number, string>();
  follower.start(async (item, result) => {
    if (result.state === 'confirmed') {
      latencies.push(Date.now() - endedAt.get(folderOfItem.get(item.ref.folderId)!)!);
      confirmed++;
    }
    if (++outcomes === total) allDone();
  });
  await ready();
  let id = 0;
  await Promise.all(
    folders.map(async (fo) => {
      // As the target does before a refresh: the section's timeline entries are kept from now.
      follower.watchScans([fo.section]);
      await refresh(plex, fo);
      for (const file of fo.files) {
        const ticket: PlexTicket = { sections: [{ id: fo.section, title: fo.section }], file };
        folderOfItem.set(++id, fo.path);
        follower.follow({ ref: { folderId: id, generation: 1 }, folder: fo.path, event: 'Download', deliveredAt: Date.now(), ticket });
      }
    }),
  );
  await done;
  await follower.stop();
  return { latencies, confirmed };
}

/** (b) Polling: /activities every PLEX_FOLLOW_INTERVAL, the database for the file (the socket off). */
async function viaPolling(): Promise<Result> {
  const { plex, folders, endedAt } = fakePlex();
  await plex.start();
  fillLibrary(plex);
  watchEnds(plex, endedAt);
  const count = { requests: 0, bytes: 0 };
  const api = new PlexApi({ url: plex.url, token: plex.token, fetch: countingFetch(count) });
  const follower = new PlexFollower({ ...defaults(api, pino({ level: 'silent' })), fileInLibrary: async (path) => plex.library.has(path) });
  const r = await follow(plex, folders, endedAt, follower, async () => {});
  await plex.stop();
  return { ...r, requests: count.requests, bytes: count.bytes };
}

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

export async function run(): Promise<Figure[]> {
  const n = await viaNotifications();
  const p = await viaPolling();
  const per = (r: Result, v: number) => (r.confirmed ? v / r.confirmed : NaN);
  const base = (label: string, value: number, unit?: string) => ({ label, value, unit });
  return [
    { id: '12a', name: 'scan end → confirmed, p95 (notifications)', value: pct(n.latencies, 95), unit: 'ms', baseline: base('/activities + database', pct(p.latencies, 95), 'ms'), target: '≤ 1000 ms', pass: pct(n.latencies, 95) <= 1000, note: `p50 ${pct(n.latencies, 50)} ms vs ${pct(p.latencies, 50)} ms; ${n.confirmed}/${p.confirmed} of 200 confirmed` },
    { id: '12b', name: 'bytes read from Plex per confirmed file (notifications)', value: Math.round(per(n, n.bytes)), unit: 'B', baseline: base('/activities + database', Math.round(per(p, p.bytes)), 'B'), target: '≤ 5120 B', pass: per(n, n.bytes) <= 5120 },
    { id: '12c', name: 'requests to Plex per confirmed file (notifications)', value: Number(per(n, n.requests).toFixed(2)), unit: 'req', baseline: base('/activities + database', Number(per(p, p.requests).toFixed(2)), 'req'), target: '≤ 2', pass: per(n, n.requests) <= 2 },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await run();
  for (const f of figures) console.log(`${f.pass ? 'PASS' : 'FAIL'} ${f.id} ${f.name}: ${f.value} ${f.unit} (${f.baseline?.label}: ${f.baseline?.value} ${f.baseline?.unit ?? ''}; target ${f.target})${f.note ? ` — ${f.note}` : ''}`);
  process.exit(0);
}
