// The procedure on a real terminal: the CLI runs in a tmux pane, keys are typed with send-keys and the
// screen is read with capture-pane, each prompt awaited against a deadline.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTerminal, type Terminal } from '../support/terminal.js';
import { until } from '../support/until.js';
import { DIST } from '../support/dist.js';

const TOKEN = '{"access_token":"ya29.TTY","token_type":"Bearer","refresh_token":"1//TTY","expiry":"2026-11-21T04:42:34Z"}';

let dir: string;
let terminal: Terminal | undefined;
const session = 'wizard';

const tmux = (args: string[]): string => terminal!.tmux(args);
const screen = (): string => terminal!.screen();

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
});

afterAll(() => {
  terminal?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('on a terminal (tmux)', () => {
  it('runs the steps of docs/rclone.md, then sets a password without echoing it', async () => {
    const file = join(dir, 'tty.conf');
    terminal = openTerminal({
      socket: `scanrelay-test-${process.pid}`,
      session,
      dir,
      env: { HOME: dir, SCANRELAY_RCLONE: '' },
      argv: [process.execPath, DIST, 'rclone', 'config', '--config', file],
    });

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
