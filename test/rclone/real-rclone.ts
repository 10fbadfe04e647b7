// The installed rclone, run with an isolated HOME for crypt tests: obscure/reveal and cryptdecode both ways.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function rclone(home: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  return execFileSync('rclone', args, { env: { PATH: process.env.PATH, HOME: home, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Writes an rclone.conf (section name -> key/values) into `dir` and returns its path. */
export function writeRcloneConf(dir: string, sections: Record<string, Record<string, string>>): string {
  const file = join(dir, 'rclone.conf');
  const text = Object.entries(sections)
    .map(([name, keys]) => `[${name}]\n${Object.entries(keys).map(([k, v]) => `${k} = ${v}\n`).join('')}`)
    .join('\n');
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

/** `rclone cryptdecode [--reverse] remote: names…` as plain -> encrypted (or the reverse) pairs, in order. */
export function cryptdecode(home: string, conf: string, remote: string, names: string[], reverse: boolean): string[] {
  const out = rclone(home, ['--config', conf, 'cryptdecode', ...(reverse ? ['--reverse'] : []), remote, ...names]);
  return out
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split(' \t ')[1]);
}
