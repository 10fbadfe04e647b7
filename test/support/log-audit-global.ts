// Vitest global setup: gives the workers a folder to copy their log lines to, and after the whole suite
// fails the run if any line holds a secret: one check over the logs of the whole suite, not of each file alone.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUDIT_ENV, AUDITED_SECRETS, leakedSecrets } from './log-audit.js';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-log-audit-'));
  process.env[AUDIT_ENV] = dir;
  return () => {
    let lines = 0;
    const leaks: string[] = [];
    for (const name of readdirSync(dir)) {
      for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
        if (!line) continue;
        lines++;
        for (const secret of leakedSecrets(line)) leaks.push(`'${secret}' in: ${line.slice(0, 300)}`);
      }
    }
    rmSync(dir, { recursive: true, force: true });
    // Vitest reports an error thrown here but would still exit 0: the exit code is set as well.
    if (leaks.length) process.exitCode = 1;
    if (leaks.length) throw new Error(`secrets found in ${leaks.length} log line(s) of the suite:\n${leaks.slice(0, 20).join('\n')}`);
    process.stdout.write(`log audit: ${lines} log lines of the whole suite hold none of ${AUDITED_SECRETS.length} secrets\n`);
  };
}
