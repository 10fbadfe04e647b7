// GET /metrics: Prometheus text format that a strict parser accepts, fed by requests, the queue and scans.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EVENT_LOOP_SAMPLE_MS } from '../../src/server/metrics.js';
import { promtoolPath } from '../support/promtool.js';
import { SECRET, testService, type TestService } from '../support/service.js';

/**
 * A strict reader of the Prometheus text exposition format 0.0.4: every line is a HELP, a TYPE, a
 * comment or a sample; names and label names follow the grammar; label values use only \\, \" and \n
 * escapes; values are floats (or +Inf/-Inf/NaN); a family's TYPE comes before its samples and each
 * family appears once; histogram buckets are cumulative and end with le="+Inf" equal to _count.
 */
export function parsePrometheus(text: string) {
  const arrTriggers = new Map<string, { type?: string; help?: string; samples: { name: string; labels: Record<string, string>; value: number }[] }>();
  const done = new Set<string>();
  let current: string | undefined;
  const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
  if (!text.endsWith('\n')) throw new Error('output must end with a newline');
  const family = (name: string) => {
    if (current !== name) {
      if (current) done.add(current);
      if (done.has(name)) throw new Error(`family ${name} appears twice`);
      current = name;
    }
    if (!arrTriggers.has(name)) arrTriggers.set(name, { samples: [] });
    return arrTriggers.get(name)!;
  };
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)/.test(line)) throw new Error(`bad ${where}`);
        return; // a plain comment
      }
      const [, kind, name, rest] = m;
      if (!metricName.test(name)) throw new Error(`bad metric name in ${where}`);
      const f = family(name);
      if (kind === 'HELP') {
        if (f.help !== undefined) throw new Error(`second HELP in ${where}`);
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) throw new Error(`bad HELP escape in ${where}`);
        f.help = rest;
      } else {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad TYPE in ${where}`);
        if (f.type !== undefined || f.samples.length) throw new Error(`TYPE after samples in ${where}`);
        f.type = rest;
      }
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line);
    if (!m) throw new Error(`bad sample ${where}`);
    const [, name, , labelText = '', rawValue] = m;
    const labels: Record<string, string> = {};
    let rest = labelText;
    while (rest.length) {
      const lm = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
      if (!lm || !labelName.test(lm[1])) throw new Error(`bad labels in ${where}`);
      if (lm[1] in labels) throw new Error(`duplicate label in ${where}`);
      labels[lm[1]] = lm[2].replace(/\\(["\\n])/g, (_, c) => (c === 'n' ? '\n' : c));
      rest = rest.slice(lm[0].length);
    }
    // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client writes "Nan").
    if (!/^(?:[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)|[+-]?inf|nan)$/i.test(rawValue)) throw new Error(`bad value in ${where}`);
    const value = /^\+?inf$/i.test(rawValue) ? Infinity : /^-inf$/i.test(rawValue) ? -Infinity : Number(rawValue);
    const owner = current && (name === current || name.startsWith(current + '_')) ? current : name;
    family(owner).samples.push({ name, labels, value });
  });
  for (const [name, f] of arrTriggers) {
    if (f.type !== 'histogram') continue;
    const series = new Map<string, { le: number; v: number }[]>();
    for (const s of f.samples.filter((x) => x.name === `${name}_bucket`)) {
      const { le, ...others } = s.labels;
      if (le === undefined) throw new Error(`${name}_bucket without le`);
      const key = JSON.stringify(others);
      series.set(key, [...(series.get(key) ?? []), { le: le === '+Inf' ? Infinity : Number(le), v: s.value }]);
    }
    for (const [key, buckets] of series) {
      for (let i = 1; i < buckets.length; i++) {
        if (buckets[i].le <= buckets[i - 1].le || buckets[i].v < buckets[i - 1].v) throw new Error(`${name}${key}: buckets not cumulative`);
      }
      const count = f.samples.find((x) => x.name === `${name}_count` && JSON.stringify(x.labels) === key);
      if (buckets[buckets.length - 1].le !== Infinity || count?.value !== buckets[buckets.length - 1].v) throw new Error(`${name}${key}: +Inf bucket != _count`);
    }
  }
  return arrTriggers;
}

let t: TestService | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const sample = (arrTriggers: ReturnType<typeof parsePrometheus>, name: string, labels: Record<string, string> = {}) => {
  const base = [...arrTriggers.keys()].find((f) => name === f || name.startsWith(f + '_'))!;
  return arrTriggers.get(base)?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
};

describe('the event loop lag', () => {
  it("is sampled once a second, not at prom-client's 10 ms that woke an idle relay 100 times a second, and is still reported", async () => {
    // The module object prom-client calls (it requires 'perf_hooks' itself), so the spy sees the sampler it starts.
    const perfHooks = createRequire(import.meta.url)('perf_hooks') as typeof import('node:perf_hooks');
    const sampler = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    try {
      t = await testService();
      expect(EVENT_LOOP_SAMPLE_MS).toBe(1_000);
      expect(sampler).toHaveBeenCalledWith({ resolution: EVENT_LOOP_SAMPLE_MS });
      expect(sampler.mock.calls.every(([options]) => options?.resolution === EVENT_LOOP_SAMPLE_MS)).toBe(true);
      const res = await t.service.app.inject({ url: '/metrics' });
      expect(parsePrometheus(res.body).get('scanrelay_nodejs_eventloop_lag_p99_seconds')?.type).toBe('gauge');
    } finally {
      sampler.mockRestore();
    }
  });
});

describe('GET /metrics', () => {
  it('counts requests, queue depth, scans and latency, and passes a strict text-format parser', async () => {
    t = await testService();
    const { app, processor, metrics } = t.service;
    const manual = (path: string) =>
      app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'eventType=Manual&filepath=' + encodeURIComponent(path) });
    await manual('/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv');
    await manual('/mnt/unionfs/Media/tv/Show "quoted" \\ back/S01/e1.mkv');
    await app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ eventType: 'Test', series: {} }) });
    metrics.drivePoll('My Drive', true);
    metrics.drivePoll('Team "A"\nB', false);

    let res = await app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    let arrTriggers = parsePrometheus(res.body);
    expect(sample(arrTriggers, 'scanrelay_requests_total', { source: 'manual', event: 'Manual', outcome: 'queued' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_queue_depth', { state: 'waiting' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_target_up', { target: 'plex' })).toBe(1);
    expect(sample(arrTriggers, 'scanrelay_drive_polls_total', { drive: 'My Drive', outcome: 'ok' })).toBe(1);
    expect(sample(arrTriggers, 'scanrelay_drive_poll_errors_total', { drive: 'Team "A"\nB' })).toBe(1);
    expect(arrTriggers.get('scanrelay_request_to_scan_seconds')?.type).toBe('histogram');

    t.clock.advance(200_000);
    await processor.drain();
    res = await app.inject({ url: '/metrics' });
    arrTriggers = parsePrometheus(res.body);
    expect(sample(arrTriggers, 'scanrelay_scans_total', { target: 'plex', outcome: 'scanned' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_queue_depth', { state: 'waiting' })).toBe(0);
    expect(sample(arrTriggers, 'scanrelay_request_to_scan_seconds_count', { target: 'plex' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_request_to_scan_seconds_bucket', { target: 'plex', le: '180' })).toBe(0);
    expect(sample(arrTriggers, 'scanrelay_request_to_scan_seconds_bucket', { target: 'plex', le: '300' })).toBe(2);
    // Both stages: each delivery, and each follow-up with what it found (the fake never adds these files).
    expect(arrTriggers.get('scanrelay_delivery_seconds')?.type).toBe('histogram');
    expect(sample(arrTriggers, 'scanrelay_delivery_seconds_count', { target: 'plex' })).toBe(2);
    expect(arrTriggers.get('scanrelay_follow_seconds')?.type).toBe('histogram');
    expect(sample(arrTriggers, 'scanrelay_follow_seconds_count', { target: 'plex', outcome: 'scanned' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_follow_ups_total', { target: 'plex', outcome: 'scanned' })).toBe(2);
    expect(sample(arrTriggers, 'scanrelay_deliveries_following', { target: 'plex' }) ?? 0).toBe(0);
  });

  it('with SERVER_METRICS_TOKEN, needs the bearer token and never logs it', async () => {
    t = await testService({ config: { SERVER_METRICS_TOKEN: 'metrics-token-42' } });
    const { app } = t.service;
    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(401);
    expect((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    const ok = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-42' } });
    expect(ok.statusCode).toBe(200);
    parsePrometheus(ok.body);
    expect(t.logs.join('')).not.toContain('metrics-token-42');
  });

  it("passes Prometheus's own linter (promtool check metrics), every family populated", async () => {
    t = await testService();
    const { app, processor, metrics } = t.service;
    await app.inject({ method: 'POST', url: `/${SECRET}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'eventType=Manual&filepath=' + encodeURIComponent('/mnt/unionfs/Media/movies/Heat (1995)/Heat.mkv') });
    metrics.drivePoll('My Drive', false);
    t.clock.advance(200_000);
    await processor.drain();
    const body = (await app.inject({ url: '/metrics' })).body;
    const lint = spawnSync(promtoolPath(), ['check', 'metrics'], { input: body, encoding: 'utf8' });
    expect(lint.stdout + lint.stderr).toBe('');
    expect(lint.status).toBe(0);
    // The linter is not a rubber stamp: a gauge named like a counter fails it.
    expect(spawnSync(promtoolPath(), ['check', 'metrics'], { input: '# HELP a_total x\n# TYPE a_total gauge\na_total 1\n', encoding: 'utf8' }).status).not.toBe(0);
  });

  it('the parser itself rejects broken output', () => {
    expect(() => parsePrometheus('# TYPE a counter\na{x="unterminated} 1\n')).toThrow();
    expect(() => parsePrometheus('# TYPE a counter\na 1\n# TYPE a counter\n')).toThrow();
    expect(() => parsePrometheus('a{x="bad \\t escape"} 1\n')).toThrow();
    expect(() => parsePrometheus('a one\n')).toThrow();
    expect(() => parsePrometheus('9a 1\n')).toThrow();
    expect(() => parsePrometheus('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n')).toThrow();
  });
});
