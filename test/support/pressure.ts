// Apps asking faster than Plex scans, simulated on one clock: the real service against the fake Plex on 127.0.0.1
// whose scans run one at a time and end only when this driver steps them (test/support/stepped-plex.ts). Each step of the service's clock brings its share of webhooks and of Plex's scans, then
// waits until the service has nothing in flight. Shared by test/processor/back-pressure.test.ts and
// bench/backpressure.ts.
import { steppedPlex } from './stepped-plex.js';

export interface PressureOptions {
  /** How long the apps send webhooks, in seconds of the service's clock. */
  loadSeconds: number;
  webhooksPerSecond: number;
  /** Plex's pace: scans it finishes per second, one at a time. */
  scansPerSecond: number;
  /** PLEX_MAX_OUTSTANDING. */
  maxOutstanding: number;
  /** Season folders the webhooks go to, in turn (each webhook names a new episode file). */
  folders: number;
  /** SERVER_SCAN_DELAY, seconds. */
  delaySeconds?: number;
  /** PLEX_CONFIRM_TIMEOUT, seconds. */
  confirmTimeoutSeconds?: number;
  stepMs?: number;
  /** Gives up draining after this many seconds of the service's clock past the load. */
  drainLimitSeconds?: number;
  /**
   * The fake Plex has its notification socket (as a real Plex has, and PLEX_NOTIFICATIONS is on by default):
   * default true. false: the socket cannot be opened and scans are followed by polling /activities alone.
   */
  notifications?: boolean;
}

export interface PressureResult {
  webhooks: number;
  refreshes: number;
  /** Plex's backlog at its worst: scans waiting in its queue plus the one running. */
  peakBacklog: number;
  /** Refreshes sent while the same folder still waited in Plex's queue. */
  duplicates: number;
  /** Requested files that never reached Plex's library. */
  lost: number;
  /** Folders whose last refresh was sent before their last request. */
  notScannedAfterLast: number;
  refreshesPerFolder: { min: number; max: number; mean: number };
  outcomes: Record<string, number>;
  /** Seconds of the service's clock from the last webhook until the queue and Plex were empty. */
  drainSeconds: number;
  /** Seconds from the last webhook until every requested file was in Plex's library with nothing left in Plex's queue. */
  libraryDrainSeconds?: number;
  /** The most the service reported outstanding on Plex, and the longest its next due folder waited (s). */
  maxOutstandingSeen: number;
  maxDueWaitSeconds: number;
  /** Scans Plex could have run while the load lasted, and those it ran: the rest it idled with folders due here. */
  scanSlots: number;
  scansRun: number;
  /** Of the slots not used, those while our queue held folders (Plex idle while due folders waited). */
  idleWhileQueued: number;
}

export async function runPressure(opts: PressureOptions): Promise<PressureResult> {
  const stepMs = opts.stepMs ?? 100;
  const stepped = await steppedPlex({
    notifications: opts.notifications,
    config: {
      PLEX_MAX_OUTSTANDING: opts.maxOutstanding,
      PLEX_CONFIRM_TIMEOUT: opts.confirmTimeoutSeconds ?? 300,
      SERVER_SCAN_DELAY: opts.delaySeconds ?? 2,
    },
  });
  const { plex, socket, clock, service } = stepped;
  const lastRequest = new Map<string, number>();
  const lastRefresh = new Map<string, number>();
  const refreshCount = new Map<string, number>();
  const files: string[] = [];
  let seen = 0;
  let maxOutstandingSeen = 0;
  let maxDueWait = 0;
  let scanSlots = 0;
  let scansRun = 0;
  let idleWhileQueued = 0;
  let loading = true;

  const settle = async () => {
    await stepped.settle();
    // Refreshes that reached Plex, numbered in arrival order (a request's mark is the count when it was queued).
    for (; seen < plex.requests.length; seen++) {
      const r = plex.requests[seen];
      if (!r.path.endsWith('/refresh')) continue;
      lastRefresh.set(r.query.path, seen);
      refreshCount.set(r.query.path, (refreshCount.get(r.query.path) ?? 0) + 1);
    }
    for (const t of service.processor.health()) {
      maxOutstandingSeen = Math.max(maxOutstandingSeen, t.outstanding ?? 0);
      maxDueWait = Math.max(maxDueWait, t.dueWaitMs ?? 0);
    }
  };
  const step = async (webhooks: number, scans: number) => {
    clock.advance(stepMs);
    for (let k = 0; k < webhooks; k++) {
      const i = files.length;
      const folder = `/data/media/tv/Show ${i % opts.folders}/Season 01`;
      const file = `${folder}/Show ${i % opts.folders} - E${i}.mkv`;
      files.push(file);
      plex.onDisk.add(file);
      await service.intake.submit([{ path: file, source: 'sonarr', event: 'Download', kind: 'file' }], '127.0.0.1');
      lastRequest.set(folder, plex.requests.length);
    }
    const ran = plex.stepFifo(scans);
    if (loading) {
      scanSlots += scans;
      scansRun += ran;
      if (service.queue.count() > 0) idleWhileQueued += scans - ran;
    }
    service.processor.wake();
    await settle();
  };

  try {
    service.processor.start();
    // The socket open before the load (the service dials it when it starts), as it is in steady use.
    if (socket) for (let i = 0; i < 200 && socket.clients === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const steps = Math.round((opts.loadSeconds * 1000) / stepMs);
    const perStep = (rate: number, k: number) => Math.floor(((k + 1) * rate * stepMs) / 1000) - Math.floor((k * rate * stepMs) / 1000);
    let k = 0;
    for (; k < steps; k++) await step(perStep(opts.webhooksPerSecond, k), perStep(opts.scansPerSecond, k));
    const loadEnd = clock.now();
    loading = false;
    const limit = loadEnd + (opts.drainLimitSeconds ?? 3_600) * 1000;
    let inLibraryAt: number | undefined;
    while ((service.queue.count() > 0 || plex.scansQueued > 0) && clock.now() < limit) {
      await step(0, perStep(opts.scansPerSecond, k++));
      if (inLibraryAt === undefined && plex.scansQueued === 0 && files.every((f) => plex.library.has(f))) inLibraryAt = clock.now();
    }
    const counts = [...lastRequest.keys()].map((f) => refreshCount.get(f) ?? 0);
    const outcomes: Record<string, number> = {};
    for (const h of service.queue.history(1_000_000)) outcomes[h.outcome] = (outcomes[h.outcome] ?? 0) + 1;
    return {
      webhooks: files.length,
      refreshes: plex.refreshes.length,
      peakBacklog: plex.peakQueued,
      duplicates: plex.refreshesWhileWaiting,
      lost: files.filter((f) => !plex.library.has(f)).length,
      notScannedAfterLast: [...lastRequest].filter(([folder, mark]) => (lastRefresh.get(folder) ?? -1) < mark).length,
      refreshesPerFolder: { min: Math.min(...counts), max: Math.max(...counts), mean: counts.reduce((a, b) => a + b, 0) / counts.length },
      outcomes,
      drainSeconds: (clock.now() - loadEnd) / 1000,
      ...(inLibraryAt === undefined ? {} : { libraryDrainSeconds: (inLibraryAt - loadEnd) / 1000 }),
      maxOutstandingSeen,
      maxDueWaitSeconds: maxDueWait / 1000,
      scanSlots,
      scansRun,
      idleWhileQueued,
    };
  } finally {
    await stepped.close();
  }
}

