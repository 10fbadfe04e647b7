// The real service (webhook → intake → queue → processor → the jellyfin target) against the model Jellyfin
// server, on one simulated time line: the ManualClock the model's ClockScheduler moves is the service's clock, and
// the service's sleeps (the target's hold of library-root refreshes) are events of that scheduler. The processor's
// own loop is not started: `run` ticks it when that loop would pass and lets the real HTTP traffic on 127.0.0.1 settle
// before the clock moves on, so nothing waits for wall time. Used by the Jellyfin tests and bench/jellyfin-scans.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { defaultConfig } from '../../src/config/load.js';
import { targetSchema, type Config } from '../../src/config/schema.js';
import type { Clock } from '../../src/clock.js';
import { httpFetch } from '../../src/http/fetch.js';
import { createLogger } from '../../src/log/logger.js';
import { createService, type Service } from '../../src/service.js';
import { startJellyfinServer, type JellyfinServer, type JellyfinServerOptions } from '../fakes/jellyfin-server.js';

export const PASS = 'fedcba9876543210fedcba9876543210';

export interface JellyfinService {
  server: JellyfinServer;
  service: Service;
  logs: string[];
  /** Log lines whose msg contains `text`. */
  logged(text: string): string[];
  /** Sends an arr webhook now (user agent 'Sonarr/4…' or 'Radarr/5…'). */
  webhook(app: 'sonarr' | 'radarr', body: object): Promise<void>;
  /** Moves time `ms` on through every due scan, held refresh and server event. */
  run(ms: number): Promise<void>;
  close(): Promise<void>;
}

export interface JellyfinServiceOptions extends JellyfinServerOptions {
  /** The TARGETS entry's own keys beside NAME, TYPE, URL and TOKEN (SCAN_METHOD…). */
  entry?: Record<string, unknown>;
  config?: Partial<Config>;
  /** Builds the libraries on the model before the service starts. */
  setup?: (server: JellyfinServer) => void;
  /** The TARGETS entry's TOKEN: the API key (default) or a user's access token (its socket hears LibraryChanged). */
  tokenOf?: 'api-key' | 'user';
  /** What the relay's own disk shows (default: the model's disk, at the same paths). */
  pathState?: (path: string) => Promise<'file' | 'folder' | 'missing'>;
}

