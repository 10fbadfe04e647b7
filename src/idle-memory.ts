// Gives memory back when the server goes quiet. V8 grows the young generation to its limit (two 8 MB semi-spaces
// with the server's heap flags) while modules load and while requests come in, and an idle process runs no
// collection at all, so a relay that sits idle all year kept that memory: 7-10 MB of RSS (docs/performance.md).
// One collection of the memory-reducing kind once the server has been quiet lets V8 shrink it and hand the pages
// back: on Node 24 a regular full collection shrinks the heap but keeps the freed pages in V8's page pool, still
// resident, and only the "last resort" kind (what V8 runs on a low-memory notification) releases them.

export interface IdleTrimOptions {
  /** How long without a request counts as quiet. */
  quietMs: number;
  now: () => number;
  /** Runs one full collection. */
  collect: () => void;
  /** Told once, when a collection failed (what it threw, as text: `ReferenceError: gc is not defined`); the trim is off from then on. */
  failed: (reason: string) => void;
}

/**
 * Decides when to collect: once per quiet spell, after the first request-free `quietMs` (start-up counts as
 * activity). A collection that fails turns the trim off for good: it is a saving, not the relay's work, and a
 * Node that stops honouring the collector below must not take the relay down with it.
 */
export class IdleTrim {
  private lastActivity: number;
  private collectedSince = false;
  private off = false;

  constructor(private readonly opts: IdleTrimOptions) {
    this.lastActivity = opts.now();
  }

  noteRequest(): void {
    this.lastActivity = this.opts.now();
    this.collectedSince = false;
  }

  /** True once a collection has failed: tick() does nothing more. */
  get stopped(): boolean {
    return this.off;
  }

  /** Called now and then; true when it collected. */
  tick(): boolean {
    if (this.off || this.collectedSince || this.opts.now() - this.lastActivity < this.opts.quietMs) return false;
    this.collectedSince = true;
    try {
      this.opts.collect();
      return true;
    } catch (err) {
      this.off = true;
      // String(), not .message: the collector's context throws errors of its own realm, not this one's Error.
      this.opts.failed(String(err));
      return false;
    }
  }
}

/**
 * V8's own full collection, where Node exposes it: the global `gc` of a Node started with `--expose-gc` (the launchers
 * pass it: src/cli/node-flags.ts), asked for its `last-resort` flavour (one of the options @types/node lists for it),
 * the one that also empties V8's page pool: on Node 24, 75.5 MB of RSS after a regular one against 67.0 MB after this
 * one, 40 s after start (docs/performance.md). Nothing sets a V8 flag at run time to get a collector (Node does not
 * support that), so without `--expose-gc` the trim stays off: idle memory is then what V8's own heuristics leave.
 */
export function fullCollection(): (() => void) | undefined {
  type Gc = (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  const gc = (globalThis as { gc?: Gc }).gc;
  return gc && (() => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' }));
}

export interface TrimSettings {
  /** How long without a request counts as quiet (10 s). */
  quietMs?: number;
  /** How often the trim looks (5 s). */
  everyMs?: number;
  /** The collection (fullCollection(), when Node exposes one). */
  collect?: () => void;
}

/**
 * Wires the trim to an HTTP server (nothing without a collector): every request is activity; checked every `everyMs`, off the event loop's
 * books. `failed` hears once that the collection failed and the trim is off. Returns a stop function.
 */
export function trimWhenIdle(server: { on(event: 'request', listener: () => void): unknown }, failed: (reason: string) => void, settings: TrimSettings = {}): () => void {
  const collect = settings.collect ?? fullCollection();
  if (!collect) return () => undefined;
  const trim = new IdleTrim({ quietMs: settings.quietMs ?? 10_000, now: Date.now, collect, failed });
  server.on('request', () => trim.noteRequest());
  const timer = setInterval(() => {
    trim.tick();
    if (trim.stopped) clearInterval(timer);
  }, settings.everyMs ?? 5_000);
  timer.unref();
  return () => clearInterval(timer);
}
