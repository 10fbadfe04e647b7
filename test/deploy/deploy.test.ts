// The ops kit: deploy/compose.yaml (parsed, its config accepted by the real loader, its health check run
// against a real service), the Dockerfile's runtime, and the Grafana dashboard's expressions against the
// metrics the service exports.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManualClock } from '../../src/clock.js';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { loadConfig } from '../../src/config/load.js';
import { EX_CONFIG } from '../../src/queue/file-check.js';
import { Queue } from '../../src/queue/store.js';
import { Metrics } from '../../src/server/metrics.js';
import type { Target } from '../../src/scan.js';
import { repoRoot } from '../support/fixtures.js';
import { testService } from '../support/service.js';

const run = promisify(execFile);
const composeFile = join(repoRoot, 'deploy', 'compose.yaml');
const compose = parse(readFileSync(composeFile, 'utf8')) as {
  services: Record<string, { build?: string; image?: string; environment?: Record<string, string>; ports?: string[]; volumes?: string[]; healthcheck?: { test: string[]; start_period?: string } }>;
};
const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');

describe('deploy/compose.yaml', () => {
  const svc = compose.services.scanrelay;

  it('runs scanrelay beside Plex with /config as a volume, the port published and a health check', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['plex', 'scanrelay']);
    expect(svc.ports).toContain('3468:3468');
    expect(svc.volumes!.some((v) => v.endsWith(':/config'))).toBe(true);
    // The Dockerfile keeps config, queue and log under /config: the volume must be that folder.
    expect(dockerfile).toMatch(/"--config", "\/config\/config.json", "--queuefile", "\/config\/queue.db", "--logfile", "\/config\/scanrelay.log"/);
    expect(svc.healthcheck!.test.join(' ')).toContain('/health?ready');
    expect(existsSync(join(resolve(dirname(composeFile), svc.build!), 'Dockerfile'))).toBe(true);
    expect(svc.environment!.PLEX_LOCAL_URL).toBe('http://plex:32400');
  });

  it("its environment is a valid config for the real loader (every key known, every value accepted)", () => {
    const env = Object.fromEntries(Object.entries(svc.environment!).map(([k, v]) => [k, v.startsWith('${PLEX_TOKEN') ? 'plex-token-from-env' : v]));
    const loaded = loadConfig(join(mkdtempSync(join(tmpdir(), 'scanrelay-compose-')), 'config.json'), env, { write: false });
    expect(loaded.envOverrides.sort()).toEqual(Object.keys(env).sort());
    expect(loaded.config.SERVER_PATH_MAPPINGS).toEqual({ '/data/TV/': ['/tv/'], '/data/Movies/': ['/movies/'] });
    // What Plex calls /data is mounted read-only at /media in the scanrelay container.
    expect(svc.volumes!.some((v) => /:\/media:ro$/.test(v))).toBe(true);
    expect(loaded.config.SERVER_FILE_EXIST_PATH_MAPPINGS).toEqual({ '/media/': ['/data/'] });
  });

  it("the health check command fails while the service is starting and passes once it is ready", async () => {
    let answer!: () => void;
    const probed = new Promise<{ ok: true }>((r) => (answer = () => r({ ok: true })));
    const plex: Target = { name: 'plex', kind: 'test', pauseMs: 0, scan: async () => ({ status: 'scanned' }), available: () => probed };
    const t = await testService({ targets: [plex] });
    try {
      const url = await t.service.listen(0, '127.0.0.1');
      const [cmd, ...args] = svc.healthcheck!.test.slice(1);
      const check = () => run(cmd === 'node' ? process.execPath : cmd, args.map((a) => a.replace('http://127.0.0.1:3468', url)), { timeout: 10_000 }).then(() => 0, (e: { code?: number }) => e.code ?? 1);
      expect(await check()).toBe(1);
      answer();
      await expect.poll(check, { timeout: 10_000 }).toBe(0);
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('Dockerfile', () => {
  it('builds and runs on Node 24 LTS, without the Node 20 binding, runs the bundle, and checks readiness', () => {
    expect([...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1])).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    // No install script runs (none compiles better-sqlite3-node20); the build is run by name, then pruned.
    expect(dockerfile).toMatch(/npm ci --ignore-scripts && npm run build && npm prune --omit=dev --omit=optional/);
    expect(dockerfile).toMatch(/COPY scripts\/bundle\.mjs/);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    // The same Node flags on every launcher (src/cli/node-flags.ts says why).
    expect(dockerfile).toContain(`ENTRYPOINT ["node", ${NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "${pkg.bin.scanrelay}",`);
    expect(pkg.scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} ${pkg.bin.scanrelay} server`);
    expect(readFileSync(join(repoRoot, 'deploy', 'scanrelay.service'), 'utf8')).toContain(`ExecStart=/usr/bin/node ${NODE_FLAGS.join(' ')} /opt/scanrelay/${pkg.bin.scanrelay} server`);
    expect(dockerfile).toMatch(/HEALTHCHECK[^\n]*\n\s+CMD node -e "fetch\('http:\/\/127\.0\.0\.1:'\+\(process\.env\.SERVER_PORT\|\|3468\)\+'\/health\?ready'\)/);
  });

  it('package.json asks for a supported Node, and the README says which versions are tested', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
    expect(pkg.engines.node).toBe('>=22');
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    expect(readme).toMatch(/Node 24 LTS/);
    expect(readme).toMatch(/tested on Node 20 and Node 24/i);
    expect(readme).toContain('scripts/test-on-node.sh');
  });
});

describe('deploy/scanrelay.service', () => {
  it('does not restart a server that refused its queue file (exit 78): a restart every 5 s cannot mend the file', () => {
    const unit = readFileSync(join(repoRoot, 'deploy', 'scanrelay.service'), 'utf8');
    expect(unit).toMatch(/^Restart=on-failure$/m);
    expect(unit).toMatch(new RegExp(`^RestartPreventExitStatus=${EX_CONFIG}$`, 'm'));
  });
});

/** The two stages' histograms, which the dashboard must chart as distributions. */
const STAGE_HISTOGRAMS = ['scanrelay_delivery_seconds', 'scanrelay_follow_seconds'];

describe('deploy/grafana/scanrelay.json', () => {
  const dashboard = JSON.parse(readFileSync(join(repoRoot, 'deploy', 'grafana', 'scanrelay.json'), 'utf8')) as {
    uid: string;
    panels: { id: number; type: string; title: string; targets?: { expr: string }[]; datasource?: { uid: string } }[];
    templating: { list: { name: string; query: unknown }[] };
  };

  async function exported(): Promise<{ names: Set<string>; service: string[] }> {
    const q = new Queue(':memory:', new ManualClock(), { delayMs: 0 });
    const metrics = new Metrics({ queue: q });
    try {
      const names = new Set<string>();
      const service: string[] = [];
      for (const m of await metrics.registry.getMetricsAsJSON()) {
        const forms = String(m.type) === 'histogram' ? ['_bucket', '_sum', '_count'].map((s) => m.name + s) : [m.name];
        forms.forEach((f) => names.add(f));
        if (!/^scanrelay_(process|nodejs)_/.test(m.name)) service.push(m.name);
      }
      return { names, service };
    } finally {
      metrics.close();
      q.close();
    }
  }

  it('every expression names only metrics the service exports', async () => {
    const { names } = await exported();
    for (const name of STAGE_HISTOGRAMS) expect(names.has(`${name}_bucket`), name).toBe(true);
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
    const variableQueries = dashboard.templating.list.filter((v) => typeof v.query === 'object').map((v) => ({ panel: `$${v.name}`, expr: (v.query as { query: string }).query }));
    expect(exprs.length).toBeGreaterThanOrEqual(10);
    for (const { panel, expr } of [...exprs, ...variableQueries]) {
      const used = [...expr.matchAll(/\b[a-z_][a-z0-9_]*(?=\s*[{[(,)]|\s*$)/g)].map((m) => m[0]).filter((w) => w.startsWith('scanrelay_'));
      expect(used.length, `${panel}: ${expr}`).toBeGreaterThan(0);
      for (const name of used) expect(names.has(name), `${panel}: ${name} is not exported`).toBe(true);
    }
  });

  it("charts every metric of the service's own (not just the process ones)", async () => {
    const { service } = await exported();
    const text = JSON.stringify(dashboard.panels);
    for (const name of service) expect(text, name).toContain(name);
    for (const name of STAGE_HISTOGRAMS) expect(text, name).toContain(`${name}_bucket`);
  });

  it('is importable: one uid, unique panel ids, every panel on the chosen data source', () => {
    expect(dashboard.uid).toBe('scanrelay');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels.filter((x) => x.type !== 'row')) expect(p.datasource?.uid, p.title).toBe('${datasource}');
  });
});
