// What the dashboard's charts show, read from the queue file: requests and scans per minute, queue depth and
// scan latency over the last 24 hours, and each target's latest outcomes. Survives restarts (it is all history).
import type Database from 'better-sqlite3';
import type { Activity, ActivityEvents } from '../activity.js';

/**
 * The latency series, one line each: what history holds today is the time from a folder's first request to
 * a media server's answer (SERVER_SCAN_DELAY and file checks included). A stage recorded in its own history
 * column (e.g. the follow-up of a Plex scan to its end) becomes a series by adding one line here.
 */
export const LATENCY_SERIES: { key: string; label: string; sql: string }[] = [
  { key: 'delivery', label: 'request to scan', sql: 'finished_at - first_at' },
  { key: 'stage-delivery', label: 'delivery', sql: 'delivery_ms' },
  { key: 'stage-follow', label: 'follow-up', sql: 'follow_ms' },
];

export interface LatencySeries {
  key: string;
  label: string;
  /** Per latency bucket, in ms; null where nothing finished. */
  p50: (number | null)[];
  p95: (number | null)[];
}

export interface ChartData {
  /** When the data were read: "20 min ago" is said from here, not from the end of the last bucket. */
  now: number;
  /** Start of the first bucket and end of the last (ms since the epoch). */
  from: number;
  to: number;
  bucketMs: number;
  /** Per bucket: requests (merged ones included) by when their folder was first asked for, per minute. */
  requests: number[];
  /** Per bucket: answers from media servers (one per folder and target), per minute. */
  scans: number[];
  /** The most folders queued at once within each bucket. */
  depth: number[];
  /** Folders queued now. */
  queuedNow: number;
  latencyBucketMs: number;
  latency: LatencySeries[];
  /** Each target's latest outcomes, oldest first. */
  strips: { target: string; outcomes: { outcome: string; at: number; folder: string }[] }[];
}

