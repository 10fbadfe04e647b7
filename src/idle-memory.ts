// Gives memory back when the server goes quiet. V8 grows the young generation to its limit (two 8 MB semi-spaces
// with the server's heap flags) while modules load and while requests come in, and Node 24 runs no collection at
// all in an idle process, so a relay that sits idle all year kept that memory: 7-10 MB of RSS (docs/performance.md).
// One full collection once the server has been quiet lets V8 shrink it again (low allocation rate after a GC).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleTrimOptions {
  /** How long without a request counts as quiet. */
  quietMs: number;
  now: () => number;
  /** Runs one full collection. */
  collect: () => void;
}

/** Decides when to collect: once per quiet spell, after the first request-free `quietMs` (start-up counts as activity). */
export class IdleTrim {
  private lastActivity: number;
  private collectedSince = false;

  constructor(private readonly opts: IdleTrimOptions) {
    this.lastActivity = opts.now();
  }

  noteRequest(): void {
    this.lastActivity = this.opts.now();
    this.collectedSince = false;
  }

  /** Called now and then; true when it collected. */
  tick(): boolean {
    if (this.collectedSince || this.opts.now() - this.lastActivity < this.opts.quietMs) return false;
    this.collectedSince = true;
    this.opts.collect();
    return true;
  }
}

/**
 * V8's own collector: the global `gc` when Node runs with --expose-gc (the launchers pass it, NODE_FLAGS), else
 * one made for the purpose (the `scanrelay` command and `node dist/…` may start without it): the flag set now
 * only installs `gc` into contexts made after it, so it changes nothing else. That context is made at the first
 * collection, not at start: a V8 context costs 1-2 MB of RSS (docs/performance.md, memory).
 */
export function fullCollection(): () => void {
  type Gc = (options?: { type: 'major'; execution: 'sync' }) => void;
  let gc = (globalThis as { gc?: Gc }).gc;
  return () => {
    if (!gc) {
      setFlagsFromString('--expose-gc');
      gc = runInNewContext('gc') as Gc;
    }
    gc({ type: 'major', execution: 'sync' });
  };
}

/** Wires the trim to an HTTP server: every request is activity; checked every `everyMs`, off the event loop's books. */
export function trimWhenIdle(server: { on(event: 'request', listener: () => void): unknown }, quietMs = 10_000, everyMs = 5_000): () => void {
  const trim = new IdleTrim({ quietMs, now: Date.now, collect: fullCollection() });
  server.on('request', () => trim.noteRequest());
  const timer = setInterval(() => trim.tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
