// The ops kit: deploy/compose.yaml (parsed, its config accepted by the real loader with its Docker secret, its
// health check run against a real service), the Dockerfile's runtime and health check (the port the server
// listens on, from the environment or config.json), and the Grafana dashboard's expressions against the metrics
// the service exports. The entrypoint runs for real in entrypoint.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { execFile, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ManualClock } from '../../src/clock.js';
import { MALLOC_ENV, NODE_FLAGS } from '../support/launch.js';
import { loadConfig } from '../../src/config/load.js';
import { EX_CONFIG } from '../../src/queue/file-check.js';
import { Queue } from '../../src/queue/store.js';
import { Metrics } from '../../src/server/metrics.js';
import type { Target } from '../../src/scan.js';
import { repoRoot } from '../support/fixtures.js';
import { freePort } from '../support/net.js';
import { testService } from '../support/service.js';

const run = promisify(execFile);
const composeFile = join(repoRoot, 'deploy', 'compose.yaml');
const compose = parse(readFileSync(composeFile, 'utf8')) as {
  services: Record<string, { build?: string; image?: string; environment?: Record<string, string>; ports?: string[]; volumes?: string[]; secrets?: string[]; read_only?: boolean; tmpfs?: string[]; healthcheck?: { test: string[]; start_period?: string } }>;
  secrets: Record<string, { file: string }>;
};
const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const tmp = mkdtempSync(join(tmpdir(), 'scanrelay-deploy-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/** The Dockerfile's HEALTHCHECK command, exec form. */
const healthCommand = JSON.parse(/^\s+CMD (\[.*\])$/m.exec(dockerfile.slice(dockerfile.indexOf('HEALTHCHECK')))![1]) as string[];

/** Runs the image's health check here: /app/healthcheck.mjs is docker/healthcheck.mjs, /config a folder of the test's. */
function healthCheck(command: string[], env: NodeJS.ProcessEnv, configDir: string): Promise<number> {
  const [cmd, ...args] = command.map((a) => a.replace('/app/entrypoint.sh', join(repoRoot, 'docker', 'entrypoint.sh')));
  const local = args.map((a) => a.replace('/app/healthcheck.mjs', join(repoRoot, 'docker', 'healthcheck.mjs')).replace(/^\/config\//, `${configDir}/`));
  // Through the entrypoint as the user the test runs as (its PUID: 0 when that is root).
  const user = { PUID: String(process.getuid?.() ?? 1000), PGID: String(process.getgid?.() ?? 1000) };
  return run(cmd === 'node' ? process.execPath : cmd, local, { timeout: 10_000, env: { PATH: process.env.PATH, ...user, ...env } }).then(() => 0, (e: { code?: number }) => e.code ?? 1);
}

describe('deploy/compose.yaml', () => {
  const svc = compose.services.scanrelay;

  it('runs scanrelay beside Plex with /config as a volume, read-only otherwise, the port published and the image\'s health check', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['plex', 'scanrelay']);
    expect(svc.ports).toContain('3468:3468');
    expect(svc.volumes!.some((v) => v.endsWith(':/config'))).toBe(true);
    expect(svc.read_only).toBe(true);
    expect(svc.tmpfs).toEqual(['/tmp']);
    // The Dockerfile keeps config, queue and log under /config: the volume must be that folder.
    expect(dockerfile).toMatch(/"--config", "\/config\/config.json", "--queuefile", "\/config\/queue.db", "--logfile", "\/config\/scanrelay.log"/);
    expect(svc.healthcheck!.test).toEqual(['CMD', ...healthCommand]);
    expect(existsSync(join(resolve(dirname(composeFile), svc.build!), 'Dockerfile'))).toBe(true);
    expect(svc.environment!.PLEX_LOCAL_URL).toBe('http://plex:32400');
    expect(svc.environment).toMatchObject({ PUID: '1000', PGID: '1000', UMASK: '022' });
  });

  it('its comments say how it builds: from the repository root, run from this folder', () => {
    const text = readFileSync(composeFile, 'utf8');
    expect(svc.build).toBe('..');
    expect(text).toMatch(/run from this folder of a checkout: the image is built from the\n# repository root \(build: \.\.\)/);
    expect(text).not.toMatch(/make it writable by uid 1000/);
  });

  it("its environment and its Docker secret are a valid config for the real loader (every key known, every value accepted)", () => {
    // Compose mounts each secret at /run/secrets/<name>; here, a file of the test's.
    expect(svc.secrets).toEqual(['plex_token']);
    expect(compose.secrets.plex_token.file).toBe('./secrets/plex_token');
    const secret = join(tmp, 'plex_token');
    writeFileSync(secret, 'plex-token-from-secret\n');
    const env = Object.fromEntries(Object.entries(svc.environment!).map(([k, v]) => [k, v === '/run/secrets/plex_token' ? secret : v]));
    // PUID, PGID, UMASK and TZ are the entrypoint's, not config keys.
    const image = ['PUID', 'PGID', 'UMASK', 'TZ'];
    const loaded = loadConfig(join(mkdtempSync(join(tmpdir(), 'scanrelay-compose-')), 'config.json'), env, { write: false });
    expect(loaded.envOverrides.sort()).toEqual(Object.keys(env).filter((k) => !image.includes(k)).map((k) => k.replace(/_FILE$/, '')).sort());
    expect(loaded.config.PLEX_TOKEN).toBe('plex-token-from-secret');
    expect(loaded.fromFiles.map((f) => f.variable)).toEqual(['PLEX_TOKEN_FILE']);
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
      // The server listens where SERVER_PORT says: the check asks there.
      const check = () => healthCheck(svc.healthcheck!.test.slice(1), { SERVER_PORT: new URL(url).port }, tmp);
      expect(await check()).toBe(1);
      answer();
      await expect.poll(check, { timeout: 10_000 }).toBe(0);
    } finally {
      await t.close();
    }
  }, 30_000);
});

describe('Dockerfile', () => {
  it('builds and runs on Node 24 LTS, runs the bundle, and checks readiness', () => {
    expect([...dockerfile.matchAll(/^FROM (?:--platform=\S+ )?(\S+)/gm)].map((m) => m[1])).toEqual(['node:24-bookworm-slim', 'node:24-bookworm-slim']);
    // The build stage runs natively for any target (what it makes is platform-free); the last stage is the target's.
    expect(dockerfile).toMatch(/^FROM --platform=\$BUILDPLATFORM node:24-bookworm-slim AS build$/m);
    // No install script runs (Node 24 needs none compiled); the build is run by name, then pruned.
    expect(dockerfile).toMatch(/npm ci --ignore-scripts && npm run build && npm prune --omit=dev$/m);
    expect(dockerfile).toMatch(/COPY scripts\/bundle\.mjs/);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    // The same Node flags on every launcher: npm start's heap options, and no testing flag of V8's.
    expect(NODE_FLAGS).toEqual(['--max-semi-space-size=8', '--max-old-space-size=512']);
    expect(dockerfile).toContain(`ENTRYPOINT ["/app/entrypoint.sh", "node", ${NODE_FLAGS.map((f) => `"${f}"`).join(', ')}, "${pkg.bin.scanrelay}",`);
    expect(pkg.scripts.start).toBe(`node ${NODE_FLAGS.join(' ')} ${pkg.bin.scanrelay} server`);
    const unit = readFileSync(join(repoRoot, 'deploy', 'scanrelay.service'), 'utf8');
    expect(unit).toContain(`ExecStart=/usr/bin/node ${NODE_FLAGS.join(' ')} /opt/scanrelay/${pkg.bin.scanrelay} server`);
    // And the same malloc setting where the launcher sets the environment (npm start leaves the environment to its user).
    for (const [key, value] of Object.entries(MALLOC_ENV)) {
      expect(dockerfile).toMatch(new RegExp(`^ENV ${key}=${value}$`, 'm'));
      expect(unit).toMatch(new RegExp(`^Environment=${key}=${value}$`, 'm'));
    }
    // Through the entrypoint: as PUID:PGID, not as root on the files the relay's user owns.
    expect(healthCommand).toEqual(['/app/entrypoint.sh', 'healthcheck', 'node', '/app/healthcheck.mjs', '/config/config.json']);
  });

  it('puts `scanrelay` on PATH, and a command run with docker exec reads the files the server was started with', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(dockerfile).toMatch(/^COPY --chmod=0755 docker\/scanrelay \/usr\/local\/bin\/scanrelay$/m);
    // With the server's heap options: a long command (reconcile) holds its memory as the server does.
    const command = readFileSync(join(repoRoot, 'docker', 'scanrelay'), 'utf8');
    expect(command).toMatch(new RegExp(`^exec node ${NODE_FLAGS.join(' ')} /app/${pkg.bin.scanrelay} "\\$@"$`, 'm'));
    expect(spawnSync('sh', ['-n', join(repoRoot, 'docker', 'scanrelay')]).status).toBe(0);
    const entry = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    const env = /^ENV (SCANRELAY_.*)$/m.exec(dockerfile)![1];
    for (const flag of ['config', 'queuefile', 'logfile']) expect(env).toContain(`SCANRELAY_${flag.toUpperCase()}=${entry[entry.indexOf(`--${flag}`) + 1]}`);
  });

  describe('its health check asks the port and address the server listens on', () => {
    let server: Server;
    let port: number;
    let asked: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        asked.push(`${req.socket.localAddress}:${req.socket.localPort}${req.url}`);
        res.writeHead(200).end('{}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    const configWith = (keys: object) => {
      const dir = mkdtempSync(join(tmp, 'config-'));
      writeFileSync(join(dir, 'config.json'), JSON.stringify(keys));
      return dir;
    };

    it('SERVER_PORT from config.json, the loopback address when it listens on every address', async () => {
      asked = [];
      expect(await healthCheck(healthCommand, {}, configWith({ SERVER_PORT: port, SERVER_IP: '0.0.0.0' }))).toBe(0);
      expect(asked).toEqual([`127.0.0.1:${port}/health?ready`]);
    });

    it('SERVER_PORT and SERVER_IP from the environment (or a _FILE) over config.json, as the server reads them', async () => {
      const elsewhere = configWith({ SERVER_PORT: 1, SERVER_IP: '192.0.2.1' });
      expect(await healthCheck(healthCommand, { SERVER_PORT: String(port), SERVER_IP: '127.0.0.1' }, elsewhere)).toBe(0);
      const portFile = join(tmp, 'port');
      writeFileSync(portFile, `${port}\n`);
      expect(await healthCheck(healthCommand, { SERVER_PORT_FILE: portFile, SERVER_IP: '"127.0.0.1"' }, elsewhere)).toBe(0);
    });

    it('fails when nothing answers there', async () => {
      expect(await healthCheck(healthCommand, {}, configWith({ SERVER_PORT: await freePort() }))).toBe(1);
    });
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
