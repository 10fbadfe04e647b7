// Handing authorization to an installed rclone: a blank client_id means rclone's own key, which only
// rclone may use, so `rclone authorize` does the browser part and we take its paste block.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export const PASTE_START = 'Paste the following into your remote machine --->';
export const PASTE_END = '<---End paste';

/**
 * The rclone to delegate to: SCANRELAY_RCLONE when set (empty = act as if none is installed; for
 * tests and unusual installs), else `rclone` on PATH.
 */
export function findRclone(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.SCANRELAY_RCLONE !== undefined) return env.SCANRELAY_RCLONE || undefined;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, process.platform === 'win32' ? 'rclone.exe' : 'rclone');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** The text between the paste markers of `authorize` output. */
export function pasteContent(stdout: string): string | undefined {
  const start = stdout.indexOf(PASTE_START);
  const end = stdout.indexOf(PASTE_END, start + 1);
  if (start < 0 || end < 0) return undefined;
  return stdout.slice(start + PASTE_START.length, end).trim();
}

/**
 * Runs `rclone authorize <args>` with an in-memory config (so the user's file is never read or
 * written), forwarding its log lines, and returns what it asks to paste.
 */
export function rcloneAuthorize(rclone: string, args: string[], options: { openBrowser: boolean; log: (text: string) => void; env?: NodeJS.ProcessEnv }): Promise<string> {
  const argv = ['authorize', ...args, '--config', '/dev/null'];
  if (!options.openBrowser) argv.push('--auth-no-open-browser');
  return new Promise((resolve, reject) => {
    const child = spawn(rclone, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => options.log(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const content = pasteContent(stdout);
      if (code === 0 && content !== undefined) resolve(content);
      else reject(new Error(`rclone authorize failed (exit ${code ?? 'signal'})`));
    });
  });
}
