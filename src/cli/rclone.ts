// The `rclone` command group: `config` (the interactive procedure of docs/rclone.md, plus create, show,
// dump, file) and `authorize`, writing the rclone config file that rclone itself reads.
import { Command } from 'commander';
import { existsSync } from 'node:fs';
import { authorize } from '../rclone/authorize.js';
import { createRemote, parsePairs, remoteText } from '../rclone/create.js';
import { checkPassword } from '../rclone/crypt.js';
import { goJson } from '../rclone/gojson.js';
import { LineInput, Terminal } from '../rclone/prompt.js';
import { ConfigStore, configPath } from '../rclone/store.js';
import { Wizard } from '../rclone/wizard.js';

interface CommonFlags {
  config?: string;
  authNoOpenBrowser?: boolean;
}

const ENV_HELP = `
Files and environment:
  The config file is the one rclone would use: --config, else RCLONE_CONFIG, else
  $XDG_CONFIG_HOME/rclone/rclone.conf or ~/.config/rclone/rclone.conf (or an existing ~/.rclone.conf).
  RCLONE_CONFIG_PASS            password of an encrypted config file
  RCLONE_DRIVE_AUTH_URL         OAuth consent URL (testing and private endpoints; also the remote's auth_url)
  RCLONE_DRIVE_TOKEN_URL        OAuth token URL (testing and private endpoints; also the remote's token_url)
  SCANRELAY_DRIVE_API_URL       Drive API base for the shared-drive list (default https://www.googleapis.com)
  SCANRELAY_RCLONE              rclone to hand a blank client_id's authorization to (default: rclone on PATH;
                                empty: none)`;

function withCommonFlags(command: Command, browser: boolean): Command {
  command.option('--config <path>', 'config file to use (default: the one rclone would use)');
  if (browser) command.option('--auth-no-open-browser', 'print the authorization link instead of opening a browser');
  return command.addHelpText('after', ENV_HELP);
}

/** "scanrelay rclone" (or however the program is named) for the authorize line shown to the user. */
function toolName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  const at = names.indexOf('rclone');
  return names.slice(0, at + 1).join(' ') || 'scanrelay rclone';
}

function terminal(): Terminal {
  return new Terminal(new LineInput(process.stdin), process.stdout, process.stderr, !!process.stdout.isTTY);
}

/** Opens the config file; an encrypted one without RCLONE_CONFIG_PASS asks on a terminal. */
async function openStore(flags: CommonFlags, term?: Terminal): Promise<ConfigStore> {
  const path = configPath(flags.config);
  const asker = term ?? (process.stdin.isTTY ? terminal() : undefined);
  const store = await ConfigStore.open(path, {
    askPassword: asker
      ? (prompt) =>
          asker.password(prompt, (p) => {
            try {
              checkPassword(p);
              return undefined;
            } catch (err) {
              return (err as Error).message;
            }
          })
      : undefined,
    onError: (text) => process.stderr.write(`${text}\n`),
  });
  if (asker && asker !== term) asker.input.close();
  return store;
}

