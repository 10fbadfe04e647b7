// `scanrelay authorize`: signs the Drive monitor in to a Google account (docs/drive.md) with a loopback redirect that
// also accepts a pasted code or redirected URL (headless servers), or the legacy out-of-band redirect (--oob).
import { Command, InvalidArgumentError } from 'commander';
import { createInterface } from 'node:readline';
import { systemClock, type Clock } from '../clock.js';
import { OOB_REDIRECT_URI, consentUrl, newPkce, newState, parsePastedAnswer, type RedirectResult } from '../google/consent.js';
import { startLoopbackListener, type LoopbackListener } from '../google/loopback.js';
import { InvalidGrantError, exchangeCode, toTokenSet } from '../google/token-endpoint.js';
import { DRIVE_SCOPE, tokenFilePath, type GoogleSettings } from '../drive/settings.js';
import { writeTokenFile } from '../drive/token-store.js';
import type { Logger } from '../log/logger.js';

export interface DriveCommandConfig {
  google: GoogleSettings;
  /** Folder holding config.json; token.json goes there unless GOOGLE.TOKEN_FILE says otherwise. */
  configDir: string;
}

export interface AuthorizeDeps {
  /** Loads config.json (after the global --config option is known). */
  loadConfig: () => DriveCommandConfig | Promise<DriveCommandConfig>;
  logger: Logger;
  /** Where the pasted code is read from (default stdin). */
  input?: NodeJS.ReadableStream;
  /** Where the URL and prompt go (default stdout). */
  output?: NodeJS.WritableStream;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Receives the exit code (default: process.exitCode). */
  exit?: (code: number) => void;
}

export const PROMPT = 'Enter authorization code: ';

/** The three INFO lines plex_autoscan's authorize logs on success, in order. */
export const AUTHORIZE_LOG_LINES = [
  'Requesting access token for the authorization code',
  'Retrieving first access token',
  'Access tokens retrieved successfully',
] as const;

/** Which key stops `authorize`, as one message, or undefined when it may run. */
export function authorizePrecondition(g: GoogleSettings): string | undefined {
  if (!g.ENABLED) return 'GOOGLE.ENABLED is false in config.json: set it to true to use Google Drive monitoring, then run authorize again';
  if (!g.CLIENT_ID.trim() || g.CLIENT_ID.includes('<CLIENT_ID>')) {
    return 'GOOGLE.CLIENT_ID is empty in config.json: create a "Desktop app" OAuth client in the Google Cloud console and fill in its client ID';
  }
  if (!g.CLIENT_SECRET.trim() || g.CLIENT_SECRET.includes('<CLIENT_SECRET>')) {
    return 'GOOGLE.CLIENT_SECRET is empty in config.json: fill in the client secret of the same OAuth client';
  }
  return undefined;
}

interface AuthorizeOptions {
  oob?: boolean;
  port?: number;
  timeout: number;
}

export function authorizeCommand(deps: AuthorizeDeps): Command {
  return new Command('authorize')
    .description('sign the Google Drive monitor in to a Google account and store its token (mode 0600)')
    .option('--oob', `use the out-of-band redirect (${OOB_REDIRECT_URI}); Google blocked it on 31 January 2023, so only for a client it still exempts`)
    .option('--port <port>', 'loopback port to listen on (default: any free port); fix it to forward it over ssh -L', parsePort)
    .option('--timeout <seconds>', 'give up after this many seconds', parsePositive, 900)
    .addHelpText(
      'after',
      `
How it works:
  The command prints a Google sign-in URL and waits. After you allow access, Google sends the browser to
  http://127.0.0.1:<port>/ on the machine running the browser.
  - Browser on this machine: the code arrives by itself.
  - Headless server: the browser shows "this site can't be reached". Copy that page's whole address
    (http://127.0.0.1:<port>/?code=...) or just the code= value, and paste it at "Enter authorization code:".

Needs GOOGLE.ENABLED=true and GOOGLE.CLIENT_ID / GOOGLE.CLIENT_SECRET of a "Desktop app" OAuth client.
The token is written to GOOGLE.TOKEN_FILE (default: token.json beside config.json). Restart scanrelay afterwards.

Other sign-ins need no authorize: GOOGLE.SERVICE_ACCOUNT_FILE (a service-account key; shared drives), or
GOOGLE.RCLONE_REMOTE + GOOGLE.RCLONE_CONFIG (reuse the token of an existing rclone drive remote).`,
    )
    .action(async (opts: AuthorizeOptions) => {
      const exit = deps.exit ?? ((code: number) => void (process.exitCode = code));
      exit(await runAuthorize(deps, opts));
    });
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number 0-65535');
  return n;
}

function parsePositive(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('a number of seconds > 0');
  return n;
}