export interface ChartWindow {
  hours?: number;
  bucketMinutes?: number;
  latencyBucketMinutes?: number;
  /** Outcomes per target strip. */
  stripLength?: number;
  /** Failed attempts (retried), which history does not keep: they join the strips in time order. */
  failures?: { target: string; at: number; folder: string }[];
}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export function chartData(db: Database.Database, now: number, w: ChartWindow = {}): ChartData {
  const hours = w.hours ?? 24;
  const bucketMs = (w.bucketMinutes ?? 10) * 60_000;
  const latencyBucketMs = (w.latencyBucketMinutes ?? 60) * 60_000;
  // Buckets end on a whole bucket after now, so a bucket's boundaries do not move between refreshes.
  const to = Math.ceil((now + 1) / bucketMs) * bucketMs;
  const from = to - hours * 3_600_000;
  const n = Math.round((to - from) / bucketMs);
  const bucket = (t: number) => Math.floor((t - from) / bucketMs);
  const perMinute = bucketMs / 60_000;

  // One history line per folder and target: a folder is the (folder, first_at, finished_at) they share.
  const finished = db
    .prepare<[number, number], { first_at: number; finished_at: number; requests: number }>(
      `SELECT first_at, finished_at, MAX(requests) AS requests FROM history
       WHERE finished_at >= ? AND first_at < ? GROUP BY folder, first_at, finished_at`,
    )
    .all(from, to);
  const queued = db.prepare<[number], { first_at: number; requests: number }>('SELECT first_at, requests FROM folders WHERE first_at < ?').all(to);

  const requests = new Array<number>(n).fill(0);
  for (const f of [...finished, ...queued]) {
    const b = bucket(f.first_at);
    if (b >= 0 && b < n) requests[b] += f.requests;
  }

  const scans = new Array<number>(n).fill(0);
  for (const r of db
    .prepare<[number, number], { b: number; c: number }>(
      `SELECT CAST((finished_at - ?) / ${bucketMs} AS INTEGER) AS b, COUNT(*) AS c FROM history
       WHERE target IS NOT NULL AND finished_at >= ? GROUP BY b`,
    )
    .all(from, from)) {
    if (r.b >= 0 && r.b < n) scans[r.b] = r.c;
  }

  // The most folders queued at any moment of each bucket (a burst that is scanned within minutes still shows).
  const depth = new Array<number>(n).fill(0);
  const events = [
    ...[...finished, ...queued].map((f) => ({ at: f.first_at, step: 1 })),
    ...finished.map((f) => ({ at: f.finished_at, step: -1 })),
  ].sort((a, b) => a.at - b.at || a.step - b.step);
  let current = 0;
  let e = 0;
  for (; e < events.length && events[e].at < from; e++) current += events[e].step;
  for (let b = 0; b < n; b++) {
    const end = from + (b + 1) * bucketMs;
    let most = current;
    for (; e < events.length && events[e].at < end; e++) {
      current += events[e].step;
      most = Math.max(most, current);
    }
    depth[b] = Math.max(0, most);
  }

  const ln = Math.round((to - from) / latencyBucketMs);
  const latency = LATENCY_SERIES.map((s) => {
    const values: number[][] = Array.from({ length: ln }, () => []);
    for (const r of db
      .prepare<[number], { at: number; ms: number | null }>(
        `SELECT finished_at AS at, ${s.sql} AS ms FROM history
         WHERE target IS NOT NULL AND outcome IN ('scanned', 'confirmed', 'not-found', 'unconfirmed') AND finished_at >= ?`,
      )
      .all(from)) {
      const b = Math.floor((r.at - from) / latencyBucketMs);
      if (r.ms !== null && b >= 0 && b < ln) values[b].push(Math.max(0, r.ms));
    }
    const sorted = values.map((v) => v.sort((a, b) => a - b));
    return { key: s.key, label: s.label, p50: sorted.map((v) => quantile(v, 0.5)), p95: sorted.map((v) => quantile(v, 0.95)) };
  })
    // The stage series appear once something went through that stage (servers without follow-ups never do).
    .filter((s, i) => i === 0 || s.p50.some((v) => v !== null));

  const stripLength = w.stripLength ?? 48;
  const strips = new Map<string, { outcome: string; at: number; folder: string }[]>();
  for (const r of db
    .prepare<[number, number], { target: string; outcome: string; at: number; folder: string }>(
      `SELECT target, outcome, at, folder FROM (
         SELECT target, outcome, finished_at AS at, folder, id,
                ROW_NUMBER() OVER (PARTITION BY target ORDER BY id DESC) AS rn
         FROM history WHERE target IS NOT NULL AND finished_at >= ?)
       WHERE rn <= ? ORDER BY target, id`,
    )
    .all(from, stripLength)) {
    if (!strips.has(r.target)) strips.set(r.target, []);
    strips.get(r.target)!.push({ outcome: r.outcome, at: r.at, folder: r.folder });
  }

  for (const f of w.failures ?? []) {
    if (f.at < from) continue;
    if (!strips.has(f.target)) strips.set(f.target, []);
    strips.get(f.target)!.push({ outcome: 'retry', at: f.at, folder: f.folder });
  }
  for (const [target, list] of strips) strips.set(target, list.sort((a, b) => a.at - b.at).slice(-stripLength));

  return {
    now,
    from,
    to,
    bucketMs,
    requests: requests.map((c) => c / perMinute),
    scans: scans.map((c) => c / perMinute),
    depth,
    queuedNow: queued.length,
    latencyBucketMs,
    latency,
    strips: [...strips].map(([target, outcomes]) => ({ target, outcomes })),
  };
}

/** The latest failed scan attempts per target, from the activity feed (since the service started). */
export class FailureLog {
  private readonly byTarget = new Map<string, { target: string; at: number; folder: string }[]>();
  private readonly listener = (e: ActivityEvents['delivery'][0]) => {
    if (e.outcome !== 'retry') return;
    const list = this.byTarget.get(e.target) ?? [];
    list.push({ target: e.target, at: this.now(), folder: e.folder });
    if (list.length > this.keep) list.shift();
    this.byTarget.set(e.target, list);
  };

  constructor(
    private readonly activity: Activity | undefined,
    private readonly now: () => number,
    private readonly keep = 48,
  ) {
    activity?.on('delivery', this.listener);
  }

  list(): { target: string; at: number; folder: string }[] {
    return [...this.byTarget.values()].flat();
  }

  close(): void {
    this.activity?.off('delivery', this.listener);
  }
}
