// The bundle's stand-ins for built-ins that third-party packages require at start (scripts/bundle.mjs): a program
// bundled with the relay's options and run as a child says which built-ins it had loaded before and after each
// use, and that each use still behaves as the real module's. Our own code gets no stand-in: its imports stay as
// written, so the bundle runs what the tests run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOptions } from '../../scripts/bundle.mjs';
import { repoRoot } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-on-first-use-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Bundles and runs `source`: as a package's CommonJS file (in a node_modules folder, where the stand-ins apply)
 * that the program requires, or as a file of the program itself ('own').
 */
async function run(source: string, as: 'package' | 'own' = 'package'): Promise<Record<string, unknown>> {
  const name = `program-${Math.random().toString(36).slice(2)}`;
  const outfile = join(dir, `${name}.mjs`);
  if (as === 'package') {
    mkdirSync(join(dir, 'node_modules', name), { recursive: true });
    writeFileSync(join(dir, 'node_modules', name, 'index.js'), source);
    writeFileSync(join(dir, `${name}.ts`), `import './node_modules/${name}/index.js';`);
  } else writeFileSync(join(dir, `${name}.ts`), source);
  await build({
    ...bundleOptions,
    entryPoints: [join(dir, `${name}.ts`)],
    outfile,
    sourcemap: false,
    legalComments: 'none',
  });
  return JSON.parse(execFileSync(process.execPath, [outfile], { encoding: 'utf8' })) as Record<string, unknown>;
}

const LOADED = `const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);`;

describe('modules loaded at their first use', () => {
  it('crypto as a package requires it: loaded at the first call, and the call is the real one', async () => {
    const out = await run(`${LOADED}
      const crypto = require('node:crypto');
      const before = loaded('crypto');
      const digest = crypto.createHash('sha256').update('scanrelay').digest('hex');
      console.log(JSON.stringify({ before, after: loaded('crypto'), digest, equal: crypto.timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')) }));`);
    expect(out).toEqual({ before: false, after: true, digest: createHash('sha256').update('scanrelay').digest('hex'), equal: true });
  }, 30_000);

  it("zlib as a package requires it: loaded at the first read, and keys the build did not list (non-enumerable) read through", async () => {
    const out = await run(`${LOADED}
      const zlib = require('node:zlib');
      const before = loaded('zlib');
      const flush = zlib.Z_SYNC_FLUSH;
      const roundTrip = zlib.inflateSync(zlib.deflateSync(Buffer.from('scanrelay'))).toString();
      console.log(JSON.stringify({ before, flush, roundTrip, after: loaded('zlib') }));`);
    expect(out).toEqual({ before: false, flush: 2, roundTrip: 'scanrelay', after: true });
  }, 30_000);

  it('assert as a package requires it: a true condition loads nothing, a false one throws the real AssertionError', async () => {
    const out = await run(`${LOADED}
      const assert = require('node:assert');
      assert(true, 'never');
      assert(1);
      const afterTrue = loaded('assert');
      let thrown;
      try { assert(false, 'the route must be a function'); } catch (err) { thrown = { name: err.name, code: err.code, message: err.message }; }
      let bare;
      try { assert(); } catch (err) { bare = err.code; }
      console.log(JSON.stringify({ afterTrue, thrown, bare, afterFalse: loaded('assert') }));`);
    expect(out).toEqual({ afterTrue: false, thrown: { name: 'AssertionError', code: 'ERR_ASSERTION', message: 'the route must be a function' }, bare: 'ERR_ASSERTION', afterFalse: true });
  }, 30_000);

  it('our own code is left as written: its import of node:crypto loads it at start, as it does from the sources', async () => {
    const out = await run(`${LOADED}
      import { createHash } from 'node:crypto';
      console.log(JSON.stringify({ atStart: loaded('crypto'), digest: createHash('sha256').update('scanrelay').digest('hex') }));`, 'own');
    expect(out).toEqual({ atStart: true, digest: createHash('sha256').update('scanrelay').digest('hex') });
  }, 30_000);
});
