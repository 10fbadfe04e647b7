// The SQLite module a Node needs (src/sqlite/binding.ts, scripts/sqlite-node20.mjs): only a Node without Node-API 10
// needs one compiled, and a missing module is one line saying what to install, never a stack.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { needsNode20Sqlite } from '../../scripts/sqlite-node20.mjs';
import { killChildren, runCli } from '../support/child.js';

const dir = mkdtempSync(join(tmpdir(), 'scanrelay-sqlite-'));
// Loaded before the program: resolving either SQLite package fails as it does where none is installed.
const hide = join(dir, 'no-sqlite.cjs');
writeFileSync(
  hide,
  `const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (/^better-sqlite3(-node20)?$/.test(request)) throw Object.assign(new Error("Cannot find module '" + request + "'"), { code: 'MODULE_NOT_FOUND' });
  return resolve.call(this, request, ...rest);
};
`,
);
afterAll(() => killChildren());

describe('the SQLite module', () => {
  it('is compiled only on a Node without Node-API 10 (Node 20)', () => {
    expect(needsNode20Sqlite(9)).toBe(true);
    expect(needsNode20Sqlite(10)).toBe(false);
    expect(needsNode20Sqlite(11)).toBe(false);
  });

  it('missing, a command says in one line what to install and exits 1', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ SERVER_PASS: 'be9c1a7e5d3f4b2a8c6e0f1d2b3a4c5d', SERVER_IP: '127.0.0.1' }));
    const child = runCli(['--config', config, '--queuefile', join(dir, 'queue.db'), 'server'], { cwd: dir, nodeArgs: ['--require', hide] });
    expect(await child.exited).toBe(1);
    const lines = child.output().trim().split('\n').filter((l) => !/^\d{4}-|^\{/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(Number(process.versions.napi) >= 10 ? /not installed: run `npm ci`/ : /`npm run sqlite-node20` \(needs g\+\+, make and python3\), or use Node 22\.14 or later/);
    expect(child.output()).not.toMatch(/\n\s+at /);
  }, 60_000);
});
