// Child processes a test talks to: our CLI (dist/scanrelay.mjs, as users run it) and the real rclone binary, with
// output collected and awaited by pattern against a deadline instead of fixed sleeps.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { get as httpGet } from 'node:http';
import { DIST } from '../support/dist.js';

export class Session {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8').on('data', (c: string) => (this.stdout += c));
    this.child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** Our CLI: `node dist/scanrelay.mjs …`. */
  static cli(args: string[], env: NodeJS.ProcessEnv): Session {
    return new Session(process.execPath, [DIST, ...args], env);
  }

  send(text: string): void {
    this.child.stdin.write(text);
  }

  endInput(): void {
    this.child.stdin.end();
  }

  kill(): void {
    this.child.kill();
  }

  /** Waits until stdout (or stderr) matches, returning the match. */
  async waitFor(pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout', timeoutMs = 15_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    let exitedEarly = false;
    void this.exited.then(() => (exitedEarly = true));
    for (;;) {
      const match = this[stream].match(pattern);
      if (match) return match;
      if (exitedEarly || Date.now() > deadline) {
        throw new Error(`${exitedEarly ? 'exited' : 'timed out'} waiting for ${pattern} on ${stream}\n--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Where the previous awaited prompt ended on stdout; the next prompt is looked for after it. */
  private cursor = 0;

  /** Waits for the next occurrence of the prompt (after the last one answered), then answers it. */
  async answer(prompt: string, line: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const at = this.stdout.indexOf(prompt, this.cursor);
      if (at >= 0) {
        this.cursor = at + prompt.length;
        this.send(`${line}\n`);
        return;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for prompt ${JSON.stringify(prompt)}\n--- stdout ---\n${this.stdout}\n--- stderr ---\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The loopback link an authorize run prints on stderr. */
export const LINK = /http:\/\/127\.0\.0\.1:53682\/auth\?state=[A-Za-z0-9_%-]+/;

export const PASTE_BLOCK = /Paste the following into your remote machine --->\n(.*)\n<---End paste\n/;

/**
 * Plays the browser: opens the printed link, which goes to the fake consent URL, which redirects to
 * the loopback with a code. Returns the final page's status. Each hop is a fresh connection: the
 * loopback servers (rclone's and ours) disable keep-alive, so a pooled socket could be closed under us.
 */
export async function playBrowser(session: Session): Promise<number> {
  const [link] = await session.waitFor(LINK, 'stderr');
  let url = link;
  for (let hop = 0; hop < 5; hop++) {
    let res: { status: number; location?: string };
    try {
      res = await getOnce(url);
    } catch (err) {
      // rclone shuts its loopback server as soon as the code arrives, sometimes before its "Success!"
      // page is sent; the code was delivered all the same (status 0 says so).
      if (/^http:\/\/127\.0\.0\.1:53682\/\?code=/.test(url)) return 0;
      throw err;
    }
    if (res.status < 300 || res.status >= 400 || !res.location) return res.status;
    url = new URL(res.location, url).toString();
  }
  throw new Error(`too many redirects from ${link}`);
}

function getOnce(url: string): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
  });
}

/** Runs the real `rclone authorize` against the fakes and returns what it says to paste. */
export async function realRcloneAuthorize(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const session = new Session('rclone', ['authorize', ...args, '--auth-no-open-browser', '--config', '/dev/null'], env);
  session.endInput();
  expectOk(await playBrowser(session));
  const code = await session.exited;
  const match = session.stdout.match(PASTE_BLOCK);
  if (code !== 0 || !match) throw new Error(`rclone authorize failed (${code}): ${session.stdout}\n${session.stderr}`);
  return match[1];
}

function expectOk(status: number): void {
  if (status !== 200 && status !== 0) throw new Error(`the loopback answered ${status}`);
}
