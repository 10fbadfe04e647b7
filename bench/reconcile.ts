// Benchmark 16 — reconcile: `scanrelay reconcile` (the bundle with the launch setting, as the image runs it) with a model Sonarr of 20,000
// episode files (400 series of 50) against a model Plex section of 20,000 items and a model Jellyfin library of the
// same, 10 files missing from each server and 10 items the app does not know on each. Figures: the wall time of the
// whole command, its peak RSS, the bytes it read from each server (counted by a proxy in front of each), whether it
// found exactly what is missing and unknown, and the file-system calls it made on media paths (a second run under
// strace): none, since it reads no disk. Baseline for the RSS: the same command with an app that lists no file, which
// reads no server.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { join } from 'node:path';
import { tvLibrary, episodeFile, seriesName } from '../test/fakes/jellyfin-libraries.js';
import { startJellyfinServer, type JellyfinServer } from '../test/fakes/jellyfin-server.js';
import { FakeArrApp } from '../test/fakes/arr-app.js';
import { FakePlex } from '../test/fakes/plex.js';
import { writeConfigFile } from '../test/support/config-file.js';
import { MALLOC_ENV } from '../test/support/launch.js';
import { builtCli, cleanup, log, peakRssMb, SECRET, serverFlags, standalone, tempDir, type Figure } from './support.js';

const API_KEY = 'bench-arr-key-7e1d3c5a9b0f';
const SERIES = 400;
const EPISODES = 50;
const MISSING = 10;
const UNKNOWN = 10;

/**
 * A TCP proxy in front of `port` that counts the bytes the server sends back, and the time the command waited on it:
 * from a request's first byte to its answer's last (one request at a time on a connection, as the command asks).
 */
async function counting(port: number): Promise<{ port: number; bytes: () => number; waitedMs: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  let waited = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    let asked: number | undefined;
    let answered = 0;
    const settle = () => {
      if (asked !== undefined && answered > asked) waited += answered - asked;
      asked = undefined;
    };
    client.on('data', () => {
      if (asked === undefined || answered > asked) settle();
      asked ??= performance.now();
    });
    upstream.on('data', (d: Buffer) => {
      bytes += d.length;
      answered = performance.now();
    });
    client.pipe(upstream).pipe(client);
    const end = () => (settle(), client.destroy(), upstream.destroy());
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { port: typeof addr === 'object' && addr ? addr.port : 0, bytes: () => bytes, waitedMs: () => waited, close: () => new Promise((r) => server.close(() => r())) };
}

const portOf = (url: string) => Number(new URL(url).port);

