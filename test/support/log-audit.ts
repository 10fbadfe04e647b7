// Every log line the suite produces is copied here, and after the last test the whole collection is searched
// for every secret and token the tests use (test/support/log-audit-global.ts): no log line may hold one.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';

/** The secrets and tokens the tests configure or their fakes hand out. */
export const AUDITED_SECRETS = [
  '0123456789abcdef0123456789abcdef', // test/support/service.ts SECRET
  'f00dcafef00dcafef00dcafef00dcafe',
  '9c4b81fe234e4d6eb9011cefe514d915',
  '0a1b2c3d4e5f60718293a4b5c6d7e8f9',
  'c0c0a1c0c0a1c0c0a1c0c0a1c0c0a1c0', // test/triggers/recipe.test.ts
  'pass with space',
  'plex-token-1234',
  'plex-token-1',
  'plex-4k-token-9876',
  'fault-plex-token',
  'xYz-fake-plex-token-123',
  'file-token',
  'wrong-token',
  'jellyfin-token-1234',
  'jf-token-1',
  'emby-token-5678',
  'metrics-token-42',
  'metrics-token-1',
  'ya29.FAKEACCESS',
  '1//FAKEREFRESH',
  'ya29.TTY',
  '1//TTY',
  'tty-secret',
  'ya29.scanrelay-fixture-access', // test/fixtures/oauth
  '1//scanrelay-fixture-refresh',
  'ya29.scanrelay-fixture-refreshed',
  'ya29.c.scanrelay-fixture-service-account',
  'userinfo-pass-5150', // a password written into a server's URL: test/http/url-credentials.test.ts, test/fault/url-password.test.ts
];

export const AUDIT_ENV = 'VITEST_LOG_AUDIT_DIR';

/** The audited secrets that `text` holds (none, for a clean log). */
export function leakedSecrets(text: string): string[] {
  return AUDITED_SECRETS.filter((secret) => text.includes(secret));
}

/** Records log output: JSON log lines only (a command's own printed output, such as the URL banner, is not a log). */
export function auditLogs(text: string): void {
  const dir = process.env[AUDIT_ENV];
  if (!dir) return;
  const lines = text.split('\n').filter((l) => l.startsWith('{') && l.includes('"level"'));
  if (lines.length) appendFileSync(join(dir, `${process.pid}.jsonl`), lines.join('\n') + '\n');
}

/** For a stream of chunks (a child's stdout): audits whole lines only, however the chunks split them. */
export function lineAuditor(): (chunk: string) => void {
  let partial = '';
  return (chunk) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n');
    partial = end === -1 ? text : text.slice(end + 1);
    if (end !== -1) auditLogs(text.slice(0, end + 1));
  };
}

/** A console stream for a test's logger: hands each chunk to `keep` and audits it. */
export function auditedSink(keep: (text: string) => void): Writable {
  return new Writable({
    write(chunk, _enc, cb) {
      const text = String(chunk);
      keep(text);
      auditLogs(text);
      cb();
    },
  });
}
