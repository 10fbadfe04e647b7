// The Node flags the launchers pass (src/cli/node-flags.ts): a heap limit where V8 grows the heap slowly and
// optimization on the main thread, nothing that holds V8's compilers; a server started without them says so once
// at start, naming them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEAP_FLAGS, NODE_FLAGS, flagAdvice } from '../../src/cli/node-flags.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';
import { repoRoot } from '../support/fixtures.js';

const MB = 1024 * 1024;
afterAll(() => killChildren());

const nodeWith = (flags: readonly string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [...flags, '-p', "JSON.stringify({ heapLimitBytes: require('node:v8').getHeapStatistics().heap_size_limit, execArgv: process.execArgv })"], {
      encoding: 'utf8',
    }),
  ) as { heapLimitBytes: number; execArgv: string[] };

/** Every file under `dir` of the checkout, as paths from its root. */
const filesUnder = (dir: string): string[] => readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(repoRoot.length + 1));

describe('NODE_FLAGS', () => {
  it("hold none of V8's optimizing compilers, and nothing the relay runs or ships names them", () => {
    // V8 flags changed after start are unsupported in Node, and a launcher flag a later V8 renames stops node from starting.
    const files = ['package.json', 'Dockerfile', ...filesUnder('src'), ...filesUnder('docker'), ...filesUnder('deploy')];
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) expect(readFileSync(join(repoRoot, file), 'utf8'), file).not.toMatch(/turbofan|maglev/i);
  });

  it('are accepted by this Node, set a heap limit of about 512 MB and need no advice', () => {
    const run = nodeWith(NODE_FLAGS);
    expect(run.heapLimitBytes / MB).toBeGreaterThanOrEqual(512);
    expect(run.heapLimitBytes / MB).toBeLessThan(600);
    expect(run.execArgv).toContain('--no-concurrent-recompilation');
    expect(flagAdvice(run)).toBeUndefined();
  });

  it("Node's defaults on a machine with a few GB get one line naming every flag", () => {
    const advice = flagAdvice({ heapLimitBytes: 4144 * MB, execArgv: [] })!;
    expect(advice).toContain('Node runs with a heap limit of 4144 MB and without --no-concurrent-recompilation');
    expect(advice).toContain('40-100 MB more');
    expect(advice).toContain(`node ${NODE_FLAGS.join(' ')} dist/scanrelay.mjs server`);
    expect(advice).toContain(`node ${NODE_FLAGS.join(' ')} "$(command -v scanrelay)" server`);
    expect(advice).toContain('NODE_OPTIONS can carry the two heap flags, not --no-concurrent-recompilation');
  });

  it('the heap flags alone (as NODE_OPTIONS can give them) still get the line for the compiler flag', () => {
    const run = nodeWith(HEAP_FLAGS);
    const advice = flagAdvice(run)!;
    expect(advice).toContain('Node runs without --no-concurrent-recompilation, so');
    expect(advice).not.toContain('heap limit');
    expect(advice).toContain('5-30 MB more');
  });

  it('a server started with a large heap limit logs the advice once, after it listens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-flags-'));
    const config = writeConfigFile(dir, { SERVER_PASS: 'a11ce0a11ce0a11ce0a11ce0a11ce0a1', SERVER_IP: '127.0.0.1' });
    const { child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, nodeArgs: ['--max-old-space-size=2048'] });
    await child.waitFor(/heap limit of \d+ MB/);
    const out = child.output();
    expect(out.indexOf('Listening on')).toBeLessThan(out.indexOf('heap limit of'));
    expect(out.match(/heap limit of/g)).toHaveLength(1);
  }, 60_000);
});