/** Runs the bundle's `reconcile` (optionally under strace); resolves with its output, wall time and peak RSS. */
function runReconcile(dir: string, config: string, strace?: string): Promise<{ out: string; ms: number; rssMb: number; cpuS: number; code: number | null }> {
  // The launch setting of the image and the unit, whose entry runs every command with it (bench/support.ts serverFlags).
  const env = { ...process.env, ...MALLOC_ENV };
  const args = [...serverFlags(), builtCli(), '--config', config, '--queuefile', join(dir, 'queue.db'), '--logfile', '-', 'reconcile'];
  const proc = strace ? spawn('strace', ['-f', '-e', 'trace=%file', '-o', strace, process.execPath, ...args], { cwd: dir, env }) : spawn(process.execPath, args, { cwd: dir, env });
  const t0 = performance.now();
  let out = '';
  let rssMb = 0;
  let cpuS = 0;
  proc.stdout.on('data', (d: Buffer) => (out += d));
  proc.stderr.on('data', (d: Buffer) => (out += d));
  // VmHWM only grows: the last sample before the exit is the peak.
  const sample = setInterval(() => {
    try {
      if (strace) return;
      rssMb = Math.max(rssMb, peakRssMb(proc.pid!));
      // utime + stime (fields 14 and 15 of /proc/<pid>/stat), in clock ticks of 1/100 s.
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      cpuS = (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // exited between two samples
    }
  }, 20);
  return new Promise((resolve) =>
    proc.on('exit', (code) => {
      clearInterval(sample);
      resolve({ out, ms: performance.now() - t0, rssMb, cpuS, code });
    }),
  );
}

export async function run(): Promise<Figure[]> {
  const dir = tempDir('reconcile');
  const sonarr = await new FakeArrApp('sonarr', API_KEY).start();
  const empty = await new FakeArrApp('sonarr', API_KEY).start();
  const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
  let jellyfin: JellyfinServer | undefined;
  const proxies: Awaited<ReturnType<typeof counting>>[] = [];
  try {
    log(`reconcile: building ${SERIES * EPISODES} files in the app and in each server`);
    sonarr.rootFolders = ['/tv'];
    empty.rootFolders = ['/tv'];
    jellyfin = await startJellyfinServer();
    // Plex's library is /data/media/tv (SERVER_PATH_MAPPINGS from the app's /tv/); Jellyfin's /tv (its own PATH_MAPPINGS back).
    tvLibrary(jellyfin.model, '/tv', { series: SERIES, seasons: 1, episodes: EPISODES });
    for (let s = 1; s <= SERIES; s++) {
      const id = sonarr.addItem(`/tv/${seriesName(s)}`);
      for (let e = 1; e <= EPISODES; e++) {
        const file = episodeFile('/tv', s, 1, e);
        sonarr.addFile(id, file);
        if (s > MISSING || e > 1) plex.addToLibrary(file.replace('/tv/', '/data/media/tv/'));
      }
    }
    for (let u = 1; u <= UNKNOWN; u++) {
      plex.addToLibrary(`/data/media/tv/Old ${u}/Season 01/Old ${u} - S01E01.mkv`);
      jellyfin.model.writeFile(`/tv/Old ${u}/Season 01/Old ${u} - S01E01.mkv`);
    }
    // Jellyfin lacks the last episode of the last MISSING series: on its disk, written after its last scan.
    const late = Array.from({ length: MISSING }, (_, k) => episodeFile('/tv', SERIES - k, 1, EPISODES));
    for (const f of late) jellyfin.model.remove(f);
    jellyfin.model.settle();
    for (const f of late) jellyfin.model.writeFile(f);
    const [app, px, jf] = await Promise.all([counting(portOf(sonarr.url)), counting(portOf(plex.url)), counting(portOf(jellyfin.url))]);
    proxies.push(app, px, jf);
    const configOf = (appUrl: string) =>
      writeConfigFile(dir, {
        SERVER_PASS: SECRET,
        PLEX_LOCAL_URL: `http://127.0.0.1:${px.port}`,
        PLEX_TOKEN: plex.token,
        PLEX_SCAN_MODE: 'api',
        SERVER_PATH_MAPPINGS: { '/data/media/tv/': ['/tv/'] },
        TARGETS: [{ NAME: 'jellyfin', TYPE: 'jellyfin', URL: `http://127.0.0.1:${jf.port}`, TOKEN: jellyfin!.token, PATH_MAPPINGS: { '/tv/': ['/data/media/tv/'] } }],
        ARR: [{ NAME: 'sonarr', TYPE: 'sonarr', URL: appUrl, API_KEY }],
      });
    builtCli();
    const floor = await runReconcile(dir, configOf(empty.url));
    const config = configOf(`http://127.0.0.1:${app.port}`);
    log('reconcile: the measured run');
    const r = await runReconcile(dir, config);
    if (r.code !== 0) throw new Error(`reconcile exited ${r.code}: ${r.out.slice(-500)}`);
    const found = (target: string) => new RegExp(`${target}: (\\d+) file\\(s\\) of the app in its libraries, (\\d+) item\\(s\\); missing (\\d+), unknown to the app (\\d+)`).exec(r.out);
    const p = found('plex');
    const j = found('jellyfin');
    const right = (m: RegExpExecArray | null, missing: number) => m !== null && Number(m[3]) === missing && Number(m[4]) === UNKNOWN;
    const plexMissing = MISSING;
    const jellyfinMissing = MISSING;
    const bytes = { app: app.bytes(), plex: px.bytes(), jellyfin: jf.bytes() };
    const waited = { app: app.waitedMs(), plex: px.waitedMs(), jellyfin: jf.waitedMs() };
    // The same run under strace (the queue file now holds the folders queued: they are queued again, merged).
    log('reconcile: again under strace');
    const trace = join(dir, 'strace.txt');
    await runReconcile(dir, config, trace);
    const media = readFileSync(trace, 'utf8').split('\n').filter((l) => /"(\/tv|\/data\/media)\//.test(l));
    const mb = (n: number) => n / 2 ** 20;
    return [
      { id: '16', name: `reconcile: ${SERIES * EPISODES} Sonarr episode files against a Plex section and a Jellyfin library of as many, wall time of the command`, value: r.ms / 1000, unit: 's', target: '< 30 s', pass: r.ms < 30_000 },
      {
        id: '16',
        name: `reconcile: time the command waited on the model servers (Sonarr ${(waited.app / 1000).toFixed(1)} s, Plex ${(waited.plex / 1000).toFixed(1)} s, Jellyfin ${(waited.jellyfin / 1000).toFixed(1)} s), of its wall time`,
        value: (waited.app + waited.plex + waited.jellyfin) / 1000,
        unit: 's',
        target: '—',
        pass: true,
      },
      { id: '16', name: 'reconcile: CPU time of the command (user + system)', value: r.cpuS, unit: 's', target: '—', pass: true },
      { id: '16', name: 'reconcile: peak RSS of the command', value: r.rssMb, unit: 'MB', baseline: { label: 'the same command, an app with no file', value: floor.rssMb }, ratio: r.rssMb / floor.rssMb, target: '< 100 MB', pass: r.rssMb < 100 },
      { id: '16', name: 'reconcile: read from Sonarr (the series list and 400 episode-file lists)', value: mb(bytes.app), unit: 'MiB', target: '—', pass: true },
      { id: '16', name: 'reconcile: read from Plex (sections, 500 items a page)', value: mb(bytes.plex), unit: 'MiB', target: '—', pass: true },
      { id: '16', name: 'reconcile: read from Jellyfin (libraries, 500 items a page)', value: mb(bytes.jellyfin), unit: 'MiB', target: '—', pass: true },
      {
        id: '16',
        name: `reconcile: missing and unknown found (Plex ${p?.[3]}/${plexMissing} and ${p?.[4]}/${UNKNOWN}, Jellyfin ${j?.[3]} and ${j?.[4]}/${UNKNOWN})`,
        value: Number(right(p, plexMissing) && right(j, jellyfinMissing)),
        unit: '',
        target: 'exact',
        pass: right(p, plexMissing) && right(j, jellyfinMissing),
      },
      { id: '16', name: 'reconcile: file-system calls on media paths (strace -e trace=%file)', value: media.length, unit: 'calls', target: '0', pass: media.length === 0, ...(media.length ? { note: media[0].slice(0, 120) } : {}) },
    ];
  } finally {
    for (const p of proxies) await p.close();
    await sonarr.stop();
    await empty.stop();
    await plex.stop();
    await jellyfin?.close();
    cleanup(dir);
  }
}

await standalone(import.meta.url, run);
