// Decides what is worth telling a person, from the service's Activity feed: a media server down for longer than
// a notifier's DOWN_AFTER (told once) and its return (told once, only if its fall was), scans that gave up, files
// not found, paths in no library, and once a day a summary. Time is the injected clock; `tick()` runs the
// "down past DOWN_AFTER" check and the summary (every second in the server, by hand in tests).
import type { Activity, ActivityEvents } from '../activity.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { said, type Message } from './message.js';
import type { NotifierConfig, NotifyEvent } from './schema.js';
import { Sender, type SenderOptions } from './sender.js';

const DAY_MS = 24 * 3600_000;

export class Notifications {
  readonly senders: Sender[];
  /** Targets down now: since when, and which notifiers were told. */
  private readonly down = new Map<string, { since: number; error?: string; told: Set<string> }>();
  private counts: Record<string, number> = {};
  private summaryAt: number;
  private timer?: NodeJS.Timeout;
  private readonly listeners: { [K in keyof ActivityEvents]?: (...args: ActivityEvents[K]) => void } = {};

  constructor(
    notifiers: NotifierConfig[],
    private readonly deps: { activity: Activity; clock: Clock; logger: Logger } & Omit<SenderOptions, 'clock' | 'logger'>,
  ) {
    this.senders = notifiers.map((n) => new Sender(n, { ...deps }));
    this.summaryAt = deps.clock.now() + DAY_MS;
    if (this.senders.length === 0) return;
    this.listeners.target = (e) => this.onTarget(e.target, e.up, e.error);
    this.listeners.finished = (e) => this.onFinished(e.folder, e.outcome, e.detail);
    this.listeners.followed = (e) => {
      if (e.outcome === 'not-found') this.onFinished(e.folder, 'not-found', e.detail, e.target);
    };
    deps.activity.on('target', this.listeners.target);
    deps.activity.on('finished', this.listeners.finished);
    deps.activity.on('followed', this.listeners.followed);
  }

  start(): void {
    if (this.senders.length) this.timer = setInterval(() => this.tick(), 1_000).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.listeners.target) this.deps.activity.off('target', this.listeners.target);
    if (this.listeners.finished) this.deps.activity.off('finished', this.listeners.finished);
    if (this.listeners.followed) this.deps.activity.off('followed', this.listeners.followed);
    for (const s of this.senders) s.stop();
  }

  /** Each notifier's last result, for /health and the dashboard. */
  status(): { name: string; type: string; last: Sender['last'] | null; dropped: number }[] {
    return this.senders.map((s) => ({ name: s.notifier.NAME, type: s.notifier.TYPE, last: s.last ?? null, dropped: s.dropped }));
  }

  async flush(): Promise<void> {
    await Promise.all(this.senders.map((s) => s.flush()));
  }

  tick(): void {
    const now = this.deps.clock.now();
    for (const [target, d] of this.down) {
      for (const s of this.senders) {
        if (d.told.has(s.notifier.NAME) || now - d.since < s.notifier.DOWN_AFTER * 1000) continue;
        d.told.add(s.notifier.NAME);
        const minutes = Math.round((now - d.since) / 60_000);
        this.send(s, { event: 'target-down', target, at: now, message: said`${target} has been down for ${minutes} minute(s): scans for it wait until it answers again.`, fields: { since: new Date(d.since).toISOString(), ...(d.error ? { error: d.error } : {}) } });
      }
    }
    if (now >= this.summaryAt) {
      const counts = this.counts;
      this.counts = {};
      this.summaryAt = now + DAY_MS;
      const line = Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ') || 'nothing finished';
      this.broadcast({ event: 'daily-summary', at: now, message: said`The last 24 hours: ${line}.`, fields: counts });
    }
  }

  private onTarget(target: string, up: boolean, error?: string): void {
    const now = this.deps.clock.now();
    if (!up) {
      if (!this.down.has(target)) this.down.set(target, { since: now, error, told: new Set() });
      this.tick();
      return;
    }
    const d = this.down.get(target);
    if (!d) return;
    this.down.delete(target);
    const minutes = Math.round((now - d.since) / 60_000);
    for (const s of this.senders) {
      if (d.told.has(s.notifier.NAME)) this.send(s, { event: 'target-up', target, at: now, message: said`${target} answers again after ${minutes} minute(s) down; its waiting scans go out now.` });
    }
  }

  private onFinished(folder: string, outcome: string, detail?: string, target?: string): void {
    this.counts[outcome] = (this.counts[outcome] ?? 0) + 1;
    const event: NotifyEvent | undefined =
      outcome === 'exhausted' || outcome === 'dropped' ? 'scan-failed' : outcome === 'not-found' ? 'not-found' : outcome === 'unmatched' ? 'unmatched' : undefined;
    if (!event) return;
    const why = (detail ?? '').split('\n')[0];
    this.broadcast({ event, target, at: this.deps.clock.now(), message: why ? said`${folder}: ${outcome}. ${why}` : said`${folder}: ${outcome}`, fields: { folder, outcome, ...(detail ? { detail } : {}) } });
  }

  private broadcast(m: Message): void {
    for (const s of this.senders) this.send(s, m);
  }

  private send(s: Sender, m: Message): void {
    if (m.event === 'test' || s.notifier.EVENTS.includes(m.event)) s.push(m);
  }
}
