// A server that stops on an error nothing handled says why in its own log file (src/log/fatal.ts): the real
// `scanrelay server` as a child process, made to throw (or to leave a rejected promise) once it runs, then read.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FATAL_EXIT } from '../../src/log/fatal.js';
import { killChildren, startServer } from '../support/child.js';
import { writeConfigFile } from '../support/config-file.js';

const PASS = 'fa7a1e55fa7a1e55fa7a1e55fa7a1e55';

afterEach(() => killChildren());

/** Loaded before the server (--import): on SIGUSR2 it throws, or rejects a promise nothing awaits; the message holds the secret. */
const FAULT = `
process.on('SIGUSR2', () => {
  if (process.env.FAULT === 'reject') void Promise.reject(new Error('the queue went away under ${PASS}'));
  else throw new Error('a bug nothing caught, near ${PASS}');
});
`;

async function crash(kind: 'throw' | 'reject'): Promise<{ code: number | null; log: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'scanrelay-fatal-'));
  const fault = join(dir, 'fault.mjs');
  writeFileSync(fault, FAULT);
  const config = writeConfigFile(dir, { SERVER_PASS: PASS, SERVER_IP: '127.0.0.1' });
  const { child } = await startServer({ config, queuefile: join(dir, 'queue.db'), dir, nodeArgs: ['--import', fault], env: { FAULT: kind } });
  child.proc.kill('SIGUSR2');
  const code = await child.exited;
  return { code, log: readFileSync(join(dir, 'log.txt'), 'utf8').trim().split('\n') };
}

describe('the last line of a server that stops on an error', () => {
  it.each([
    { kind: 'throw' as const, what: 'an error nothing handled', message: 'a bug nothing caught, near ***' },
    { kind: 'reject' as const, what: 'a promise rejected with nothing to handle it', message: 'the queue went away under ***' },
  ])('$what: written to the log file, scrubbed, before the exit', async ({ kind, what, message }) => {
    const { code, log } = await crash(kind);
    expect(code).toBe(FATAL_EXIT);
    const last = JSON.parse(log.at(-1)!) as { level: string; msg: string; err: { message: string; stack: string } };
    expect(last.level).toBe('fatal');
    expect(last.msg).toBe(`Stopping: ${what}: ${message}`);
    expect(last.err.stack).toContain('fault.mjs');
    expect(log.join('\n')).not.toContain(PASS);
  });
});