/** Runs an action, turning a failure into rclone's "Error: …" and exit status 1. */
function guarded<A extends unknown[]>(action: (this: Command, ...args: A) => Promise<void>): (this: Command, ...args: A) => Promise<void> {
  return async function (this: Command, ...args: A) {
    try {
      await action.apply(this, args);
    } catch (err) {
      process.stderr.write(`Error: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  };
}

export function rcloneCommand(): Command {
  const rclone = new Command('rclone').description(
    'Create the Google Drive remote the media server mount uses, and a crypt remote over it, in rclone\'s own config file (rclone-compatible "config" and "authorize")',
  );

  const config = withCommonFlags(
    rclone
      .command('config')
      .description('Enter an interactive configuration session (rclone config): create, edit, delete, rename and copy remotes, set a configuration password')
      .addHelpText(
        'after',
        `
A crypt remote: n, a name, "crypt", the remote to wrap (e.g. gdrive:encrypted), filename_encryption,
directory_name_encryption, then the password and the salt (typed, or g to generate; stored obscured).

The procedure for a drive remote: n, a name, "drive", client_id and client_secret (both or neither),
scope (1-5 or a comma list), root_folder_id, service_account_file, "Edit advanced config?", then
"Use auto config?": y runs the browser flow on http://127.0.0.1:53682/ here, n prints an authorize
command to run on a machine with a browser and reads the pasted result; then the Shared Drive question.
Answers may be piped on standard input, one per line.`,
      ),
    true,
  ).action(
    guarded(async function (this: Command) {
      const flags = this.optsWithGlobals<CommonFlags>();
      const term = terminal();
      try {
        const store = await openStore(flags, term);
        const wizard = new Wizard({ store, terminal: term, env: process.env, toolName: toolName(this), openBrowser: !flags.authNoOpenBrowser });
        await wizard.run();
      } finally {
        term.input.release();
      }
    }),
  );

  withCommonFlags(
    config
      .command('create')
      .description('Create a new remote without questions: rclone config create NAME drive [key=value | key value]...')
      .argument('<name>', 'name of the remote (after --, a word starting with - is taken as the name; rclone refuses such names, and so do we)')
      .argument('<type>', 'storage type: drive')
      .argument('[pairs...]', 'options (client_id, client_secret, scope, token, team_drive, root_folder_id, service_account_file, …) and answers (config_is_local, config_token, config_refresh_token, config_change_team_drive, config_team_drive)')
      .option('--no-output', 'do not print the resulting remote')
      .addHelpText(
        'after',
        `
Keys starting with config_ answer the questions and are not stored. Unanswered questions take their
defaults, as in rclone: without config_is_local=false the browser flow starts and waits. Headless:
  config create gdrive drive client_id=ID client_secret=SECRET scope=drive config_is_local=false config_token=BLOB`,
      ),
    true,
  ).action(
    guarded(async function (this: Command, name: string, type: string, words: string[]) {
      const flags = this.optsWithGlobals<CommonFlags & { output: boolean }>();
      const pairs = parsePairs(words);
      const store = await openStore(flags);
      await createRemote({
        store,
        name,
        type,
        pairs,
        env: process.env,
        toolName: toolName(this),
        openBrowser: !flags.authNoOpenBrowser,
        log: (text) => process.stderr.write(text),
      });
      if (flags.output) process.stdout.write(remoteText(store, name));
    }),
  );

  withCommonFlags(
    config
      .command('show')
      .description('Print the (decrypted) config file, or one remote, in config file form')
      .argument('[remote]', 'only this remote (a trailing : is ignored)'),
    false,
  ).action(
    guarded(async function (this: Command, remote: string | undefined) {
      const store = await openStore(this.optsWithGlobals<CommonFlags>());
      if (remote === undefined) {
        const text = store.conf.serialize();
        process.stdout.write(text === '' ? '; empty config\n' : text);
        return;
      }
      const name = remote.replace(/:$/, '');
      process.stdout.write(remoteText(store, name));
      if (!store.conf.get(name, 'type')) throw new Error(`Couldn't find type of fs for "${name}"`);
    }),
  );

  withCommonFlags(
    config.command('dump').description('Print the config file as JSON (remote -> key -> value, sorted), as rclone config dump does'),
    false,
  ).action(
    guarded(async function (this: Command) {
      const store = await openStore(this.optsWithGlobals<CommonFlags>());
      const dump: Record<string, Record<string, string>> = {};
      for (const name of [...store.conf.remoteNames()].sort()) {
        const keys: Record<string, string> = {};
        for (const [key, value] of [...store.conf.entries(name)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) keys[key] = value;
        dump[name] = keys;
      }
      process.stdout.write(goJson(dump, 4));
    }),
  );

  withCommonFlags(config.command('file').description('Show the path of the config file in use'), false).action(
    guarded(async function (this: Command) {
      const path = configPath(this.optsWithGlobals<CommonFlags>().config);
      process.stdout.write(`${existsSync(path) ? 'Configuration file is stored at:' : "Configuration file doesn't exist, but rclone will use this path:"}\n${path}\n`);
    }),
  );

  withCommonFlags(
    rclone
      .command('authorize')
      .description('Authorize on a machine with a browser and print the token to paste into "config" on the remote machine')
      .argument('<backend>', 'drive')
      .argument('[blob_or_client...]', 'the blob shown by config, or client_id and client_secret')
      .addHelpText(
        'after',
        `
Prints exactly:
  Paste the following into your remote machine --->
  <a blob when given a blob, else the token JSON>
  <---End paste
The link goes to stderr (and to the browser unless --auth-no-open-browser). A blank client_id means
rclone's built-in key: an installed rclone then does the authorization.`,
      ),
    true,
  ).action(
    guarded(async function (this: Command, backend: string, rest: string[]) {
      const flags = this.optsWithGlobals<CommonFlags>();
      await authorize([backend, ...rest], {
        env: process.env,
        openBrowser: !flags.authNoOpenBrowser,
        out: (text) => process.stdout.write(text),
        log: (text) => process.stderr.write(text),
      });
    }),
  );

  return rclone;
}