async function runAuthorize(deps: AuthorizeDeps, opts: AuthorizeOptions): Promise<number> {
  const out = deps.output ?? process.stdout;
  const input = deps.input ?? process.stdin;
  const { logger } = deps;
  const clock = deps.clock ?? systemClock;
  let cfg: DriveCommandConfig;
  try {
    cfg = await deps.loadConfig();
  } catch (err) {
    logger.error((err as Error).message);
    return 1;
  }
  const g = cfg.google;
  const blocked = authorizePrecondition(g);
  if (blocked) {
    logger.error(blocked);
    return 1;
  }

  const state = newState();
  const pkce = newPkce();
  let listener: LoopbackListener | undefined;
  if (opts.oob) {
    logger.warn(
      'Using the out-of-band redirect: Google blocked it for new clients on 28 February 2022 and for all clients on 31 January 2023. ' +
        'Expect "Error 400: invalid_request"; run without --oob to use the loopback redirect.',
    );
  } else {
    try {
      listener = await startLoopbackListener({ state, port: opts.port });
    } catch (err) {
      logger.error(`cannot listen on 127.0.0.1${opts.port ? `:${opts.port}` : ''}: ${(err as Error).message}`);
      return 1;
    }
  }
  const redirectUri = listener?.redirectUri ?? OOB_REDIRECT_URI;
  const url = consentUrl({ authUrl: g.AUTH_URL, clientId: g.CLIENT_ID, redirectUri, scope: DRIVE_SCOPE, state, codeChallenge: pkce.challenge, promptConsent: true });
  out.write(`\nOpen this URL in a browser and allow access to Google Drive:\n\n${url}\n\n`);
  if (listener) {
    out.write(
      'With a browser on this machine the code arrives by itself. On a headless server, copy the whole address\n' +
        `the browser ends on (${redirectUri}?code=...) and paste it below.\n\n`,
    );
  } else {
    out.write('Copy the code Google shows after you allow access and paste it below.\n\n');
  }

  let result: RedirectResult;
  const prompt = promptForCode(input, out, state);
  let timer: NodeJS.Timeout | undefined;
  try {
    const waits: Promise<RedirectResult>[] = [prompt.result];
    if (listener) waits.push(listener.result);
    waits.push(
      new Promise<RedirectResult>((_, rej) => {
        timer = setTimeout(() => rej(new Error(`no authorization code within ${opts.timeout} seconds`)), opts.timeout * 1000);
      }),
    );
    result = await Promise.race(waits);
    if (listener && !prompt.answered) out.write('\nAuthorization code received from the browser.\n');
  } catch (err) {
    logger.error(`Authorization failed: ${(err as Error).message}`);
    return 1;
  } finally {
    clearTimeout(timer);
    prompt.close();
    await listener?.close();
  }

  try {
    logger.info(AUTHORIZE_LOG_LINES[0]);
    logger.info(AUTHORIZE_LOG_LINES[1]);
    const answer = await exchangeCode(
      { tokenUrl: g.TOKEN_URL, clientId: g.CLIENT_ID, clientSecret: g.CLIENT_SECRET, code: result.code, redirectUri, codeVerifier: pkce.verifier },
      { fetch: deps.fetch },
    );
    const token = toTokenSet(answer, clock.now());
    if (!token.refresh_token) {
      logger.warn('Google returned no refresh token: the monitor will stop working when this access token expires (about an hour)');
    }
    const path = tokenFilePath(g, cfg.configDir);
    writeTokenFile(path, { ...token, client_id: g.CLIENT_ID });
    logger.info({ tokenFile: path }, AUTHORIZE_LOG_LINES[2]);
    out.write(`\nToken saved to ${path}. Restart scanrelay to start monitoring Google Drive.\n`);
    return 0;
  } catch (err) {
    if (err instanceof InvalidGrantError) {
      logger.error(
        `Authorization failed: Google refused the code (invalid_grant${err.description ? `: ${err.description}` : ''}). ` +
          'A code works once, for a few minutes, with the URL it came from: run authorize again and use the new URL.',
      );
      return 1;
    }
    logger.error(`Authorization failed: ${(err as Error).message}`);
    return 1;
  }
}

/**
 * Asks at the prompt until a usable answer arrives. End of input is not an error: the loopback listener may
 * still deliver the code (e.g. when run without a terminal).
 */
function promptForCode(
  input: NodeJS.ReadableStream,
  out: NodeJS.WritableStream,
  state: string,
): { result: Promise<RedirectResult>; answered: boolean; close(): void } {
  const rl = createInterface({ input, output: out, terminal: false });
  const handle = {
    answered: false,
    result: new Promise<RedirectResult>((resolve) => {
      out.write(PROMPT);
      rl.on('line', (line) => {
        if (handle.answered) return;
        if (!line.trim()) {
          out.write(PROMPT);
          return;
        }
        try {
          const r = parsePastedAnswer(line, state);
          handle.answered = true;
          resolve(r);
        } catch (err) {
          out.write(`${(err as Error).message}\n${PROMPT}`);
        }
      });
    }),
    close: () => rl.close(),
  };
  return handle;
}
