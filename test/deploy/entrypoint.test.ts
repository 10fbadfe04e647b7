// The image's start without Docker: docker/entrypoint.sh run for real with the Dockerfile's own ENTRYPOINT and CMD.
// As root it gives a root-owned /config (as Docker creates it) to PUID:PGID, applies UMASK and TZ, and runs the
// command as that user; with --user it refuses a /config it cannot write in one line naming the chown; and the
// server it starts writes nothing outside /config and /tmp (the image's --read-only, in a mount namespace).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FakePlex } from '../fakes/plex.js';
import { lineAuditor } from '../support/log-audit.js';
import { repoRoot, unlessSkipped } from '../support/fixtures.js';
import { freePort } from '../support/net.js';
import { until } from '../support/until.js';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)![1]) as string[];
const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
const script = join(repoRoot, 'docker', 'entrypoint.sh');
const healthcheck = join(repoRoot, 'docker', 'healthcheck.mjs');

const root = process.getuid?.() === 0;
const shellcheck = spawnSync('shellcheck', ['--version']).status === 0;
const unshare = root && spawnSync('unshare', ['-m', '--propagation', 'private', 'true']).status === 0;
const asRoot = unlessSkipped(root, 'not run as root: the drop from root to PUID:PGID cannot be tried');
const inNamespace = unlessSkipped(unshare, 'no mount namespace (unshare -m needs root): the read-only root cannot be made');

const base = mkdtempSync(join(tmpdir(), 'scanrelay-entrypoint-'));
// The dropped user must reach what the test made.
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** In place of node: a program on PATH that says who runs it, how, and with what. */
const stubBin = join(base, 'bin');
mkdirSync(stubBin);
writeFileSync(
  join(stubBin, 'node'),
  `#!/bin/sh
exec ${JSON.stringify(process.execPath)} -e '
const fs = require("fs");
const probe = process.env.SCANRELAY_CONFIG_DIR + "/umask-probe";
fs.writeFileSync(probe, "");
console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), groups: process.getgroups(), umask: process.umask(), probeMode: fs.statSync(probe).mode & 0o777, offset: new Date(0).getTimezoneOffset(), args: process.argv.slice(1) }));
' -- "$@"
`,
  { mode: 0o755 },
);

let n = 0;
/** A config folder as Docker makes one for a missing bind-mount source: root's (or this user's), 0755. */
function configDir(): string {
  const dir = join(base, `config-${n++}`);
  mkdirSync(dir, { mode: 0o755 });
  return dir;
}

