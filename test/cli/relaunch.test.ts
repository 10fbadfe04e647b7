// `scanrelay server` started without part of the launch setting starts itself again with all of it, in place
// (src/cli/relaunch.ts): which launches are relaunched, with what, and which are left as started. The child process
// that is relaunched for real is in test/deploy/dist-e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { MALLOC_ENV, NODE_FLAGS } from '../../src/cli/node-flags.js';
import { RELAUNCHED_ENV, relaunch, relaunchedWith, relaunchFor, type Launch } from '../../src/cli/relaunch.js';

const PROGRAM = ['/usr/lib/node_modules/scanrelay/dist/scanrelay.mjs', '--config', 'c.json', 'server'];
const calls: { file: string; args: string[]; env: NodeJS.ProcessEnv }[] = [];
const launch = (over: Partial<Launch> = {}): Launch => ({
  argv: ['/usr/bin/node', ...PROGRAM],
  execArgv: [],
  execPath: '/usr/bin/node',
  env: { PATH: '/usr/bin' },
  platform: 'linux',
  hasChannel: false,
  execve: (file, args, env) => void calls.push({ file, args, env }),
  ...over,
});
const FLAGS = `Node's flags ${NODE_FLAGS.join(' ')}`;
const MALLOC = 'MALLOC_TRIM_THRESHOLD_=131072';

describe('relaunchFor', () => {
  it.each<[string, Partial<Launch>, string[] | undefined, string | undefined]>([
    ['no Node flag (npx, the installed command): the flags and the malloc setting', {}, [...NODE_FLAGS], `${FLAGS} and ${MALLOC}`],
    ['no Node flag on macOS: the same (the variable is ignored there)', { platform: 'darwin' }, [...NODE_FLAGS], `${FLAGS} and ${MALLOC}`],
    ['no Node flag, malloc set by the user: the flags only', { env: { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '65536' } }, [...NODE_FLAGS], FLAGS],
    ['an empty NODE_OPTIONS counts as none', { env: { NODE_OPTIONS: ' ' } }, [...NODE_FLAGS], `${FLAGS} and ${MALLOC}`],
    ['NODE_FLAGS on Linux without the variable (npm start): the variable', { execArgv: [...NODE_FLAGS] }, [...NODE_FLAGS], MALLOC],
    ['NODE_FLAGS and the variable (the image, the unit): as started', { execArgv: [...NODE_FLAGS], env: { ...MALLOC_ENV } }, undefined, undefined],
    ['NODE_FLAGS and GLIBC_TUNABLES: as started (the user tuned malloc)', { execArgv: [...NODE_FLAGS], env: { GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' } }, undefined, undefined],
    ['NODE_FLAGS on macOS: as started (the variable is for glibc)', { execArgv: [...NODE_FLAGS], platform: 'darwin' }, undefined, undefined],
    ['Node flags of the user (--inspect): as started', { execArgv: ['--inspect'] }, undefined, undefined],
    ['NODE_FLAGS and one more: as started', { execArgv: [...NODE_FLAGS, '--inspect'] }, undefined, undefined],
    ["NODE_OPTIONS: as started (a flag of ours would override the user's)", { env: { NODE_OPTIONS: '--max-old-space-size=2048' } }, undefined, undefined],
    ['the relaunched program itself: as started', { env: { [RELAUNCHED_ENV]: FLAGS } }, undefined, undefined],
    ['an IPC channel from a parent (execve would not keep it): as started', { hasChannel: true }, undefined, undefined],
    ['a Node without process.execve (before 22.15, Windows): as started', { execve: undefined }, undefined, undefined],
  ])('%s', (_what, over, flags, added) => {
    const plan = relaunchFor(launch(over));
    if (flags === undefined) return expect(plan).toBeUndefined();
    expect(plan!.args).toEqual(['/usr/bin/node', ...flags, ...PROGRAM]);
    expect(plan!.added).toBe(added);
    expect(plan!.env[RELAUNCHED_ENV]).toBe(added);
    // The user's environment goes along, with the malloc setting when it is added.
    expect(plan!.env).toEqual({ ...launch(over).env, ...(added!.includes(MALLOC) ? MALLOC_ENV : {}), [RELAUNCHED_ENV]: added });
  });
});

describe('relaunch', () => {
  it('execs Node with the plan; an execve that throws leaves the program running as started', () => {
    calls.length = 0;
    expect(relaunch(launch())).toBe(true);
    expect(calls).toEqual([{ file: '/usr/bin/node', args: ['/usr/bin/node', ...NODE_FLAGS, ...PROGRAM], env: { PATH: '/usr/bin', ...MALLOC_ENV, [RELAUNCHED_ENV]: `${FLAGS} and ${MALLOC}` } }]);
    const failing = launch({ execve: () => { throw Object.assign(new Error('execve failed: EACCES'), { code: 'EACCES' }); } });
    expect(relaunch(failing)).toBe(false);
    expect(relaunch(launch({ execArgv: ['--inspect'] }))).toBe(false);
    expect(calls).toHaveLength(1);
  });

  it('the relaunched program learns what was added once, and nothing it starts inherits the mark', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', [RELAUNCHED_ENV]: MALLOC };
    expect(relaunchedWith(env)).toBe(MALLOC);
    expect(env).toEqual({ PATH: '/usr/bin' });
    expect(relaunchedWith(env)).toBeUndefined();
  });
});
