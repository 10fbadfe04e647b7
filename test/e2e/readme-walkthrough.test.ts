// The README, followed as a newcomer would, in one sitting: a fresh clone, the quick start, the "First scan"
// steps, a scan reaching a (fake) Plex, the dashboard showing it, `connect` on the running relay, and the Docker
// example's configuration scanning. Each step runs the command the README names (npm start, npx scanrelay sections
// and connect, the curl request) as argv in the clone.
// Two departures, both for the test's sake: node_modules is linked from this checkout instead of downloaded
// (`npm ci` = install + the `prepare` build, so the build is run here), and the port is set through the
// environment so the test does not clash with a real service. The scan delay is the README's own advice for
// trying things out (`"SERVER_SCAN_DELAY": 5`), and the dashboard's Scan now is pressed as it says.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeArrApp } from '../fakes/arr-app.js';
import { FakePlex } from '../fakes/plex.js';
import { repoRoot, unlessSkipped } from '../support/fixtures.js';
import { lineAuditor } from '../support/log-audit.js';
import { freePort, portIsFree } from '../support/net.js';
import { until } from '../support/until.js';
import { chromiumPages } from '../support/chromium.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const committed = (() => {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim().length === 40;
  } catch {
    return false;
  }
})();

interface Run {
  proc: ChildProcess;
  output: () => string;
  waitFor(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Run {
  // Its own process group, like a command typed in a terminal, so Ctrl-C reaches npm and the node it started.
  const proc = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const audit = lineAuditor();
  const take = (d: Buffer) => {
    out += d.toString();
    audit(d.toString());
  };
  proc.stdout!.on('data', take);
  proc.stderr!.on('data', take);
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return {
    proc,
    output: () => out,
    exited,
    async waitFor(re, ms = 90_000) {
      let m: RegExpMatchArray | null = null;
      const seen = () => {
        m = out.match(re);
        if (!m && proc.exitCode !== null) throw new Error(`exited with no ${re} in the output:\n${out}`);
        return m !== null;
      };
      await until(seen, { ms, every: 50, what: () => `no ${re} in the output:\n${out}` });
      return m!;
    },
  };
}

/** Sonarr's On File Import webhook for one episode file, sent as Sonarr sends it (its /tv/ root folder). */
function sonarrImport(url: string, show: string, season: number, file: string): Promise<Response> {
  const folder = `Season ${String(season).padStart(2, '0')}`;
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'Sonarr/4.0.17.2952 (ubuntu 24.04)' },
    body: JSON.stringify({
      eventType: 'Download',
      series: { title: show, path: `/tv/${show}` },
      episodes: [{ seasonNumber: season, episodeNumber: 1, title: 'Pilot' }],
      episodeFile: { relativePath: `${folder}/${file}`, path: `/tv/${show}/${folder}/${file}` },
      isUpgrade: false,
    }),
  });
}

/** A command line's words as sh splits them: blanks separate, single quotes keep what they hold as it is. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Ctrl-C, as the README says: SIGINT to the command's whole process group; resolves when the port is free. */
async function stop(r: Run, port?: number): Promise<void> {
  try {
    process.kill(-r.proc.pid!, 'SIGINT');
  } catch {
    // The group has already gone.
  }
  await r.exited;
  if (port === undefined) return;
  await until(() => portIsFree(port), { ms: 10_000, every: 50, what: `port ${port} still in use after Ctrl-C: the service did not stop` });
}

