// What ships beside the image, checked as the tools that read it would: the GitHub Actions workflow that
// publishes the multi-arch image (YAML, its triggers, actions and platforms), the Unraid Community Applications
// template (well-formed XML, read with xmllint; its port, paths, PUID/PGID and the webhook URL in its overview),
// and the ignore files that keep local data out of the repository and out of the image's build context.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../support/fixtures.js';

interface Step {
  name?: string;
  uses?: string;
  with?: Record<string, string | boolean>;
}
interface Workflow {
  on: { push?: { tags?: string[]; branches?: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { 'runs-on': string; permissions?: Record<string, string>; steps: Step[] }>;
}

describe('.github/workflows/image.yml', () => {
  const file = join(repoRoot, '.github', 'workflows', 'image.yml');
  const workflow = parse(readFileSync(file, 'utf8'), { strict: true, uniqueKeys: true }) as Workflow;
  const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
  const step = (action: string) => steps.find((s) => s.uses?.startsWith(`${action}@`));

  it('runs on a version tag only, not on branch pushes', () => {
    expect(workflow.on.push?.tags).toEqual(['v*.*.*']);
    expect(workflow.on.push?.branches).toBeUndefined();
  });

  it('builds with QEMU and Buildx, and pushes linux/amd64 and linux/arm64 from the Dockerfile', () => {
    const names = steps.map((s) => s.uses?.split('@')[0]);
    const order = ['actions/checkout', 'docker/setup-qemu-action', 'docker/setup-buildx-action', 'docker/login-action', 'docker/metadata-action', 'docker/build-push-action'];
    expect(names).toEqual(order);
    const build = step('docker/build-push-action')!;
    expect(String(build.with!.platforms).split(',').sort()).toEqual(['linux/amd64', 'linux/arm64']);
    expect(build.with!.push).toBe(true);
    expect(existsSync(join(repoRoot, String(build.with!.context), String(build.with!.file)))).toBe(true);
    expect(build.with!.tags).toBe('${{ steps.meta.outputs.tags }}');
    expect(String(step('docker/setup-qemu-action')!.with!.platforms)).toContain('arm64');
  });

  it('pins every action to a major version and may write packages only in the publishing job', () => {
    for (const s of steps.filter((x) => x.uses)) expect(s.uses, s.name).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    expect(workflow.permissions).toEqual({ contents: 'read' });
    expect(Object.values(workflow.jobs).map((j) => j.permissions)).toEqual([{ contents: 'read', packages: 'write' }]);
    expect(step('docker/login-action')!.with).toMatchObject({ registry: 'ghcr.io', password: '${{ secrets.GITHUB_TOKEN }}' });
  });
});

// xmllint (Debian's libxml2-utils, installed by .ci/run) reads the template as Unraid's template parser would.
describe('deploy/unraid/scanrelay.xml', () => {
  const file = join(repoRoot, 'deploy', 'unraid', 'scanrelay.xml');
  // xmllint ends a string result with a newline.
  const xpath = (expr: string) => execFileSync('xmllint', ['--xpath', expr, file], { encoding: 'utf8' }).replace(/\n$/, '');
  const config = (target: string, attr: string) => xpath(`string(/Container/Config[@Target="${target}"]/@${attr})`);
  const value = (target: string) => xpath(`string(/Container/Config[@Target="${target}"])`);

  it('is well-formed XML with one Container of template version 2', () => {
    const check = spawnSync('xmllint', ['--noout', file], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
    expect(xpath('string(/Container/@version)')).toBe('2');
    expect(xpath('string(/Container/Name)')).toBe('scanrelay');
    expect(xpath('string(/Container/Repository)')).toMatch(/^ghcr\.io\/[\w-]+\/scanrelay:latest$/);
  });

  it('publishes the port, mounts /config read-write and the media read-only, and runs read-only otherwise', () => {
    expect([config('3468', 'Type'), config('3468', 'Mode'), value('3468')]).toEqual(['Port', 'tcp', '3468']);
    expect([config('/config', 'Type'), config('/config', 'Mode'), value('/config')]).toEqual(['Path', 'rw', '/mnt/user/appdata/scanrelay']);
    expect([config('/media', 'Type'), config('/media', 'Mode')]).toEqual(['Path', 'ro']);
    expect(xpath('string(/Container/ExtraParams)')).toBe('--read-only --tmpfs /tmp');
    expect(xpath('string(/Container/WebUI)')).toBe('http://[IP]:[PORT:3468]/');
  });

  it("sets PUID and PGID to Unraid's nobody:users, asks for Plex's URL and a masked token", () => {
    expect([config('PUID', 'Type'), value('PUID'), config('PGID', 'Type'), value('PGID')]).toEqual(['Variable', '99', 'Variable', '100']);
    expect(config('UMASK', 'Default')).toBe('022');
    expect(config('PLEX_LOCAL_URL', 'Type')).toBe('Variable');
    expect(config('PLEX_TOKEN', 'Mask')).toBe('true');
  });

  it('gives the webhook URL in its overview, and where SERVER_PASS is', () => {
    const overview = xpath('string(/Container/Overview)');
    expect(overview).toContain('http://[your Unraid IP]:3468/SERVER_PASS');
    expect(overview).toContain('/mnt/user/appdata/scanrelay/config.json');
  });
});

describe('the ignore files', () => {
  it('.gitignore keeps what deploy/compose.yaml makes beside itself out of the repository', () => {
    const ignored = (path: string) => spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: repoRoot }).status === 0;
    for (const path of ['deploy/.env', 'deploy/secrets/plex_token', 'deploy/scanrelay/queue.db', 'deploy/scanrelay/config.json', 'deploy/plex/config/Preferences.xml']) expect(ignored(path), path).toBe(true);
    expect(ignored('deploy/compose.yaml')).toBe(false);
    expect(ignored('deploy/unraid/scanrelay.xml')).toBe(false);
  });

  it("the folder of each compose secret's file is in the repository (with a README saying what goes there), its files ignored", () => {
    const compose = parse(readFileSync(join(repoRoot, 'deploy', 'compose.yaml'), 'utf8')) as { secrets: Record<string, { file: string }> };
    const ignored = (path: string) => spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: repoRoot }).status === 0;
    const files = Object.values(compose.secrets).map((s) => join('deploy', s.file));
    expect(files).toEqual(['deploy/secrets/plex_token']);
    for (const file of files) {
      const folder = dirname(file);
      expect(existsSync(join(repoRoot, folder, 'README.md')), folder).toBe(true);
      expect(ignored(join(folder, 'README.md')), folder).toBe(false);
      expect(ignored(file), file).toBe(true);
      expect(readFileSync(join(repoRoot, folder, 'README.md'), 'utf8')).toContain(`> secrets/${basename(file)}`);
    }
  });

  it('.dockerignore leaves deploy/, every database, log and token file at any depth out of the build context', () => {
    const patterns = readFileSync(join(repoRoot, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    for (const p of ['deploy', '**/*.db', '**/*.db-wal', '**/*.db-shm', '**/*.log', '**/.env', '**/token.json']) expect(patterns, p).toContain(p);
    // What the Dockerfile copies must stay in the context.
    const copied = [...readFileSync(join(repoRoot, 'Dockerfile'), 'utf8').matchAll(/^COPY (?!--from)(?:--\S+ )*(.+) \S+$/gm)].flatMap((m) => m[1].split(' '));
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'src', 'docker/entrypoint.sh', 'docker/healthcheck.mjs']));
    for (const path of copied) expect(patterns.some((p) => path === p || path.startsWith(`${p}/`)), path).toBe(false);
  });
});
