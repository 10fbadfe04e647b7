// One statement of the Node versions: README's "Node versions" says which are supported and which are tested,
// and package.json's engines, .ci/run, @types/node, the bundle's esbuild target and the image agree with it.
// The supported floor is a tested major. npm ci on a supported Node prints no engine warning and compiles nothing
// (no dependency of the lockfile has an install script); on Node 20, README names what warns and what compiles.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleOptions } from '../../scripts/bundle.mjs';
import { repoRoot } from '../support/fixtures.js';
import { lowestMajor, withinEngines } from '../support/npm-ranges.js';

const read = (file: string) => readFileSync(join(repoRoot, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node?: string }; hasInstallScript?: boolean; optional?: boolean; dev?: boolean }> };
// The paragraph, on one line.
const statement = (() => {
  const readme = read('README.md');
  const at = readme.indexOf('**Node versions.**');
  return readme.slice(at, readme.indexOf('\n\n', at)).replace(/\s+/g, ' ');
})();
const [, floorMajor, floorMinor] = /Supported: Node (\d+)\.(\d+) and later/.exec(statement) ?? [];
const floor = `${floorMajor}.${floorMinor}.0`;
const tested = [...(/Tested: Node (\d+) and Node (\d+)\./.exec(statement) ?? []).slice(1)].map(Number);
const oldestTested = Math.min(...tested);

/** The packages npm ci put in node_modules (the lockfile's entries for this platform), with their engines. */
const installed = Object.entries(lock.packages)
  .filter(([path, p]) => path.startsWith('node_modules/') && p.engines?.node && existsSync(join(repoRoot, path, 'package.json')))
  .map(([path, p]) => ({ name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), engines: p.engines!.node! }));

/** Who warns (EBADENGINE) on a Node: scanrelay itself and every installed package whose engines exclude it. */
const warnOn = (version: string) => [{ name: 'scanrelay', engines: pkg.engines.node }, ...installed].filter((p) => !withinEngines(version, p.engines)).map((p) => p.name);

describe("README's Node versions", () => {
  it('are stated once: supported from a version on, tested on two majors', () => {
    expect(floorMajor, statement).toBeDefined();
    expect(tested).toHaveLength(2);
    expect(installed.length).toBeGreaterThan(50);
  });

  it("package.json's engines start where README's support does", () => {
    expect(pkg.engines.node).toBe(`>=${floor}`);
  });

  it('.ci/run runs the suite on exactly the tested majors', () => {
    const ci = read('.ci/run');
    const majors = /^tested_majors="([\d ]+)"$/m.exec(ci)?.[1].split(' ').map(Number);
    expect(majors).toEqual(tested);
    expect(ci).toMatch(/scripts\/test-on-node\.sh --fetch "\$major"/);
    expect(ci).toMatch(/scripts\/test-on-node\.sh --with /);
  });

  it('the supported floor is the oldest tested major', () => {
    expect(Number(floorMajor)).toBe(oldestTested);
  });

  it('npm ci compiles nothing: the only install scripts in the lockfile are prebuilt binaries\' (esbuild) or none', () => {
    const scripted = Object.entries(lock.packages).filter(([path, p]) => path !== '' && p.hasInstallScript).map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 13));
    expect(scripted.filter((name) => name !== 'esbuild')).toEqual([]);
    expect(Object.keys(lock.packages)).not.toContain('node_modules/better-sqlite3-node20');
    // Node 20's SQLite module is the one compile, done by the checkout's prepare step on such a Node only, as README says.
    expect(statement).toContain('`npm run sqlite-node20`');
  });

  it('the code is held to the oldest tested Node: @types/node and the bundle target are its major, as README says', () => {
    expect(lowestMajor(pkg.devDependencies['@types/node'])).toBe(oldestTested);
    expect(bundleOptions.target).toBe(`node${oldestTested}`);
    expect(statement).toContain(`\`@types/node\` ${oldestTested}`);
    expect(statement).toContain(`bundled for \`node${oldestTested}\``);
  });

  it('the image runs a tested, supported major', () => {
    const majors = [...read('Dockerfile').matchAll(/^FROM (?:--platform=\S+ )?node:(\d+)-/gm)].map((m) => Number(m[1]));
    expect(majors.length).toBeGreaterThan(0);
    for (const major of majors) {
      expect(tested).toContain(major);
      expect(major).toBeGreaterThanOrEqual(Number(floorMajor));
      expect(statement).toContain(`the image runs Node ${major}`);
    }
  });

  it('npm ci warns about no engine from the first supported version on, nor on a tested supported major', () => {
    expect(warnOn(floor)).toEqual([]);
    for (const major of tested.filter((m) => m > Number(floorMajor))) expect(warnOn(`${major}.0.0`), `Node ${major}`).toEqual([]);
  });

  it('Node 20, below the supported ones, is called not supported, with what warns there named', () => {
    expect(statement).toContain('Node 20 is past its end of life and not supported');
    const warns = warnOn('20.99.0');
    expect(warns).toContain('scanrelay');
    for (const name of warns) expect(statement, `${name} warns on Node 20`).toContain(name);
  });
});
