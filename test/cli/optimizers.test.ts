// V8's optimizing compilers are held from the entry until the server is first busy (src/cli/optimizers.ts):
// nothing of the start-up is optimized, the flags set at run time take effect at once, and the busy watch
// releases them at the first spell busy enough and never before.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { BusyWatch, HOLD_FLAGS, maglevByDefault } from '../../src/cli/optimizers.js';
import { NODE_FLAGS } from '../../src/cli/node-flags.js';
import { repoRoot } from '../support/fixtures.js';

// V8's --trace-opt line for an optimization of `hot` (Node 20 and 24 both say "completed compiling").
const HOT_OPTIMIZED = /\[completed (compiling|optimizing) [^\n]*<JSFunction hot /;

describe('holding and releasing the optimizing compilers in a running Node', () => {
  it.each([
    { how: 'held from the entry alone (Node started without the launchers\' flags)', flags: [] as readonly string[] },
    { how: 'held by the launchers\' flags and the entry', flags: NODE_FLAGS },
  ])('$how: a hot function is not optimized; released, the same function is', ({ flags }) => {
    const dir = mkdtempSync(join(tmpdir(), 'scanrelay-optimizers-'));
    const script = join(dir, 'hot.mts');
    writeFileSync(
      script,
      [
        `import { holdOptimizers, releaseOptimizers } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'src/cli/optimizers.ts')).href)};`,
        'holdOptimizers();',
        'function hot(n: number) { let s = 0; for (let i = 0; i < n; i++) s += (i * 7) % 13; return s; }',
        "console.log('--- held');",
        'for (let i = 0; i < 20000; i++) hot(200);',
        'releaseOptimizers();',
        "console.log('--- released');",
        'for (let i = 0; i < 20000; i++) hot(200);',
        "console.log('--- end');",
      ].join('\n'),
    );
    const out = execFileSync(process.execPath, ['--trace-opt', ...flags, '--import', 'tsx', script], { cwd: repoRoot, encoding: 'utf8' });
    const held = out.slice(out.indexOf('--- held'), out.indexOf('--- released'));
    const released = out.slice(out.indexOf('--- released'), out.indexOf('--- end'));
    // (Without the launchers' flags, an optimization Node began before the hold may still finish meanwhile.)
    expect(held).not.toMatch(HOT_OPTIMIZED);
    expect(released).toMatch(HOT_OPTIMIZED);
  });

  it('the launchers pass the flags that hold them; Maglev comes back only where Node has it on by default', () => {
    expect(NODE_FLAGS).toEqual(expect.arrayContaining([...HOLD_FLAGS]));
    expect(maglevByDefault('11.3.244.8-node.38', 0)).toBe(false); // Node 20: built without it on
    expect(maglevByDefault('13.6.233.17-node.53', 1)).toBe(true); // Node 24
    expect(maglevByDefault('13.6.233.17-node.53', 0)).toBe(false); // a build without Maglev
  });
});

describe('the busy watch', () => {
  it.each([
    { shares: [0, 0.01, 0.049, 0.05], releasedAt: undefined },
    { shares: [0.01, 0.2, 0.9], releasedAt: 2 },
    { shares: [0.06], releasedAt: 1 },
  ])('spells busy $shares of the time: released at spell $releasedAt', ({ shares, releasedAt }) => {
    const release = vi.fn();
    const left = [...shares];
    const watch = new BusyWatch({ busyShare: 0.05, utilization: () => left.shift()!, release });
    let at: number | undefined;
    for (let spell = 1; spell <= shares.length; spell++) if (watch.tick() && at === undefined) at = spell;
    expect(at).toBe(releasedAt);
    expect(release).toHaveBeenCalledTimes(releasedAt ? 1 : 0);
  });

  it('releases once, and looks no more after it', () => {
    const release = vi.fn();
    const utilization = vi.fn(() => 0.5);
    const watch = new BusyWatch({ busyShare: 0.05, utilization, release });
    expect(watch.tick()).toBe(true);
    expect(watch.tick()).toBe(true);
    expect(release).toHaveBeenCalledTimes(1);
    expect(utilization).toHaveBeenCalledTimes(1);
  });
});
