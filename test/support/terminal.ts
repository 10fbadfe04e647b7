// A real terminal for tests: one command in a tmux pane on a tmux server of the test's own, its screen read back.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures.js';

export interface Terminal {
  /** Runs a tmux command against this terminal's server (e.g. send-keys, list-panes). */
  tmux(args: string[]): string;
  /** The whole scrollback, wrapped lines joined. */
  screen(): string;
  /** Ends the tmux server and removes its socket. */
  close(): void;
}

/**
 * Starts `argv` in a 250×50 pane (working directory: the repository) that stays after the program ends, so its
 * exit status can be read. `dir` receives the tmux.conf; `env` is set in the pane.
 */
export function openTerminal(opts: { socket: string; session: string; dir: string; argv: string[]; env?: Record<string, string> }): Terminal {
  const tmux = (args: string[]) => execFileSync('tmux', ['-L', opts.socket, ...args], { encoding: 'utf8' });
  const conf = join(opts.dir, 'tmux.conf');
  writeFileSync(conf, 'set -g remain-on-exit on\nset -g history-limit 5000\n');
  const env = Object.entries(opts.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux(['-f', conf, 'new-session', '-d', '-s', opts.session, '-c', repoRoot, '-x', '250', '-y', '50', ...env, ...opts.argv]);
  return {
    tmux,
    screen: () => tmux(['capture-pane', '-p', '-J', '-t', opts.session, '-S', '-', '-E', '-']),
    close() {
      let socketPath = '';
      try {
        socketPath = tmux(['display-message', '-p', '#{socket_path}']).trim();
        tmux(['kill-server']);
      } catch {
        // already gone
      }
      // kill-server leaves the socket file behind.
      if (socketPath) rmSync(socketPath, { force: true });
    },
  };
}