// A whole sitting: clone, build and three service starts; slow on a busy 2-core machine.
describe.skipIf(!committed)(`the README, from clone to a scan on the dashboard${unlessSkipped(committed, 'not a git checkout with a commit: the walkthrough clones it')}`, { timeout: 180_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'scanrelay-readme-'));
  const clone = join(work, 'scanrelay');
  let plex: FakePlex;
  let port: number;
  let env: NodeJS.ProcessEnv;
  let service: Run | undefined;
  let pass = '';
  /** When the first `npm start` began: the README promises a scan seen in under 2 minutes from there. */
  let startedAt = 0;

  beforeAll(async () => {
    plex = await new FakePlex({ sections: [{ key: '2', title: 'TV Shows', type: 'show', locations: ['/data/TV'] }] }).start();
    port = await freePort();
    env = { SERVER_PORT: String(port), SERVER_IP: '127.0.0.1' };
  });
  afterAll(async () => {
    if (service) await stop(service, port);
    await plex?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('Quick start: a clone installs, builds and starts, writes a default config (0600) and prints the URL', async () => {
    expect(readme).toContain('npm ci && npm start');
    execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repoRoot, clone]);
    symlinkSync(join(repoRoot, 'node_modules'), join(clone, 'node_modules'));
    execFileSync('npm', ['run', 'build'], { cwd: clone, stdio: 'pipe' });

    startedAt = Date.now();
    service = run('npm', ['start'], clone, env);
    const m = await service.waitFor(/scanrelay is running\. Webhook URL \(give it to Sonarr, Radarr, Lidarr: Settings > Connect > Webhook\):\s+http:\/\/127\.0\.0\.1:(\d+)\/(\S+)/);
    expect(Number(m[1])).toBe(port);
    pass = m[2];
    const config = join(clone, 'config', 'config.json');
    expect(existsSync(config)).toBe(true);
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(config, 'utf8')).SERVER_PASS).toBe(pass);
    expect(pass).toMatch(/^[0-9a-f]{32}$/);
    await stop(service, port);
    service = undefined;
  });

  it('First scan: edit the config, start it again, see the libraries, ask for a scan, watch it reach Plex', async () => {
    expect(readme).toMatch(/1\. Stop the service \(Ctrl-C\) and edit `config\/config.json`/);
    const file = join(clone, 'config', 'config.json');
    const config = JSON.parse(readFileSync(file, 'utf8'));
    // The show's folder on "this machine", where the file-exist check looks (README: /mnt/media/TV/).
    const media = join(work, 'mnt', 'media', 'TV');
    mkdirSync(join(media, 'Some Show', 'Season 01'), { recursive: true });
    expect(readme).toContain('`{"/mnt/media/TV/": ["/data/TV/"]}`');
    Object.assign(config, {
      PLEX_LOCAL_URL: plex.url,
      PLEX_TOKEN: plex.token,
      SERVER_PATH_MAPPINGS: { '/data/TV/': ['/tv/'] }, // the README's example
      SERVER_FILE_EXIST_PATH_MAPPINGS: { [`${media}/`]: ['/data/TV/'] },
      SERVER_ALLOW_MANUAL_SCAN: true,
      SERVER_SCAN_DELAY: 5, // "while trying things out"
    });
    expect(readme).toContain('`"SERVER_SCAN_DELAY": 5`');
    writeFileSync(file, JSON.stringify(config, null, 2));

    // Step 2: `npm start`.
    expect(readme).toContain('2. Start it again with `npm start`.');
    service = run('npm', ['start'], clone, env);
    await service.waitFor(/scanrelay is running/);

    // Step 3: the libraries are visible, with the command typed as README says it is in a checkout.
    expect(readme).toContain('`npx scanrelay sections`');
    const sections = run('npx', ['scanrelay', 'sections'], clone, env);
    expect(await sections.exited).toBe(0);
    expect(sections.output()).toMatch(/^2\) TV Shows$/m);
    expect(sections.output()).toContain('/data/TV');

    // Step 4: the README's curl request (curl -d sends a form body).
    expect(readme).toContain('curl -d "eventType=Manual&filepath=/tv/Some Show/Season 01/" http://127.0.0.1:3468/<SERVER_PASS>');
    const res = await fetch(`http://127.0.0.1:${port}/${pass}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'eventType=Manual&filepath=/tv/Some Show/Season 01/',
    });
    expect(res.status).toBe(200);
    const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { queue?: { folders?: number } };
    expect(JSON.stringify(health)).toMatch(/"folders":1/);

    // Step 5: the result in under a minute.
    expect(readme).toMatch(/See the result in under a minute/);
    const asked = Date.now();
    while (plex.refreshes.length === 0 && Date.now() < asked + 60_000) await new Promise((r) => setTimeout(r, 50));
    expect(plex.refreshes, service.output()).toEqual([{ section: '2', path: '/data/TV/Some Show/Season 01' }]);
    expect(Date.now() - asked).toBeLessThan(60_000);
    // From the first start to a scan seen in Plex: under 2 minutes (the install is not counted).
    expect(Date.now() - startedAt).toBeLessThan(120_000);
  });

  it('Dashboard: the scan is in the history, as the README says; the first webhook is scanned and confirmed', async () => {
    expect(readme).toContain('`http://<host>:3468/<SERVER_PASS>/dashboard`');
    const browser = await chromiumPages();
    try {
      const page = await browser.newPage({ viewport: { width: 1024, height: 768 } });
      await page.goto(`http://127.0.0.1:${port}/${pass}/dashboard`);
      const done = page.locator('#history li', { hasText: '/data/TV/Some Show/Season 01' });
      await expect.poll(() => done.count(), { timeout: 30_000 }).toBe(1);

      // "press Scan now on the folder: it skips the delay, reaches Plex as soon as the folder exists where
      // SERVER_FILE_EXIST_PATH_MAPPINGS says, and moves to the history". The folder is asked for before it exists
      // here, so it stays queued on its own (its first check fails, the next is SERVER_FILE_CHECK_DELAY, 60 s,
      // later) until the test has pressed Scan now; a folder already there would be scanned SERVER_SCAN_DELAY (5 s)
      // after the request, and on a busy machine the card and its buttons could be gone before the clicks.
      expect(readme).toMatch(/press \*\*Scan now\*\* on the folder: it skips the delay, reaches Plex as soon as the folder exists/);
      const res = await fetch(`http://127.0.0.1:${port}/${pass}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'eventType=Manual&filepath=/tv/Some Show/Season 02/',
      });
      expect(res.status).toBe(200);
      const folder = '/data/TV/Some Show/Season 02';
      const checks = async () => {
        const queue = (await (await fetch(`http://127.0.0.1:${port}/api/${pass}/queue`)).json()) as { folders: { folder: string; fileChecks: number }[] };
        return queue.folders.find((f) => f.folder === folder)?.fileChecks ?? 0;
      };
      await expect.poll(checks, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      await page.reload();
      const card = page.locator('#queue li', { hasText: folder });
      await card.getByRole('button', { name: `Scan now: ${folder}` }).click();
      mkdirSync(join(work, 'mnt', 'media', 'TV', 'Some Show', 'Season 02'), { recursive: true });
      await card.getByRole('button', { name: `Yes, scan now ${folder}` }).click();
      await expect.poll(() => page.locator('.notice').textContent(), { timeout: 10_000 }).toContain(`Scanning now: ${folder}`);
      await expect.poll(() => plex.refreshes.map((r) => r.path), { timeout: 30_000 }).toContain(folder);
      await expect.poll(() => page.locator('#history li', { hasText: folder }).count(), { timeout: 30_000 }).toBe(1);

      // "Your first webhook": a Sonarr import of a file, sent as Sonarr sends it, is scanned and confirmed.
      expect(readme).toContain('## Your first webhook (Sonarr, Radarr, Lidarr)');
      const episode = 'Some Show - S03E01 - Pilot.mkv';
      mkdirSync(join(work, 'mnt', 'media', 'TV', 'Some Show', 'Season 03'), { recursive: true });
      writeFileSync(join(work, 'mnt', 'media', 'TV', 'Some Show', 'Season 03', episode), 'video');
      plex.onDisk.add(`/data/TV/Some Show/Season 03/${episode}`);
      const hook = await sonarrImport(`http://127.0.0.1:${port}/${pass}`, 'Some Show', 3, episode);
      expect(hook.status).toBe(200);
      const confirmed = async () => {
        const history = (await (await fetch(`http://127.0.0.1:${port}/api/${pass}/history`)).json()) as { history: { folder: string; outcome: string }[] };
        return history.history.find((r) => r.folder === '/data/TV/Some Show/Season 03')?.outcome;
      };
      await expect.poll(confirmed, { timeout: 40_000 }).toBe('confirmed');
      await page.reload();
      expect(await page.locator('#history li', { hasText: '/data/TV/Some Show/Season 03' }).textContent()).toContain('confirmed');
      const artifacts = join(repoRoot, 'test-artifacts');
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'readme-walkthrough-dashboard.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
  it("Your first webhook: `npx scanrelay connect` sets up the app and the running relay reads it (/health lists it), no restart", async () => {
    expect(readme).toContain('run `npx scanrelay connect --url http://<scanrelay host>:3468`');
    const sonarr = await new FakeArrApp('sonarr', 'readme-walkthrough-sonarr-key').start();
    try {
      sonarr.rootFolders = ['/tv'];
      const file = join(clone, 'config', 'config.json');
      const config = JSON.parse(readFileSync(file, 'utf8'));
      config.ARR = [{ NAME: 'sonarr', TYPE: 'sonarr', URL: sonarr.url, API_KEY: sonarr.apiKey }];
      writeFileSync(file, JSON.stringify(config, null, 2));
      const connect = run('npx', ['scanrelay', 'connect', '--url', `http://127.0.0.1:${port}`], clone, env);
      expect(await connect.exited, connect.output()).toBe(0);
      expect(connect.output()).toContain("added the Webhook connection 'scanrelay'");
      expect(connect.output()).toContain(`The running relay at http://127.0.0.1:${port} read ARR again: now reads sonarr`);
      expect(sonarr.webhooks()).toHaveLength(1);
      const health = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { arr: { name: string }[] };
      expect(health.arr.map((a) => a.name)).toEqual(['sonarr']);
    } finally {
      await sonarr.stop();
    }
  });

  it("Docker: the README's `docker run` configuration (its environment, its mounts as folders, the image's command) scans an import", async () => {
    if (service) await stop(service, port);
    service = undefined;
    const example = /```sh\n(docker build[^`]*?)```/.exec(readme)![1];
    const runLine = example.replace(/\\\n\s*/g, ' ').split('\n').find((l) => l.startsWith('docker run'))!;
    const tokens = shellWords(runLine);
    // -e NAME=VALUE and -v HOST:CONTAINER[:ro], as the shell hands them to docker.
    const environment: Record<string, string> = {};
    const mounts: Record<string, string> = {};
    for (let i = 0; i < tokens.length; i++) {
      if (tokens[i] === '-e') {
        const [name, ...value] = tokens[++i].split('=');
        environment[name] = value.join('=');
      } else if (tokens[i] === '-v') {
        const [, inside] = tokens[++i].split(':');
        mounts[inside] = join(work, 'docker', inside.replace(/^\//, ''));
      }
    }
    expect(Object.keys(mounts).sort()).toEqual(['/config', '/media']);
    // Each mount is a folder here; a path the container would use is the folder's path.
    for (const dir of Object.values(mounts)) mkdirSync(dir, { recursive: true });
    const here = (value: string) => Object.entries(mounts).reduce((v, [inside, dir]) => v.split(`"${inside}/`).join(`"${dir}/`), value);
    const { PUID, PGID, ...relayEnv } = environment; // the entrypoint's, for the user it runs as
    expect([PUID, PGID]).toEqual(['1000', '1000']);
    // Your Plex is the model Plex; the published port is a free one.
    expect(relayEnv.PLEX_LOCAL_URL).toBeDefined();
    const dockerEnv = { ...Object.fromEntries(Object.entries(relayEnv).map(([k, v]) => [k, here(v)])), PLEX_LOCAL_URL: plex.url, PLEX_TOKEN: plex.token, SERVER_PORT: String(port), SERVER_IP: '127.0.0.1' };
    // The image's command: its ENTRYPOINT after the entrypoint script, then CMD, /config/… in the folder.
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    const argv = [...entrypoint.slice(2), ...cmd].map((a) => a.replace(/^\/config\//, `${mounts['/config']}/`));
    service = run('node', argv, clone, dockerEnv);
    const m = await service.waitFor(/http:\/\/127\.0\.0\.1:\d+\/([0-9a-f]{32})/);
    const secret = m[1];

    // Sonarr (its /tv/ is Plex's /data/TV/ in the default mappings) imports a file that is on the media mount.
    const season = join(mounts['/media'], 'TV', 'Other Show', 'Season 01');
    mkdirSync(season, { recursive: true });
    writeFileSync(join(season, 'Other Show - S01E01.mkv'), 'video');
    const hook = await sonarrImport(`http://127.0.0.1:${port}/${secret}`, 'Other Show', 1, 'Other Show - S01E01.mkv');
    expect(hook.status).toBe(200);
    // Scan now skips the delay (180 s by default); the file check still has to find the file where the mapping says.
    const folder = '/data/TV/Other Show/Season 01';
    const pressed = await fetch(`http://127.0.0.1:${port}/api/${secret}/queue/scan-now`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ folder }) });
    expect(pressed.status).toBe(200);
    await expect.poll(() => plex.refreshes.map((r) => r.path), { timeout: 30_000 }).toContain(folder);
  });
});