/** The Dockerfile's ENTRYPOINT + CMD after the script, /config/... pointing into `dir`. */
function command(dir: string): string[] {
  return [...entrypoint.slice(1), ...cmd].map((a) => a.replace(/^\/config\//, `${dir}/`));
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
  stub?: { uid: number; gid: number; groups: number[]; umask: number; probeMode: number; offset: number; args: string[] };
}

/** Runs the entrypoint on `dir` with the stub node; `prefix` runs it another way (setpriv as --user, unshare). */
function start(dir: string, env: NodeJS.ProcessEnv, prefix: string[] = []): Ran {
  const argv = [...prefix, 'sh', script, ...command(dir)];
  const r = spawnSync(argv[0], argv.slice(1), {
    env: { PATH: `${stubBin}:${process.env.PATH}`, SCANRELAY_CONFIG_DIR: dir, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  const line = r.stdout.trim().split('\n').pop();
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, stub: line ? JSON.parse(line) : undefined };
}

/** As `docker run --user UID:GID`: the entrypoint started by that user (from root, through setpriv). */
const asUser = (uid: number, gid: number) => (root ? ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] : []);
const me = { uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000 };
const userId = root ? { uid: 1000, gid: 1000 } : me;

describe('the Dockerfile starts scanrelay through docker/entrypoint.sh', () => {
  it('copies the script into /app and runs the launchers\' node command through it, with the server as CMD', () => {
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^COPY --chmod=0755 docker\/entrypoint\.sh docker\/healthcheck\.mjs \.\/$/m);
    expect(entrypoint[0]).toBe('/app/entrypoint.sh');
    expect(entrypoint[1]).toBe('node');
    expect(cmd).toEqual(['server']);
    // Executable in the checkout too, for a builder that ignores --chmod.
    expect(statSync(script).mode & 0o111).toBe(0o111);
    // The image starts as root: the entrypoint drops to PUID:PGID itself.
    expect(dockerfile).not.toMatch(/^USER /m);
  });

  it.skipIf(!shellcheck)(`is POSIX sh that shellcheck passes${unlessSkipped(shellcheck, 'no shellcheck (Debian\'s shellcheck; .ci/run installs it)')}`, () => {
    const check = spawnSync('shellcheck', ['-s', 'sh', script], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.skipIf(!unshare)(`as root, gives a root-owned /config and its files to PUID:PGID, never through a link, and runs the command as them with UMASK and TZ (no tzdata needed)${asRoot}${inNamespace}`, () => {
    const dir = configDir();
    writeFileSync(join(dir, 'config.json'), '{}', { mode: 0o600 });
    const outside = join(base, `outside-${n++}`);
    writeFileSync(outside, 'root only', { mode: 0o600 });
    symlinkSync(outside, join(dir, 'link-out'));
    // Node's own time-zone data: TZ works with /usr/share/zoneinfo empty, as in an image without tzdata.
    const hideZoneinfo = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mount -t tmpfs tmpfs /usr/share/zoneinfo && exec "$@"', 'sh'];
    const r = start(dir, { PUID: '1234', PGID: '4321', UMASK: '027', TZ: 'Asia/Kathmandu' }, hideZoneinfo);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stub).toMatchObject({ uid: 1234, gid: 4321, umask: 0o027, probeMode: 0o640, offset: -330 });
    expect(r.stub!.groups).not.toContain(0);
    // The Dockerfile's command, passed on word for word.
    expect(r.stub!.args).toEqual(command(dir).slice(1));
    for (const f of [dir, join(dir, 'config.json')]) expect([statSync(f).uid, statSync(f).gid], f).toEqual([1234, 4321]);
    expect(lstatSync(join(dir, 'link-out')).uid).toBe(1234);
    expect(statSync(outside).uid).toBe(0);
  });

  it.skipIf(!root)(`as root, runs as 1000:1000 with umask 022 unless told otherwise${asRoot}`, () => {
    const dir = configDir();
    const r = start(dir, {});
    expect(r.status).toBe(0);
    expect(r.stub).toMatchObject({ uid: 1000, gid: 1000, umask: 0o022, probeMode: 0o644 });
    expect(statSync(dir).uid).toBe(1000);
  });

  it('refuses a PUID, PGID or UMASK that is not a number, naming it', () => {
    for (const [env, said] of [
      [{ PUID: 'abc' }, "PUID must be a number (a uid), not 'abc'"],
      [{ PGID: '-1' }, "PGID must be a number (a gid), not '-1'"],
      [{ UMASK: 'u=rwx' }, "UMASK must be three or four octal digits (022, 0027), not 'u=rwx'"],
    ] as const) {
      const r = start(configDir(), env);
      expect(r.status).toBe(64);
      expect(r.stderr.trim()).toBe(`scanrelay: ${said}`);
    }
  });

  // Issue 52, finding 6: the image's health check ran as root on files the relay's user owns.
  it.skipIf(!root)(`runs the health check as PUID:PGID, changing nothing of /config${asRoot}`, () => {
    const dir = configDir();
    const r = spawnSync('sh', [script, 'healthcheck', 'node', '/app/healthcheck.mjs'], {
      env: { PATH: `${stubBin}:${process.env.PATH}`, SCANRELAY_CONFIG_DIR: dir, PUID: '1234', PGID: '4321' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    // The stub node writes its probe into the folder: it could, as the folder is root's and 0755, only as root.
    expect(r.status).not.toBe(0);
    chmodSync(dir, 0o777);
    const ok = spawnSync('sh', [script, 'healthcheck', 'node', '/app/healthcheck.mjs'], { env: { PATH: `${stubBin}:${process.env.PATH}`, SCANRELAY_CONFIG_DIR: dir, PUID: '1234', PGID: '4321' }, encoding: 'utf8', timeout: 20_000 });
    expect(JSON.parse(ok.stdout.trim())).toMatchObject({ uid: 1234, gid: 4321, args: ['/app/healthcheck.mjs'] });
    expect(statSync(dir).uid).toBe(0);
  });

  // Issue 52, finding 6: setpriv took PUID=4294967296 for 0 and 4294967295 for -1, and ran scanrelay as root.
  it('refuses a PUID or PGID outside 1-65534, or a 0 not written plainly, before anything runs', () => {
    for (const [env, said] of [
      [{ PUID: '4294967296' }, "PUID must be a uid from 1 to 65534 (or 0, for root), not '4294967296'"],
      [{ PUID: '4294967295' }, "PUID must be a uid from 1 to 65534 (or 0, for root), not '4294967295'"],
      [{ PUID: '65535' }, "PUID must be a uid from 1 to 65534 (or 0, for root), not '65535'"],
      [{ PUID: '000' }, "PUID must be a uid from 1 to 65534 (or 0, for root), not '000'"],
      [{ PGID: '0100' }, "PGID must be a gid from 1 to 65534 (or 0, for root), not '0100'"],
    ] as const) {
      const r = start(configDir(), env);
      expect(r.status).toBe(64);
      expect(r.stderr.trim()).toBe(`scanrelay: ${said}`);
      expect(r.stub).toBeUndefined();
    }
  });

  it('with --user and a /config that user cannot write (a folder Docker made for root), exits with one line giving the exact chown', () => {
    const dir = configDir();
    if (!root) chmodSync(dir, 0o555);
    const r = start(dir, {}, asUser(userId.uid, userId.gid));
    expect(r.status).toBe(77);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `scanrelay: ${dir} is not writable by uid ${userId.uid} gid ${userId.gid}, the user scanrelay runs as. On the host, run: sudo chown -R ${userId.uid}:${userId.gid} <the host folder mounted at ${dir}> (or start the container without --user, as root, with PUID and PGID: it then does this itself)`,
    );
    const unreadable = configDir();
    writeFileSync(join(unreadable, 'config.json'), '{}', { mode: 0o600 });
    if (root) chownSync(unreadable, userId.uid, userId.gid);
    else chmodSync(join(unreadable, 'config.json'), 0o000);
    expect(start(unreadable, {}, asUser(userId.uid, userId.gid)).stderr).toContain(`scanrelay: ${unreadable}/config.json is not writable by uid ${userId.uid}`);
  });

  it('with --user and a /config that user owns, runs the command as that user, PUID aside', () => {
    const dir = configDir();
    if (root) chownSync(dir, userId.uid, userId.gid);
    const r = start(dir, { PUID: '4242' }, asUser(userId.uid, userId.gid));
    expect(r.status).toBe(0);
    expect(r.stub).toMatchObject({ uid: userId.uid, gid: userId.gid });
    expect(r.stub!.args).toEqual(command(dir).slice(1));
  });

  it.skipIf(!unshare)(`as root on a /config it cannot give away (a read-only mount, NFS mapping root to nobody), says so with the chown to run on the host${inNamespace}`, () => {
    const dir = configDir();
    // The folder is its own read-only mount: the mount table then names its source, the host folder of the line.
    const readOnlyMount = ['unshare', '-m', '--propagation', 'private', 'sh', '-c', 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"', dir];
    const r = start(dir, {}, readOnlyMount);
    expect(r.status).toBe(77);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(new RegExp(`^scanrelay: ${dir} is not writable by uid 1000 gid 1000, the user scanrelay runs as \\(giving it to them failed: .*Read-only file system\\)\\. On the host, run: sudo chown -R 1000:1000 '${dir}'\\n$`));
  });
});

describe('the image read-only', () => {
  // The bundle the image runs, built from this checkout beside node_modules (where it finds better-sqlite3).
  const bundle = join(repoRoot, 'node_modules', '.cache', `scanrelay-test-bundle-image-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`, 'scanrelay.mjs');

  it.skipIf(!unshare)(`serves with the root file system read-only, a tmpfs /tmp and /config its only writable path, and its health check finds the port in config.json${inNamespace}`, async () => {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bundle.mjs'), bundle], { cwd: repoRoot, stdio: 'pipe' });
    const plex = await new FakePlex({ sections: [{ key: '2', title: 'TV', type: 'show', locations: ['/data/media/tv'] }] }).start();
    const dir = configDir();
    const app = join(base, 'app');
    const home = join(base, 'home');
    const tmp = join(base, 'tmp');
    const secrets = join(base, 'secrets');
    for (const d of [app, home, tmp, secrets]) mkdirSync(d, { mode: 0o755 });
    symlinkSync(dirname(bundle), join(app, 'dist'));
    const token = join(secrets, 'plex_token');
    writeFileSync(token, `${plex.token}\n`, { mode: 0o600 });
    chownSync(token, 1000, 1000);
    const port = await freePort();
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ SERVER_PASS: '0a1b2c3d4e5f60718293a4b5c6d7e8f9', SERVER_IP: '127.0.0.1', SERVER_PORT: port, PLEX_LOCAL_URL: plex.url }));
    // docker run --read-only --tmpfs /tmp -v <dir>:/config: the volume its own writable mount, then the rest read-only.
    const readOnly = 'mount --bind "$0" "$0" && mount -t tmpfs -o mode=1777 tmpfs "$1" && mount -o remount,bind,ro / && cd "$2" && shift 2 && exec "$@"';
    const argv = ['-m', '--propagation', 'private', 'sh', '-c', readOnly, dir, tmp, app, 'sh', script, ...command(dir)];
    const child = spawn('unshare', argv, {
      env: { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: home, TMPDIR: tmp, SCANRELAY_CONFIG_DIR: dir, PLEX_TOKEN_FILE: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const audit = lineAuditor();
    const keep = (d: Buffer) => {
      output += d.toString();
      audit(d.toString());
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await until(() => output.includes('scanrelay is running') || child.exitCode !== null, { ms: 30_000, what: () => output });
      expect(output).toContain(`http://127.0.0.1:${port}/0a1b2c3d4e5f60718293a4b5c6d7e8f9`);
      const check = () => spawnSync(process.execPath, [healthcheck, join(dir, 'config.json')], { env: { PATH: process.env.PATH }, timeout: 10_000 }).status;
      await until(() => check() === 0, { ms: 30_000, every: 250, what: () => `the health check passing; output:\n${output}` });
      expect(plex.requests.some((r) => r.token === plex.token)).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await plex.stop();
    }
    expect(output).not.toMatch(/EROFS|read-only file system|EACCES/i);
    expect(output).toContain('Stopped cleanly.');
    // What it wrote is in /config, the user's; nothing anywhere else it could see.
    expect(readdirSync(dir).sort()).toEqual(expect.arrayContaining(['config.json', 'queue.db', 'scanrelay.log']));
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).uid, f).toBe(1000);
    expect(readdirSync(home)).toEqual([]);
    expect(readdirSync(app)).toEqual(['dist']);
  }, 120_000);
});
