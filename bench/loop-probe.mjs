// Loaded into the server under benchmark with `node --import` (never by the service itself): records event-loop
// delay, each stall of the loop over STALL_MS with its time, GC pauses, heap use, and how long the server held
// each HTTP request (from its 'request' event to the answer handed to the socket; SIGUSR2 starts that over), as
// JSON lines to the file named by SCANRELAY_BENCH_PROBE. Times are milliseconds since the epoch, so the bench can
// tell start-up from load.
import { appendFileSync } from 'node:fs';
import { Server } from 'node:http';
import { createHistogram, monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const out = process.env.SCANRELAY_BENCH_PROBE;
if (out) {
  const STALL_MS = 100;
  const TICK_MS = 10;
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc = { count: 0, ms: 0, maxMs: 0, major: 0, majorMs: 0 };
  const longGc = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = kinds[e.detail?.kind] ?? String(e.detail?.kind);
      gc.count++;
      gc.ms += e.duration;
      gc.maxMs = Math.max(gc.maxMs, e.duration);
      if (kind === 'major') {
        gc.major++;
        gc.majorMs += e.duration;
      }
      if (e.duration >= 20) longGc.push({ at: Date.now(), kind, ms: +e.duration.toFixed(1) });
    }
  }).observe({ entryTypes: ['gc'] });

  // In the server, from the request's headers parsed to its answer written: what the client's latency is made of
  // apart from the time before the server reads the request and after it writes the answer. In µs, since start.
  const held = createHistogram();
  // The bench sends SIGUSR2 when its warm-up ends, so the figures it reads cover only the measured load.
  process.on('SIGUSR2', () => held.reset());
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (event, req, res) {
    if (event === 'request') {
      const t0 = performance.now();
      res.once('finish', () => held.record(Math.max(1, Math.round((performance.now() - t0) * 1000))));
    }
    return emit.apply(this, arguments);
  };

  // A timer that should fire every TICK_MS: a late firing is a stall of the loop, and when it happened.
  const stalls = [];
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late >= STALL_MS) stalls.push({ at: Date.now(), ms: Math.round(late) });
    last = now;
  }, TICK_MS).unref();

  setInterval(() => {
    const mem = process.memoryUsage();
    const line = {
      at: Date.now(),
      delayP50: +(delay.percentile(50) / 1e6).toFixed(1),
      delayP99: +(delay.percentile(99) / 1e6).toFixed(1),
      delayMax: +(delay.max / 1e6).toFixed(1),
      stalls: stalls.splice(0),
      gc: { ...gc, ms: Math.round(gc.ms), maxMs: +gc.maxMs.toFixed(1), majorMs: Math.round(gc.majorMs) },
      longGc: longGc.splice(0),
      held: { count: held.count, p50: +(held.percentile(50) / 1000).toFixed(1), p99: +(held.percentile(99) / 1000).toFixed(1), max: +(held.max / 1000).toFixed(1) },
      rssMb: Math.round(mem.rss / 2 ** 20),
      heapUsedMb: Math.round(mem.heapUsed / 2 ** 20),
      heapTotalMb: Math.round(mem.heapTotal / 2 ** 20),
      externalMb: Math.round(mem.external / 2 ** 20),
      arrayBuffersMb: Math.round(mem.arrayBuffers / 2 ** 20),
      // Committed size of each V8 heap space (new_space is the young generation), in MB.
      spacesMb: Object.fromEntries(getHeapSpaceStatistics().map((sp) => [sp.space_name.replace(/_space$/, ''), Math.round(sp.space_size / 2 ** 20)])),
    };
    gc = { count: 0, ms: 0, maxMs: 0, major: 0, majorMs: 0 };
    delay.reset();
    appendFileSync(out, JSON.stringify(line) + '\n');
  }, 1000).unref();
}
