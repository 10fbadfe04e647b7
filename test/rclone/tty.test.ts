// The procedure on a real terminal: the CLI runs in a tmux pane, keys are typed with send-keys and the
// screen is read with capture-pane, each prompt awaited against a deadline.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/fixtures.js';
import { CLI_ENTRY } from './cli-session.js';
import { until } from '../support/until.js';

const TOKEN = '{"access_token":"ya29.TTY","token_type":"Bearer","refresh_token":"1//TTY","expiry":"2026-11-21T04:42:34Z"}';

let dir: string;
let socket: string;
const session = 'wizard';

function tmux(args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
}

function screen(): string {
  return tmux(['capture-pane', '-p', '-J', '-t', session, '-S', '-', '-E', '-']);
}

/** How many screen lines start with the prompt (the whole scrollback, wrapped lines joined). */
function promptCount(prompt: string): number {
  return screen().split('\n').filter((l) => l.startsWith(prompt.trimEnd())).length;
}

/** Waits up to 15 s for the screen to show `what`; the error shows the screen. */
const onScreen = (condition: () => boolean, what: string) =>
  until(condition, { ms: 15_000, every: 25, what: () => `waiting for ${what}\n--- screen ---\n${screen()}` });

/** Prompts already answered, by prompt text: the next answer waits for one more of them. */
const answered = new Map<string, number>();

async function answer(prompt: string, text: string): Promise<void> {
  const seen = answered.get(prompt) ?? 0;
  await onScreen(() => promptCount(prompt) > seen, `prompt ${JSON.stringify(prompt)} #${seen + 1}`);
  answered.set(prompt, seen + 1);
  if (text !== '') tmux(['send-keys', '-t', session, '-l', text]);
  tmux(['send-keys', '-t', session, 'Enter']);
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'scanrelay-tty-'));
  socket = `scanrelay-test-${process.pid}`;
});

afterAll(() => {
  let socketPath = '';
  try {
    socketPath = tmux(['display-message', '-p', '#{socket_path}']).trim();
    tmux(['kill-server']);
  } catch {
    // already gone
  }
  // kill-server leaves the socket file behind.
  if (socketPath) rmSync(socketPath, { force: true });
  rmSync(dir, { recursive: true, force: true });
});

describe('on a terminal (tmux)', () => {
  it('runs steps 1-19, then sets a password without echoing it', async () => {
    const file = join(dir, 'tty.conf');
    const conf = join(dir, 'tmux.conf');
    // The pane stays after the program ends so its exit status can be read.
    writeFileSync(conf, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
    tmux(['-f', conf, 'new-session', '-d', '-s', session, '-c', repoRoot, '-x', '250', '-y', '50', '-e', `HOME=${dir}`, '-e', 'SCANRELAY_RCLONE=', process.execPath, '--import', 'tsx', CLI_ENTRY, 'rclone', 'config', '--config', file]);

    await answer('n/s/q> ', 'n');
    await answer('name> ', 'gdrive');
    await answer('Storage> ', 'drive');
    await answer('client_id> ', 'tty-client');
    await answer('client_secret> ', 'tty-secret');
    await answer('scope> ', '1');
    await answer('root_folder_id> ', '');
    await answer('service_account_file> ', '');
    await answer('y/n> ', 'n');
    await answer('y/n> ', 'n');
    await onScreen(() => /scanrelay rclone authorize "drive" "[A-Za-z0-9+/]+"/.test(screen()), 'the authorize command');
    await answer('config_token> ', TOKEN);
    await answer('y/n> ', 'n');
    await answer('y/e/d> ', 'y');
    // s: set a configuration password; the terminal must not show it.
    await answer('e/n/d/r/c/s/q> ', 's');
    await answer('a/q> ', 'a');
    await answer('password:', 'tty-pass-word');
    await answer('password:', 'tty-pass-word');
    await answer('c/u/q> ', 'q');
    await answer('e/n/d/r/c/s/q> ', 'q');
    // The pane is marked dead when the program ends; tmux 3.3 sometimes never reaps the child and so
    // never learns its status (seen here: a zombie with no status), so a status, when known, must be 0.
    const pane = (): string => tmux(['list-panes', '-t', session, '-F', '#{pane_dead}:#{pane_dead_status}']).trim();
    await onScreen(() => pane().startsWith('1:'), 'the program to end');
    expect(['1:0', '1:']).toContain(pane());
    const text = screen();
    expect(text).toContain('Password set');
    expect(text).not.toContain('tty-pass-word');
    expect(readFileSync(file, 'utf8')).toMatch(/^# Encrypted rclone configuration File\n\nRCLONE_ENCRYPT_V0:\n/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const dump = JSON.parse(
      execFileSync('rclone', ['config', 'dump', '--config', file], { env: { PATH: process.env.PATH, HOME: dir, RCLONE_CONFIG_PASS: 'tty-pass-word' }, encoding: 'utf8' }),
    ) as Record<string, Record<string, string>>;
    expect(dump.gdrive).toEqual({ type: 'drive', client_id: 'tty-client', client_secret: 'tty-secret', scope: 'drive', token: TOKEN, team_drive: '' });
  });
});
