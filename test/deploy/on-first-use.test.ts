// The bundle's stand-ins for modules loaded at their first use (scripts/bundle.mjs): a program bundled with the
// relay's options and run as a child says which built-ins it had loaded before and after each use, and that each
// use still behaves as the real module's.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOptions } from '../../scripts/bundle.mjs';
import { repoRoot } from '../support/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-on-first-use-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles `source` (a file outside node_modules, so the stand-ins for our own code's imports apply) and runs it. */
async function run(source: string): Promise<Record<string, unknown>> {
  const name = `program-${Math.random().toString(36).slice(2)}`;
  const outfile = join(dir, `${name}.mjs`);
  writeFileSync(join(dir, `${name}.ts`), source);
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
  it('crypto: a named import loads it at the first call, and the call is the real one', async () => {
    const out = await run(`${LOADED}
      import { createHash, timingSafeEqual } from 'node:crypto';
      const before = loaded('crypto');
      const digest = createHash('sha256').update('scanrelay').digest('hex');
      console.log(JSON.stringify({ before, after: loaded('crypto'), digest, equal: timingSafeEqual(Buffer.from('ab'), Buffer.from('ab')) }));`);
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

  it('assert: a true condition loads nothing, a false one throws the real AssertionError with its message', async () => {
    const out = await run(`${LOADED}
      import assert from 'node:assert';
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

  it('node:util, node:fs and node:net as our own code imports them (by name or whole): nothing loads their lazy exports, and calls work', async () => {
    // Lazy exports of node:util and node:fs on Node 24 (an ES import reads them all); Node 20 loads fs's Dir at start.
    const LAZY = `const lazy = () => ['internal/util/diff', 'internal/util/parse_args/parse_args', 'internal/fs/dir'].filter(loaded);`;
    const empty = await run(`${LOADED} ${LAZY} console.log(JSON.stringify({ atStart: lazy() }));`);
    const out = await run(`${LOADED} ${LAZY}
      import { promisify } from 'node:util';
      import { stat, existsSync } from 'node:fs';
      import * as net from 'node:net';
      const atStart = lazy();
      const s = await promisify(stat)(${JSON.stringify(repoRoot)});
      console.log(JSON.stringify({ atStart, folder: s.isDirectory(), exists: existsSync(${JSON.stringify(join(repoRoot, 'package.json'))}), ip: net.isIP('10.0.0.1'), afterCalls: lazy() }));`);
    expect(out).toEqual({ atStart: empty.atStart, folder: true, exists: true, ip: 4, afterCalls: empty.atStart });
  }, 30_000);
});
