// Sends one notifier's messages from a queue of its own, so a slow or failing receiver never slows a scan: the
// processor only ever adds to a bounded list in memory. A failure (timeout, 4xx/5xx, refused connection) is
// retried a few times, then logged and dropped; messages are spaced (rate limit) per notifier.
import { NOTIFIER_ANSWER, sizeText } from '../http/answer-caps.js';
import { timeoutSignal, type Clock } from '../clock.js';
import { AnswerTooLarge, httpFetch, type Fetch } from '../http/fetch.js';
import type { Logger } from '../log/logger.js';
import { CARRIERS } from './carriers.js';
import type { Message } from './message.js';
import type { NotifierConfig } from './schema.js';

export interface LastResult {
  at: number;
  ok: boolean;
  /** "204", "HTTP 500", "timeout", …: never the URL. */
  result: string;
  event: string;
}

export interface SenderOptions {
  clock: Clock;
  logger: Logger;
  fetch?: Fetch;
  /** Messages kept waiting; past it the oldest is dropped (and counted). */
  capacity?: number;
  /** Least time between two messages of one notifier. */
  spacingMs?: number;
  /** Tries of one message, and the pause before each retry. */
  retriesMs?: number[];
  timeoutMs?: number;
}

export class Sender {
  private readonly waiting: Message[] = [];
  private running?: Promise<void>;
  private lastSentAt = -Infinity;
  private stopped = false;
  dropped = 0;
  last?: LastResult;

  constructor(
    readonly notifier: NotifierConfig,
    private readonly opts: SenderOptions,
  ) {}

  /** Queues a message and returns at once. */
  push(m: Message): void {
    if (this.stopped) return;
    if (this.waiting.length >= (this.opts.capacity ?? 50)) {
      this.waiting.shift();
      this.dropped++;
    }
    this.waiting.push(m);
    this.running ??= this.run().finally(() => (this.running = undefined));
  }

  /** Resolves when every queued message has been sent or given up (tests, notify-test). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  stop(): void {
    this.stopped = true;
    this.waiting.length = 0;
  }

  private async run(): Promise<void> {
    const { clock } = this.opts;
    for (let m = this.waiting.shift(); m && !this.stopped; m = this.waiting.shift()) {
      const wait = this.lastSentAt + (this.opts.spacingMs ?? 2_000) - clock.now();
      if (wait > 0) await clock.sleep(wait);
      await this.deliver(m);
      this.lastSentAt = clock.now();
    }
  }

  /** One message, with retries; true when the receiver took it. */
  async deliver(m: Message): Promise<boolean> {
    const { clock, logger } = this.opts;
    const out = CARRIERS[this.notifier.TYPE](m, this.notifier.URL);
    const retries = this.opts.retriesMs ?? [1_000, 5_000];
    let result = '';
    for (let attempt = 0; attempt <= retries.length; attempt++) {
      if (attempt > 0) await clock.sleep(retries[attempt - 1]);
      try {
        // A user and password in the URL (ntfy's Basic auth) go as a header: httpFetch splits them off.
        const res = await (this.opts.fetch ?? httpFetch)(out.url, {
          method: 'POST',
          headers: out.headers,
          body: out.body,
          signal: timeoutSignal(clock, this.opts.timeoutMs ?? 10_000),
          redirect: 'error',
          maxBytes: NOTIFIER_ANSWER.bytes,
        });
        await res.arrayBuffer().catch(() => undefined);
        result = res.ok ? String(res.status) : `HTTP ${res.status}`;
        if (res.ok) {
          this.last = { at: clock.now(), ok: true, result, event: m.event };
          return true;
        }
      } catch (err) {
        result =
          err instanceof AnswerTooLarge
            ? `an answer larger than ${sizeText(NOTIFIER_ANSWER.bytes)}, the most ${NOTIFIER_ANSWER.what} needs (dropped unread)`
            : (err as Error).name === 'TimeoutError'
              ? 'timeout'
              : 'no answer (connection failed)';
      }
      logger.debug({ notifier: this.notifier.NAME, attempt: attempt + 1 }, `Notifier '${this.notifier.NAME}' did not take a ${m.event} message: ${result}.`);
    }
    this.last = { at: clock.now(), ok: false, result, event: m.event };
    // The URL is never logged: it may hold the webhook's token.
    logger.warn({ notifier: this.notifier.NAME, event: m.event }, `Notifier '${this.notifier.NAME}' (${this.notifier.TYPE}) failed to send a ${m.event} message after ${retries.length + 1} tries: ${result}. Check its URL in NOTIFY.`);
    return false;
  }
}
