// The service's Prometheus metrics, fed by the activity feed, the queue and the drive monitor (served by
// metrics-route.ts).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Activity, ActivityEvents } from '../activity.js';
import { MAX_HELD } from '../hash/hold.js';
import type { Processor } from '../processor/processor.js';
import type { Queue } from '../queue/store.js';
import { eventsBySource } from '../triggers/events.js';

/** How often the event loop's lag is sampled for `scanrelay_nodejs_eventloop_lag_*` (ms). */
export const EVENT_LOOP_SAMPLE_MS = 1_000;

export interface MetricsSources {
  activity?: Activity;
  queue: Queue;
  processor?: Processor;
  /** Requests waiting for their file's SHA-256 (autopulse's hash=, src/hash/hold.ts). */
  holds?: () => number;
  /** Each ARR app × media server as last reconciled (src/reconcile/). */
  reconcile?: () => { app: string; target: string; missing: number; unknown: number; error: string | null }[];
}

/** The service's metrics in their own registry (never prom-client's global one, so two services never mix). */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'source' | 'event' | 'outcome'>;
  private readonly scans: Counter<'target' | 'outcome'>;
  private readonly latency: Histogram<'target'>;
  private readonly delivery: Histogram<'target'>;
  private readonly follow: Histogram<'target' | 'outcome'>;
  private readonly followed: Counter<'target' | 'outcome'>;
  private readonly drivePolls: Counter<'drive' | 'outcome'>;
  private readonly driveErrors: Counter<'drive'>;
  private readonly caughtUpEvents: Counter<'app'>;
  private readonly detach: () => void;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    // The event loop's lag sampled once a second, not prom-client's default 10 ms: that timer woke an idle relay 100
    // times a second all year (a CPU kept out of its deep sleep states) for a figure a scrape every 15 s reads; a
    // stall still shows, as the lateness of the next sample.
    collectDefaultMetrics({ register: this.registry, prefix: 'scanrelay_', eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    // prom-client's totals of active handles, requests and resources are gauges named `_total`, which Prometheus
    // reserves for counters (`promtool check metrics` fails on them). The per-type gauges without the suffix stay.
    for (const kind of ['handles', 'requests', 'resources']) this.registry.removeSingleMetric(`scanrelay_nodejs_active_${kind}_total`);
    this.requests = new Counter({
      name: 'scanrelay_requests_total',
      help: 'Scan requests received, by source (sonarr, radarr, manual, drive, ...), event and what became of them.',
      labelNames: ['source', 'event', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'scanrelay_queue_depth',
      help: 'Folders in the queue (waiting for their delay or file check, or being delivered).',
      labelNames: ['state'],
      registers,
      collect() {
        const s = sources.queue.summary();
        this.set({ state: 'waiting' }, s.waiting);
        this.set({ state: 'dispatching' }, s.dispatching);
      },
    });
    new Gauge({
      name: 'scanrelay_deliveries_pending',
      help: 'Folders waiting to be delivered to each target.',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const [target, n] of Object.entries(sources.queue.summary().pendingByTarget)) this.set({ target }, n);
      },
    });
    new Gauge({
      name: 'scanrelay_target_up',
      help: '1 while a media server answers, 0 while it is marked down.',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const t of sources.processor?.health() ?? []) this.set({ target: t.name }, t.up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'scanrelay_target_outstanding',
      help: 'Scans a media server accepted and has not ended (servers that can tell: Plex); capped by PLEX_MAX_OUTSTANDING / MAX_OUTSTANDING.',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const t of sources.processor?.health() ?? []) if (t.outstanding !== undefined) this.set({ target: t.name }, t.outstanding);
      },
    });
    new Gauge({
      name: 'scanrelay_target_due_wait_seconds',
      help: 'Seconds the next due folder for a target has waited since it was due (for a slot, its server\'s cap, or the server to answer).',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const t of sources.processor?.health() ?? []) this.set({ target: t.name }, (t.dueWaitMs ?? 0) / 1000);
      },
    });
    new Gauge({
      name: 'scanrelay_hash_holds',
      help: `Requests waiting for their file's SHA-256 (autopulse's hash=); at most ${MAX_HELD}, then hash= requests are answered 503.`,
      registers,
      collect() {
        this.set(sources.holds?.() ?? 0);
      },
    });
    // One series per ARR app × media server, from the last audit in the queue file; one that could not be read is left out.
    for (const [name, help, count] of [
      ['scanrelay_reconcile_missing', "Files the app has that the media server had no item for, at the last reconcile (their folders are queued unless the audit was held back).", 'missing'],
      ['scanrelay_reconcile_unknown', "Media server items under one of the app's root folders whose file the app does not list, at the last reconcile (only reported, never deleted).", 'unknown'],
    ] as const) {
      new Gauge({
        name,
        help,
        labelNames: ['app', 'target'],
        registers,
        collect() {
          this.reset();
          for (const a of sources.reconcile?.() ?? []) if (!a.error) this.set({ app: a.app, target: a.target }, a[count]);
        },
      });
    }
    this.scans = new Counter({
      name: 'scanrelay_scans_total',
      help: "Answers from media servers per folder: scanned, unmatched (no library holds it), refused (a library's own folder nobody asked to scan whole) or retry (failed, tried again).",
      labelNames: ['target', 'outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'scanrelay_request_to_scan_seconds',
      help: "Seconds from a folder's first request to the media server taking the scan (includes SERVER_SCAN_DELAY).",
      labelNames: ['target'],
      buckets: [1, 5, 15, 30, 60, 120, 180, 300, 600, 1200, 3600, 7200],
      registers,
    });
    this.delivery = new Histogram({
      name: 'scanrelay_delivery_seconds',
      help: 'Seconds a delivery took: from the folder being ready for a target to that server accepting the scan.',
      labelNames: ['target'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.follow = new Histogram({
      name: 'scanrelay_follow_seconds',
      help: 'Seconds a follow-up took: from the server accepting a scan to its outcome (confirmed, not-found, unconfirmed).',
      labelNames: ['target', 'outcome'],
      buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.followed = new Counter({
      name: 'scanrelay_follow_ups_total',
      help: 'Follow-ups that ended, by target and outcome: confirmed, not-found, unconfirmed or scanned (nothing to confirm).',
      labelNames: ['target', 'outcome'],
      registers,
    });
    new Gauge({
      name: 'scanrelay_deliveries_following',
      help: 'Scans a target accepted whose end is being followed.',
      labelNames: ['target'],
      registers,
      collect() {
        this.reset();
        for (const [target, n] of Object.entries(sources.queue.summary().followingByTarget)) this.set({ target }, n);
      },
    });
    this.drivePolls = new Counter({
      name: 'scanrelay_drive_polls_total',
      help: 'Google Drive change polls, by drive and outcome (ok or error).',
      labelNames: ['drive', 'outcome'],
      registers,
    });
    this.driveErrors = new Counter({
      name: 'scanrelay_drive_poll_errors_total',
      help: 'Google Drive change polls that failed, by drive.',
      labelNames: ['drive'],
      registers,
    });
    // One series per app, history events and items found deleted alike: the figure /health and the dashboard show
    // per app, and a rate or alert on {app="sonarr"} stays one series. Where an event was found is the log's to say.
    this.caughtUpEvents = new Counter({
      name: 'scanrelay_arr_events_caught_up_total',
      help: 'Events of an arr app (ARR, by its NAME) caught up and handed to the intake as its webhooks would have been: history events read back, and series, movies, artists or authors found gone from its item list.',
      labelNames: ['app'],
      registers,
    });

    const onRequest = (e: ActivityEvents['request'][0]) => this.requests.inc(requestLabels(e));
    const onDelivery = (e: ActivityEvents['delivery'][0]) => {
      this.scans.inc({ target: e.target, outcome: e.outcome });
      if (e.outcome === 'scanned') this.latency.observe({ target: e.target }, Math.max(0, e.latencyMs) / 1000);
      if (e.outcome !== 'retry' && e.deliveryMs !== undefined) this.delivery.observe({ target: e.target }, Math.max(0, e.deliveryMs) / 1000);
    };
    const onFollowed = (e: ActivityEvents['followed'][0]) => {
      this.followed.inc({ target: e.target, outcome: e.outcome });
      this.follow.observe({ target: e.target, outcome: e.outcome }, Math.max(0, e.followMs) / 1000);
    };
    sources.activity?.on('request', onRequest);
    sources.activity?.on('delivery', onDelivery);
    sources.activity?.on('followed', onFollowed);
    this.detach = () => {
      sources.activity?.off('followed', onFollowed);
      sources.activity?.off('request', onRequest);
      sources.activity?.off('delivery', onDelivery);
    };
  }

  /** The drive monitor calls this after each poll of one drive ("My Drive" or a shared drive's name). */
  drivePoll(drive: string, ok: boolean): void {
    this.drivePolls.inc({ drive, outcome: ok ? 'ok' : 'error' });
    if (!ok) this.driveErrors.inc({ drive });
  }

  /** The catch-up (src/arr/) handed `events` of app `app` (an ARR NAME) on: history events or items found deleted. */
  caughtUp(app: string, events: number): void {
    this.caughtUpEvents.inc({ app }, events);
  }

  close(): void {
    this.detach();
  }
}

const OUTCOMES = new Set(['queued', 'ignored', 'unmatched', 'rejected', 'test']);

/** Labels from closed sets only: known sources, each source's known events, or "other". */
export function requestLabels(e: { source: string; event: string; outcome: string }): { source: string; event: string; outcome: string } {
  const known = Object.hasOwn(eventsBySource, e.source) ? eventsBySource[e.source] : undefined;
  return {
    source: known ? e.source : 'other',
    event: known?.includes(e.event) ? e.event : 'other',
    outcome: OUTCOMES.has(e.outcome) ? e.outcome : 'other',
  };
}