export async function jellyfinService(opts: JellyfinServiceOptions = {}): Promise<JellyfinService> {
  const server = await startJellyfinServer(opts);
  opts.setup?.(server);
  const { clock, scheduler, model } = server;
  const simulated: Clock = {
    now: () => clock.now(),
    // An aborted wait (a stopped socket or follower) ends at once and leaves no event behind.
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        if (signal?.aborted) return resolve();
        // As the system clock does: the abort listener goes when the wait ends, so waits do not pile up on a signal.
        const aborted = () => (scheduler.cancel(event), resolve());
        const event = scheduler.after(ms, () => (signal?.removeEventListener('abort', aborted), resolve()));
        signal?.addEventListener('abort', aborted, { once: true });
      }),
    timeout: (ms) => clock.timeout(ms),
  };
  let inFlight = 0;
  const countingFetch = ((url: string, init?: RequestInit) => {
    inFlight += 1;
    return httpFetch(url, init).finally(() => (inFlight -= 1));
  }) as typeof fetch;
  const kind = opts.kind ?? 'jellyfin';
  const entry = targetSchema().parse({ NAME: kind, TYPE: kind, URL: server.url, TOKEN: opts.tokenOf === 'user' ? server.userToken : server.token, ...opts.entry });
  const config = {
    ...defaultConfig(() => PASS),
    PLEX_ENABLED: false,
    SERVER_SCAN_DELAY: 1,
    // The arr apps, the relay and the server see one disk, at the same paths.
    SERVER_PATH_MAPPINGS: {},
    TARGETS: [entry],
    ...opts.config,
  } as Config;
  const logs: string[] = [];
  const logger = createLogger({ level: 'info', console: new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) }), secrets: [PASS, server.token, server.userToken] });
  const service = await createService({
    config,
    queuefile: join(mkdtempSync(join(tmpdir(), 'scanrelay-jf-')), 'queue.db'),
    logger,
    clock: simulated,
    fetch: countingFetch,
    // What the relay's own disk shows: the model's disk, the same paths.
    pathState:
      opts.pathState ??
      (async (path) => {
        const e = model.disk.get(path.replace(/\/+$/, ''));
        return e ? e.kind : 'missing';
      }),
  });
  // The followers (and the Jellyfin websocket) run as under `server`; the processor's loop is ticked by `run`.
  service.processor.followUps.start();
  const names = service.targets.map((t) => t.name);

  /** Until no request of the service is in flight and a few turns of the event loop brought nothing new. */
  const settle = async (): Promise<void> => {
    for (let quiet = 0; quiet < 25; ) {
      await new Promise((resolve) => setImmediate(resolve));
      quiet = inFlight === 0 ? quiet + 1 : 0;
    }
  };

  return {
    server,
    service,
    logs,
    logged: (text) => logs.filter((l) => l.includes(text)),
    async webhook(app, body) {
      const agent = app === 'sonarr' ? 'Sonarr/4.0.17.2952 (ubuntu 24.04)' : 'Radarr/5.2.6.8376 (ubuntu 22.04)';
      const res = await service.app.inject({ method: 'POST', url: `/${PASS}`, headers: { 'user-agent': agent }, payload: body });
      if (res.statusCode !== 200) throw new Error(`webhook answered ${res.statusCode}: ${res.body}`);
    },
    async run(ms) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        await service.processor.tick();
        await settle();
        // On to the next moment something happens: a server event, a sleep's end, or the processor's next pass as
        // its own loop would take it.
        const next = Math.min(scheduler.nextAt() ?? Infinity, service.processor.nextPassAt(), end);
        await scheduler.runTo(next);
      }
      await service.processor.tick();
      await settle();
    },
    async close() {
      await service.close();
      await server.close();
    },
  };
}

/** Sonarr's Download of an episode file (`file` as the model's disk has it). */
export function sonarrDownload(file: string): object {
  const series = file.split('/').slice(0, 3).join('/');
  return { eventType: 'Download', series: { id: 1, title: 'x', path: series }, episodeFile: { id: 1, relativePath: file.slice(series.length + 1), path: file }, isUpgrade: false };
}

export function sonarrEpisodeDeleted(file: string): object {
  const series = file.split('/').slice(0, 3).join('/');
  return { eventType: 'EpisodeFileDelete', series: { id: 1, title: 'x', path: series }, episodeFile: { id: 1, relativePath: file.slice(series.length + 1), path: file }, deleteReason: 'manual' };
}

export function sonarrSeriesDeleted(folder: string): object {
  return { eventType: 'SeriesDelete', series: { id: 1, title: 'x', path: folder }, deletedFiles: true };
}

/** Radarr's Download of a movie file; an upgrade names the files it replaced in `deletedFiles`, as Radarr does. */
export function radarrDownload(file: string, upgrade = false, replaced: string[] = []): object {
  const folder = file.slice(0, file.lastIndexOf('/'));
  const deletedFiles = replaced.map((path, i) => ({ id: 100 + i, relativePath: path.slice(folder.length + 1), path }));
  return { eventType: 'Download', movie: { id: 1, title: 'x', folderPath: folder }, movieFile: { id: 1, relativePath: file.slice(folder.length + 1), path: file }, isUpgrade: upgrade, ...(upgrade ? { deletedFiles } : {}) };
}

/** Sonarr's "On Import Complete" Download (4.0.6+): every file of a finished download in `episodeFiles`. */
export function sonarrImport(files: string[]): object {
  const series = files[0].split('/').slice(0, 3).join('/');
  return { eventType: 'Download', series: { id: 1, title: 'x', path: series }, episodeFiles: files.map((path, i) => ({ id: i + 1, relativePath: path.slice(series.length + 1), path })), isUpgrade: false };
}
