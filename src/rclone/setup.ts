// The drive backend's questions after the option pass (steps 10-17 in docs/rclone.md): scopes, getting a
// token (loopback flow, delegated rclone, or a pasted authorize result) and the shared drive —
// answered by a person at the wizard or by config_* values of `config create`.
import { decodeBlob, encodeBlob } from './blob.js';
import { findRclone, rcloneAuthorize } from './delegate.js';
import { KNOWN_DEFAULTS } from './drive-options.js';
import { bearerDrivesPage, listSharedDrives } from '../google/shared-drives.js';
import { driveClient, loopbackAuthorize, scopeUrls, serviceAccountAccessToken } from './oauth.js';
import type { OptionQuestion } from './prompt.js';
import { looksLikeToken } from './token.js';

/** The remote being configured; every set is saved at once, as rclone does. */
export interface RemoteAccess {
  readonly name: string;
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  entries(): Array<[string, string]>;
}

/** Who answers the backend's questions. */
export interface Asker {
  readonly interactive: boolean;
  confirm(name: string, question: string, defaultYes: boolean): Promise<boolean>;
  option(question: OptionQuestion): Promise<string>;
  /** A line on stdout (errors and notes between questions). */
  say(text: string): void;
  /** The empty line rclone prints after each answer. */
  section(): void;
}

export interface SetupContext {
  remote: RemoteAccess;
  asker: Asker;
  env: NodeJS.ProcessEnv;
  /** How our own authorize command is typed, e.g. "scanrelay rclone". */
  toolName: string;
  openBrowser: boolean;
  /** stderr: links and progress of the browser flow. */
  log: (text: string) => void;
}

export const IS_LOCAL_QUESTION = 'Use auto config?\n * Say Y if not sure\n * Say N if you are working on a remote or headless machine\n';
export const REFRESH_QUESTION = 'Already have a token - refresh?';

/** Why a blank client_id cannot be authorized here, and how to make one's own; `lastStep` says where to use it. */
export function ownClientIdNeeded(lastStep: string): string {
  return [
    'A client ID of your own is needed to authorize on this machine.',
    "A blank client_id means rclone's built-in key, which belongs to rclone: only rclone itself may use it,",
    "and rclone's shared key is being retired during 2026. No rclone is installed here to hand over to.",
    'To make a client ID of your own (once, a few minutes):',
    ' 1. At https://console.cloud.google.com/ create a project and enable the "Google Drive API".',
    ' 2. OAuth consent screen: user type "External"; publish the app (in "Testing" the token expires in 7 days).',
    ' 3. Credentials > Create credentials > OAuth client ID > application type "Desktop app".',
    ` 4. ${lastStep}`,
    'More: https://rclone.org/drive/#making-your-own-client-id',
  ].join('\n');
}

/**
 * The options rclone puts in the authorize blob: every option whose effective value (backend env
 * variable, then the file, then the default) differs from its default, never the token.
 */
export function authorizeOptions(remote: RemoteAccess, env: NodeJS.ProcessEnv): Record<string, string> {
  const keys = new Set([...Object.keys(KNOWN_DEFAULTS), ...remote.entries().map(([k]) => k)]);
  const options: Record<string, string> = {};
  for (const key of keys) {
    if (key === 'type' || key === 'token' || key.startsWith('config_')) continue;
    const value = env[`RCLONE_DRIVE_${key.toUpperCase()}`] || (remote.get(key) ?? KNOWN_DEFAULTS[key] ?? '');
    if (value !== (KNOWN_DEFAULTS[key] ?? '')) options[key] = value;
  }
  return options;
}

/** `<tool> authorize "drive" "<blob>"`, with Go's %q quoting of the two arguments. */
export function authorizeCommand(tool: string, options: Record<string, string>): string {
  const blob = Object.keys(options).length ? ` ${JSON.stringify(encodeBlob(options))}` : '';
  return `${tool} authorize "drive"${blob}`;
}

function configTokenHelp(tool: string, toolWord: string, command: string): string {
  return (
    `For this to work, you will need ${toolWord} available on a machine that has\na web browser available.\n\n` +
    `For more help and alternate methods see: https://rclone.org/remote_setup/\n\n` +
    `Execute the following on the machine with the web browser (same ${toolWord}\nversion recommended):\n\n` +
    `\t${command}\n\nThen paste the result.\n`
  );
}

export async function configureDrive(ctx: SetupContext): Promise<void> {
  const { remote } = ctx;
  // drive.appfolder lives under its own root, which rclone records as the root folder.
  const scopes = scopeUrls(remote.get('scope'));
  if (scopes.some((s) => s.endsWith('/drive.appfolder'))) remote.set('root_folder_id', 'appDataFolder');

  const serviceAccount = remote.get('service_account_file') || remote.get('service_account_credentials');
  if (!serviceAccount) await obtainToken(ctx);
  await chooseSharedDrive(ctx);
}

async function obtainToken(ctx: SetupContext): Promise<void> {
  const { remote, asker } = ctx;
  if (remote.get('token')) {
    const refresh = await asker.confirm('config_refresh_token', REFRESH_QUESTION, true);
    asker.section();
    if (!refresh) return;
  }
  for (;;) {
    const local = await asker.confirm('config_is_local', IS_LOCAL_QUESTION, true);
    asker.section();
    if (!local) return pasteToken(ctx);
    if (await authorizeHere(ctx)) return;
  }
}

