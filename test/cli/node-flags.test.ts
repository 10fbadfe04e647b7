// The Node flags the launchers pass (src/cli/node-flags.ts): a heap limit where V8 grows the heap slowly and Node's
// --expose-gc for the quiet-time collection, no V8 compiler flag; nothing sets a V8 flag at run time; a server started without the heap flags says
// so once at start, naming them.
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
    execFileSync(process.execPath, [...flags, '-p', "JSON.stringify({ heapLimitBytes: require('node:v8').getHeapStatistics().heap_size_limit })"], {
      encoding: 'utf8',
    }),
  ) as { heapLimitBytes: number };

/** Every file under `dir` of the checkout, as paths from its root. */
const filesUnder = (dir: string): string[] => readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name).slice(repoRoot.length + 1));

describe('NODE_FLAGS', () => {
  it('hold no V8 compiler flag, and nothing in src/ sets a V8 flag at run time', () => {
    // V8 flags changed after start are unsupported in Node, and a launcher flag a later V8 renames stops node from starting.
    const files = ['package.json', 'Dockerfile', ...filesUnder('src'), ...filesUnder('docker'), ...filesUnder('deploy')];
    expect(files.length).toBeGreaterThan(100);
    for (const file of files) {
      const text = readFileSync(join(repoRoot, file), 'utf8');
      expect(text, file).not.toMatch(/turbofan|maglev|concurrent-recompilation|--jitless|setFlagsFromString/i);
    }
    expect(NODE_FLAGS).toEqual([...HEAP_FLAGS, '--expose-gc']);
  });

  it('are accepted by this Node, set a heap limit of about 512 MB, expose gc and need no advice', () => {
    const run = nodeWith(NODE_FLAGS);
    expect(execFileSync(process.execPath, [...NODE_FLAGS, '-p', 'typeof gc'], { encoding: 'utf8' }).trim()).toBe('function');
    expect(run.heapLimitBytes / MB).toBeGreaterThanOrEqual(512);
    expect(run.heapLimitBytes / MB).toBeLessThan(600);
    expect(flagAdvice(run)).toBeUndefined();
  });

  it("Node's defaults on a machine with a few GB get one line naming the flags", () => {
    const advice = flagAdvice({ heapLimitBytes: 4144 * MB })!;
    expect(advice).toContain('Node runs with a heap limit of 4144 MB, so under load this server holds 40-100 MB more');
    expect(advice).toContain(`node ${NODE_FLAGS.join(' ')} dist/scanrelay.mjs server`);
    expect(advice).toContain(`node ${NODE_FLAGS.join(' ')} "$(command -v scanrelay)" server`);
    expect(advice).toContain('or put them in NODE_OPTIONS (Node takes all three there)');
    expect(advice).toContain('`scanrelay server` given no Node flag and no NODE_OPTIONS starts itself with them on Node 22.15 and later');
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

