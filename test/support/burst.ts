// A burst of imports against the real service and the fake Plex with its notification socket on 127.0.0.1, on one
// stepped clock (test/support/stepped-plex.ts): Plex runs one scan at a time, each `scanMs` of that clock, and a fault of the test's choosing strikes at a given time. Measures when every folder
// reached Plex, how often each was sent, and when every history line was final. Used by test/e2e/follow-*.test.ts.
import type { Service } from '../../src/service.js';
import type { FakePlex } from '../fakes/plex.js';
import type { FakePlexNotifications } from '../fakes/plex-notifications.js';
import { steppedPlex } from './stepped-plex.js';

export interface BurstOptions {
  /** Season folders, one new episode each, in one section (TV). */
  folders: number;
  /** Between two imports (0: all at once). */
  spacingMs?: number;
  /** How long each of Plex's scans takes, one at a time; a multiple of the step. */
  scanMs: number;
  /** What goes wrong, and when (ms after the first import). */
  fault?: { atMs: number; strike(plex: FakePlex, socket: FakePlexNotifications): void };
  /** Set on the fake Plex before the load (its faults). */
  plex?: (plex: FakePlex) => void;
  /** Called after each step, with the time since the first import (a look at /health, say). */
  onStep?(service: Service, atMs: number): void | Promise<void>;
  /** How long the clock runs at most after the first import. */
  limitMs: number;
  stepMs?: number;
}

export interface BurstResult {
  /** When the last folder's first refresh reached Plex (ms after the first import); undefined: not all did. */
  allReachedMs?: number;
  /** When each folder first reached Plex (ms after the first import), in order. */
  reachedMs: number[];
  /** When the last history line was written; undefined: not all were. */
  allFinalMs?: number;
  refreshes: number;
  /** Folders refreshed more than once. */
  sentTwice: string[];
  outcomes: Record<string, number>;
  /** Requested files that never reached Plex's library. */
  notInLibrary: number;
  /** Each folder's history line: when it was written (ms after the first import), its outcome and detail. */
  lines: { folder: string; atMs: number; outcome: string; detail?: string }[];
  /** Every refresh that reached Plex, and every scan Plex ended (a merged one under the folder it ran as), in order. */
  sent: { path: string; atMs: number }[];
  ended: { path: string; atMs: number }[];
  /** The fake Plex, stopped: what it received and did. */
  plex: FakePlex;
}

export const folderOf = (i: number): string => `/data/media/tv/Show ${i}/Season 01`;
export const fileOf = (i: number): string => `${folderOf(i)}/Show ${i} - S01E01.mkv`;

export async function runBurst(opts: BurstOptions): Promise<BurstResult> {
  const stepMs = opts.stepMs ?? 100;
  const stepped = await steppedPlex({ config: { SERVER_SCAN_DELAY: 0 } });
  const { plex, clock, service, settle } = stepped;
  const socket = stepped.socket!;
  opts.plex?.(plex);
  const firstSent = new Map<string, number>();
  const sent = new Map<string, number>();
  const sentLog: BurstResult['sent'] = [];
  const ended: BurstResult['ended'] = [];
  let seen = 0;
  const t0 = clock.now();
  const since = () => clock.now() - t0;
  try {
    service.processor.start();
    const plexTarget = service.targets.find((t) => t.kind === 'plex')!;
    // As in steady use, the socket is open before the load: the first scan opens it; here a scan of nothing.
    (plexTarget.follower as unknown as { watchScans(): void }).watchScans();
    for (let i = 0; i < 200 && !(plexTarget.follower?.socketStatus?.()?.state === 'open'); i++) await new Promise((r) => setTimeout(r, 5));
    let next = 0;
    let struck = false;
    const scansPerStep = Math.max(1, Math.round(stepMs / opts.scanMs));
    const every = Math.max(1, Math.round(opts.scanMs / stepMs));
    for (let step = 0; since() <= opts.limitMs; step++) {
      while (next < opts.folders && next * (opts.spacingMs ?? 0) <= since()) {
        plex.onDisk.add(fileOf(next));
        await service.intake.submit([{ path: fileOf(next), source: 'sonarr', event: 'Download', kind: 'file' }], '127.0.0.1');
        next++;
      }
      if (opts.fault && !struck && since() >= opts.fault.atMs) {
        struck = true;
        opts.fault.strike(plex, socket);
      }
      service.processor.wake();
      await settle();
      for (; seen < plex.requests.length; seen++) {
        const r = plex.requests[seen];
        if (!r.path.endsWith('/refresh') || !r.query.path) continue;
        firstSent.set(r.query.path, firstSent.get(r.query.path) ?? since());
        sent.set(r.query.path, (sent.get(r.query.path) ?? 0) + 1);
        sentLog.push({ path: r.query.path, atMs: since() });
      }
      await opts.onStep?.(service, since());
      if (next === opts.folders && service.queue.count() === 0 && plex.scansQueued === 0) break;
      clock.advance(stepMs);
      if (step % every === every - 1) plex.stepFifo(scansPerStep);
      for (const e of plex.finishedScans.slice(ended.length)) ended.push({ path: e.path, atMs: since() });
    }
    const history = service.queue.history(10_000);
    const outcomes: Record<string, number> = {};
    for (const h of history) outcomes[h.outcome] = (outcomes[h.outcome] ?? 0) + 1;
    const folders = Array.from({ length: opts.folders }, (_, i) => folderOf(i));
    return {
      allReachedMs: folders.every((f) => firstSent.has(f)) ? Math.max(...folders.map((f) => firstSent.get(f)!)) : undefined,
      reachedMs: [...firstSent.values()].sort((a, b) => a - b),
      allFinalMs: history.length === opts.folders ? Math.max(...history.map((h) => h.finishedAt - t0)) : undefined,
      refreshes: [...sent.values()].reduce((a, b) => a + b, 0),
      sentTwice: [...sent].filter(([, n]) => n > 1).map(([f]) => f),
      outcomes,
      notInLibrary: Array.from({ length: next }, (_, i) => fileOf(i)).filter((f) => !plex.library.has(f)).length,
      lines: history.map((h) => ({ folder: h.folder, atMs: h.finishedAt - t0, outcome: h.outcome, detail: h.detail })),
      sent: sentLog,
      ended,
      plex,
    };
  } finally {
    await stepped.close();
  }
}