/** The loopback flow on this machine; false when the person should pick another way. */
async function authorizeHere(ctx: SetupContext): Promise<boolean> {
  const { remote, asker, env } = ctx;
  const client = driveClient(Object.fromEntries(remote.entries()), env);
  if (client.clientId) {
    remote.set('token', await loopbackAuthorize({ client, openBrowser: ctx.openBrowser, log: ctx.log }));
    return true;
  }
  const rclone = findRclone(env);
  if (rclone) {
    const options = authorizeOptions(remote, env);
    const args = ['drive', ...(Object.keys(options).length ? [encodeBlob(options)] : [])];
    applyPaste(remote, await rcloneAuthorize(rclone, args, { openBrowser: ctx.openBrowser, log: ctx.log, env }), true);
    return true;
  }
  asker.say(ownClientIdNeeded('Enter its client ID and secret below (or answer n to "Use auto config?" and paste a token instead).'));
  asker.section();
  if (!asker.interactive) throw new Error('a client_id of your own is needed (or config_is_local=false with config_token=…)');
  const id = await asker.option({ name: 'client_id', help: 'Google Application Client Id', kind: 'value', default: '' });
  asker.section();
  if (!id) return false;
  const secret = await asker.option({ name: 'client_secret', help: 'Google Application Client Secret', kind: 'value', default: '', required: true });
  asker.section();
  remote.set('client_id', id);
  remote.set('client_secret', secret);
  return authorizeHere(ctx);
}

/** Applies an authorize result: a blob sets its keys, raw token JSON sets the token. */
function applyPaste(remote: RemoteAccess, text: string, fromBlobOnly = false): void {
  try {
    for (const [key, value] of Object.entries(decodeBlob(text))) remote.set(key, value);
    return;
  } catch (err) {
    if (fromBlobOnly && !looksLikeToken(text)) throw err;
  }
  // Not a blob: it must be token JSON, and JSON's own complaint is the most useful message.
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object') throw new Error('a token is a JSON object');
  remote.set('token', text);
}

async function pasteToken(ctx: SetupContext): Promise<void> {
  const { remote, asker, env } = ctx;
  const options = authorizeOptions(remote, env);
  // Only rclone has the built-in key a blank client_id stands for, so only rclone can do that part.
  const ours = !!driveClient(Object.fromEntries(remote.entries()), env).clientId;
  const tool = ours ? ctx.toolName : 'rclone';
  const toolWord = ours ? ctx.toolName.split(' ')[0] : 'rclone';
  const question: OptionQuestion = {
    name: 'config_token',
    help: configTokenHelp(tool, toolWord, authorizeCommand(tool, options)),
    kind: 'value',
    default: '',
    required: true,
  };
  for (;;) {
    const answer = await asker.option(question);
    asker.section();
    const text = answer.replace(/\s+/g, '');
    try {
      applyPaste(remote, looksLikeToken(answer) ? answer : text);
      return;
    } catch (err) {
      asker.say(`Couldn't decode response - try again (make sure you are using a matching version of rclone on both sides: ${(err as Error).message}\n`);
      if (!asker.interactive) return;
    }
  }
}

/** SCANRELAY_DRIVE_API_URL points the shared-drive list at a private or test endpoint. */
function driveApiBase(env: NodeJS.ProcessEnv): string {
  return env.SCANRELAY_DRIVE_API_URL || 'https://www.googleapis.com';
}

async function accessTokenFor(ctx: SetupContext): Promise<string> {
  const file = ctx.remote.get('service_account_file');
  if (file) return serviceAccountAccessToken(file, scopeUrls(ctx.remote.get('scope')));
  const token = ctx.remote.get('token');
  const parsed = token ? (JSON.parse(token) as { access_token?: string }) : {};
  if (!parsed.access_token) throw new Error('the remote has no token to list Shared Drives with');
  return parsed.access_token;
}

async function chooseSharedDrive(ctx: SetupContext): Promise<void> {
  const { remote, asker } = ctx;
  const current = remote.get('team_drive') ?? '';
  const question = current ? `Change current Shared Drive (Team Drive) ID "${current}"?\n` : 'Configure this as a Shared Drive (Team Drive)?\n';
  const wanted = await asker.confirm('config_change_team_drive', question, false);
  asker.section();
  if (!wanted) {
    if (!current) remote.set('team_drive', '');
    return;
  }
  let drives;
  try {
    drives = await listSharedDrives(bearerDrivesPage(driveApiBase(ctx.env), await accessTokenFor(ctx)));
  } catch (err) {
    asker.say(`Error: failed to list Shared Drives: ${(err as Error).message}`);
    asker.section();
    if (!asker.interactive) throw err;
    return;
  }
  if (drives.length === 0) {
    asker.say('No Shared Drives found in your account');
    asker.section();
    return;
  }
  const id = await asker.option({
    name: 'config_team_drive',
    help: 'Shared Drive',
    kind: 'string value',
    default: drives[0].id,
    required: true,
    exclusive: true,
    examples: drives.map((d) => ({ value: d.id, help: d.name })),
  });
  asker.section();
  remote.set('team_drive', id);
  remote.set('root_folder_id', '');
}
