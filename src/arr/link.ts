// Whether an app answers, as the catch-up last found it: up, silent, refusing the key, or answering what is not
// its history. One log line per change of state (never one per attempt), each saying what to do; webhooks and
// scans never wait on it.
import { ApiRefusal } from '../http/api-call.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';

export type LinkState = 'connecting' | 'up' | 'down' | 'refused' | 'failing';

export class AppLink {
  state: LinkState = 'connecting';
  version: string | undefined;
  error: string | undefined;
  /** Since when the state holds (ms, the relay's clock). */
  since: number;

  constructor(
    private readonly who: string,
    private readonly logger: Logger,
    private readonly clock: Clock,
  ) {
    this.since = clock.now();
  }

  get up(): boolean {
    return this.state === 'up';
  }

  /** The app answered its status: up again (said once), with this version. */
  answered(appName: string, version: string, catchingUpFrom: number | undefined): void {
    const was = this.state;
    this.version = version;
    this.error = undefined;
    if (was === 'up') return;
    this.change('up');
    const from = catchingUpFrom === undefined ? '' : `; catching up on its history since ${new Date(catchingUpFrom).toISOString()}`;
    if (was === 'connecting') this.logger.info({ app: this.who, version }, `Connected to ${this.who} (${appName} ${version})${from}.`);
    else this.logger.info({ app: this.who, version, was }, `${this.who} answers again (${appName} ${version})${from}.`);
  }

  /** A call failed: the state it says, logged only when it changes. */
  failed(err: unknown): void {
    const message = (err as Error).message;
    const state: LinkState = err instanceof ApiRefusal ? (err.targetDown ? 'down' : err.tokenRefused ? 'refused' : 'failing') : 'failing';
    this.error = message;
    if (state === this.state) return;
    this.change(state);
    const then = 'Its webhooks are still taken; its history is read again when it answers, from where the catch-up stopped.';
    const fields = { app: this.who, state };
    if (state === 'down') this.logger.warn(fields, `${this.who} does not answer: ${message}. ${then}`);
    else if (state === 'refused') this.logger.warn(fields, `${message}. ${then}`);
    else this.logger.warn(fields, `Could not catch up on ${this.who}'s history: ${message}. Nothing is skipped: the same events are read again at the next catch-up.`);
  }

  private change(state: LinkState): void {
    this.state = state;
    this.since = this.clock.now();
  }
}
