// `authorize "drive" [blob | client_id client_secret]`: the browser half of a headless setup. Runs
// the loopback flow here and prints the paste block rclone prints (a blob when given a blob, else
// the raw token JSON), handing over to an installed rclone when the client_id is rclone's own.
import { decodeBlob, encodeBlob } from './blob.js';
import { PASTE_END, PASTE_START, findRclone, rcloneAuthorize } from './delegate.js';
import { driveClient, loopbackAuthorize, scopeUrls } from './oauth.js';
import { ownClientIdNeeded } from './setup.js';

export class AuthorizeError extends Error {}

export interface AuthorizeOptions {
  env: NodeJS.ProcessEnv;
  openBrowser: boolean;
  /** stdout: only the paste block goes here. */
  out: (text: string) => void;
  /** stderr: the link and progress. */
  log: (text: string) => void;
}

export async function authorize(args: string[], options: AuthorizeOptions): Promise<void> {
  const [backend, ...rest] = args;
  if (backend !== 'drive') throw new AuthorizeError(`didn't find backend called "${backend ?? ''}"`);
  let settings: Record<string, string>;
  if (rest.length === 0) settings = {};
  else if (rest.length === 1) {
    try {
      settings = decodeBlob(rest[0]);
    } catch (err) {
      throw new AuthorizeError(`couldn't decode the config blob: ${(err as Error).message}`);
    }
  } else if (rest.length === 2) settings = { client_id: rest[0], client_secret: rest[1] };
  else throw new AuthorizeError('invalid number of arguments: authorize "drive" ["blob" | "client_id" "client_secret"]');

  const client = driveClient(settings, options.env);
  let result: string;
  if (!client.clientId) {
    const rclone = findRclone(options.env);
    if (!rclone) {
      throw new AuthorizeError(
        ownClientIdNeeded('Put it in the remote (client_id and client_secret) and run config again, or run: authorize "drive" "<client_id>" "<client_secret>"'),
      );
    }
    result = await rcloneAuthorize(rclone, args, { openBrowser: options.openBrowser, log: options.log, env: options.env });
  } else {
    const token = await loopbackAuthorize({ client, openBrowser: options.openBrowser, log: options.log });
    if (rest.length === 1) {
      // The values the authorize run set, as rclone 1.60 collects them.
      const collected: Record<string, string> = { token };
      if (scopeUrls(settings.scope).some((s) => s.endsWith('/drive.appfolder'))) collected.root_folder_id = 'appDataFolder';
      result = encodeBlob(collected);
    } else result = token;
  }
  options.out(`${PASTE_START}\n${result}\n${PASTE_END}\n`);
}
