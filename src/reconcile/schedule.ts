// The reconcile in the server: each ARR entry's audit (audit.ts) every RECONCILE_INTERVAL hours (0: never), one app
// at a time and never two at once, the first one interval after the last audit the queue file recorded (or
// FIRST_AFTER_MS after start when there is none, so a restart is not a full audit). What each audit found is kept
// in the queue file (audits.ts) and shown on the dashboard, /health, /metrics and the doctor page.
import { arrClient, type ArrClient } from '../arr/client.js';
import type { Clock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import { auditApp, type AuditDeps } from './audit.js';
import type { Audit } from './audits.js';

/** An app never audited is first audited this long after start: the catch-up and the probes go first. */
export const FIRST_AFTER_MS = 10 * 60_000;
/** An app that could not be read is asked again after this (or its interval, when shorter). */
export const RETRY_AFTER_MS = 60 * 60_000;
/** How often the timer looks for an app that is due. */
const CHECK_EVERY_MS = 60_000;
const HOUR = 3_600_000;

export interface ReconcileScheduleDeps extends AuditDeps {
  entries: readonly ArrEntry[];
  fetch?: typeof fetch;
}

/** One app as /health and the dashboard show its reconcile. */
export interface ReconcileApp {
  app: string;
  intervalHours: number;
  /** When its next audit is due (ISO); null when RECONCILE_INTERVAL is 0. */
  next: string | null;
  /** Why the app could not be read at its last audit, or why nothing was queued for it. */
  error: string | null;
}

/** Each app × media server as last audited (ISO time); the paths (`samples`) only for the doctor page, behind the secret. */
export type AuditView = Omit<Audit, 'at' | 'samples'> & { at: string; samples?: Audit['samples'] };

export interface ReconcileView {
  running: boolean;
  apps: ReconcileApp[];
  audits: AuditView[];
}

export class ReconcileSchedule {
  private readonly clients = new Map<string, ArrClient>();
  private readonly lastRun = new Map<string, number>();
  private readonly appError = new Map<string, string>();
  private readonly startedAt: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private entries: readonly ArrEntry[] = [];
  private started = false;

  constructor(private readonly deps: ReconcileScheduleDeps) {
    this.startedAt = deps.clock.now();
    this.read(deps.entries);
    // Where each app stands: its last audit in the queue file, whoever ran it.
    for (const a of deps.audits.all()) this.lastRun.set(a.app, Math.max(this.lastRun.get(a.app) ?? 0, a.at));
  }

  start(): void {
    this.started = true;
    if (this.timer || !this.entries.some((e) => e.RECONCILE_INTERVAL > 0)) return;
    this.timer = setInterval(() => void this.tick(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  /** The ARR entries to audit, at start and whenever the config's ARR is read again (`scanrelay connect`). */
  read(entries: readonly ArrEntry[]): void {
    this.entries = entries;
    this.clients.clear();
    for (const entry of entries) this.clients.set(entry.NAME, arrClient(entry, { clock: this.deps.clock, fetch: this.deps.fetch }));
    if (this.started) this.start();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Audits every app that is due, one after the other; while a pass runs, another tick waits for it and adds none. */
  tick(): Promise<void> {
    this.running ??= this.pass()
      .catch((err: Error) => this.deps.logger.error(`Reconcile: unexpected error: ${err.message}`))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** When an app's next audit is due (ms), or undefined when its RECONCILE_INTERVAL is 0. */
  dueAt(entry: ArrEntry): number | undefined {
    if (entry.RECONCILE_INTERVAL <= 0) return undefined;
    const last = this.lastRun.get(entry.NAME);
    if (last === undefined) return this.startedAt + FIRST_AFTER_MS;
    const interval = entry.RECONCILE_INTERVAL * HOUR;
    return last + (this.appError.has(entry.NAME) ? Math.min(interval, RETRY_AFTER_MS) : interval);
  }

  /** Every app × media server as last audited (the queue file's, whoever ran it). */
  audits(): Audit[] {
    return this.deps.audits.all();
  }

  /** `withPaths`: the first missing and unknown paths too (the doctor page; never /health, which anyone may ask). */
  status(withPaths = false): ReconcileView {
    const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
    return {
      running: this.running !== undefined,
      apps: this.entries.map((e) => ({ app: e.NAME, intervalHours: e.RECONCILE_INTERVAL, next: iso(this.dueAt(e)), error: this.appError.get(e.NAME) ?? null })),
      audits: this.deps.audits.all().map(({ samples, ...a }) => ({ ...a, at: new Date(a.at).toISOString(), ...(withPaths ? { samples } : {}) })),
    };
  }

  private async pass(): Promise<void> {
    const due = this.entries.filter((e) => {
      const at = this.dueAt(e);
      return at !== undefined && this.deps.clock.now() >= at;
    });
    if (!due.length) return;
    const holder = this.deps.audits.take(process.pid, this.deps.clock.now());
    if (holder !== undefined) {
      this.deps.logger.info(`Reconcile: \`scanrelay reconcile\` (PID ${holder}) is running on this queue file; the audit waits for it to end.`);
      return;
    }
    try {
      await this.audit(due);
    } finally {
      this.deps.audits.release(process.pid);
    }
  }

  private async audit(due: ArrEntry[]): Promise<void> {
    for (const entry of due) {
      const client = this.clients.get(entry.NAME);
      if (!client) continue; // removed from ARR while the pass ran
      const report = await auditApp(entry, client, this.deps);
      this.lastRun.set(entry.NAME, this.deps.clock.now());
      const why = report.error ?? report.held;
      if (why) this.appError.set(entry.NAME, why);
      else this.appError.delete(entry.NAME);
    }
  }
}
