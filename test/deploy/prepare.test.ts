// npm's `prepare` (scripts/prepare.mjs) builds dist/ after `npm install` or `npm ci` in the checkout, and not when
// `npx scanrelay` runs it: npm links the checkout into npx's cache and runs `prepare` there, and a build then would
// replace dist/ under a relay running from it. The real npm, offline, on a stand-in checkout: this package.json
// without dependencies, its build leaving a mark instead of building, and a bin that says it ran.
import { execFile } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';
import { withinEngines } from '../support/npm-ranges.js';

const run = promisify(execFile);
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: { scanrelay: string }; scripts: Record<string, string>; engines: { node: string } };
const checkout = mkdtempSync(join(tmpdir(), 'scanrelay-prepare-'));
// npm's cache of its own: npx installs there, and nothing is asked of the registry (--offline).
const env = { ...process.env, npm_config_cache: join(checkout, '.npm'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
const npm = (args: string[]) => run('npm', args, { cwd: checkout, env, timeout: 60_000 });

beforeAll(() => {
  const { dependencies: _d, devDependencies: _dd, optionalDependencies: _o, ...standIn } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Record<string, unknown>;
  standIn.scripts = { ...pkg.scripts, build: `node -e "require('fs').writeFileSync('built', '')"` };
  writeFileSync(join(checkout, 'package.json'), JSON.stringify(standIn, null, 2));
  cpSync(join(repoRoot, 'scripts', 'prepare.mjs'), join(checkout, 'scripts', 'prepare.mjs'));
  // The stand-in has no SQLite module to compile (scripts/sqlite-node20.mjs is tested on its own).
  writeFileSync(join(checkout, 'scripts', 'sqlite-node20.mjs'), 'export const installNode20Sqlite = () => 0;\n');
  const bin = join(checkout, pkg.bin.scanrelay);
  mkdirSync(dirname(bin), { recursive: true });
  writeFileSync(bin, "#!/usr/bin/env node\nconsole.log('scanrelay ran', process.argv.slice(2).join(' '));\n");
  chmodSync(bin, 0o755);
});

describe("npm's prepare in the checkout", () => {
  it('npx scanrelay runs the built program and builds nothing', async () => {
    const { stdout, stderr } = await npm(['exec', '--offline', '--', 'scanrelay', 'sections']);
    expect(stdout).toContain('scanrelay ran sections');
    expect(existsSync(join(checkout, 'built'))).toBe(false);
    // The Node versions README supports (package.json's engines) get no engine warning.
    if (withinEngines(process.version, pkg.engines.node)) expect(stderr).not.toContain('EBADENGINE');
    else expect(stderr).toContain('EBADENGINE');
  }, 90_000);

  it('npm install builds dist/', async () => {
    await npm(['install', '--offline']);
    expect(existsSync(join(checkout, 'built'))).toBe(true);
  }, 90_000);
});
