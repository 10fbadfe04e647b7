// `scanrelay connect [name] --url <relay URL>`: adds to each ARR app (or brings up to date, never doubling) a Webhook
// Connect entry posting to <url>/<SERVER_PASS> on import, upgrade, rename and the delete events it has, says what
// it did, and which media server library holds each of the app's root folders (or the mapping line to add); then the
// relay running with this config reads its ARR entries again (running-relay.ts).
import { Command, InvalidArgumentError } from 'commander';
import { arrApp } from '../arr/apps.js';
import { arrClient } from '../arr/client.js';
import { appRoots, rootsText } from '../arr/roots.js';
import { connectWebhook, type EntryResult } from '../arr/webhook-entry.js';
import { systemClock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import { createDoctor } from '../doctor/explain.js';
import { diskPathState } from '../paths/disk.js';
import { buildTargets } from '../targets/build.js';
import { escapeControls } from '../log/format.js';
import { globalFlags, loadContext } from './context.js';
import { reloadRunningRelay } from './running-relay.js';

/**
 * --url as the app is given it: an http(s) URL with no user, password, query or fragment (the app appends the
 * secret to it as a path), written as the URL parser reads it, never as typed (a space or a control character).
 */
export function relayUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // said below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new InvalidArgumentError('expected this relay\'s http:// or https:// URL as the app reaches it, like http://scanrelay:3468');
  if (url.username || url.password || url.search || url.hash) throw new InvalidArgumentError("expected this relay's URL without a user, password, query or fragment (the app appends the secret to it), like http://scanrelay:3468");
  return (url.origin + url.pathname).replace(/\/+$/, '');
}

/** What an app answered, as printed: each line's control characters (a terminal's escape sequences) written as escapes. */
export function printable(text: string): string {
  return text.split('\n').map(escapeControls).join('\n');
}

export function connectCommand(): Command {
  return new Command('connect')
    .description('add (or bring up to date) a Webhook in each ARR app posting to this relay, and show which library holds each of its root folders')
    .argument('[name]', 'the NAME of one ARR entry (default: every entry)')
    .requiredOption('--url <url>', "this relay's URL as the app reaches it, e.g. http://scanrelay:3468", relayUrl)
    .option('--force', 'save the Webhook even if the app cannot reach the URL now (the app tests it otherwise)')
    .action(async (name: string | undefined, opts: { url: string; force?: boolean }, cmd: Command) => {
      const { loaded, logger } = loadContext(globalFlags(cmd), { consoleLog: false });
      const config = loaded.config;
      const pass = config.SERVER_PASS;
      // The secret is in the URL the app is given; printed, it is a placeholder.
      const shown = (text: string) => [pass, encodeURIComponent(pass)].reduce((t, p) => t.split(p).join('<SERVER_PASS>'), text);
      const say = (text: string) => process.stdout.write(printable(shown(text)));
      const entries = name === undefined ? config.ARR : config.ARR.filter((e) => e.NAME.toLowerCase() === name.toLowerCase());
      if (entries.length === 0) {
        const known = config.ARR.map((e) => e.NAME).join(', ');
        process.stderr.write(name === undefined || !known
          ? `ARR is empty in ${loaded.path}: add your apps there first ({"NAME": "sonarr", "TYPE": "sonarr", "URL": "http://sonarr:8989", "API_KEY": "…"}), see docs/guides/connecting-apps.md.\n`
          : `No ARR entry is named '${name}' in ${loaded.path}; the entries are: ${known}.\n`);
        process.exitCode = 1;
        return;
      }
      const targets = buildTargets(config, { clock: systemClock, logger });
      const doctor = createDoctor({ config, targets, pathState: diskPathState });
      const hook = `${opts.url}/${encodeURIComponent(pass)}`;
      for (const entry of entries) {
        const client = arrClient(entry, { clock: systemClock });
        try {
          const status = await client.status();
          const result = await connectWebhook(client, arrApp(entry.TYPE, status.version), opts.url, hook, opts.force === true);
          say(`${client.who} (${status.appName} ${status.version}): ${described(result, entry, hook)}\n`);
        } catch (err) {
          process.stderr.write(printable(shown(client.scrub(`${client.who}: ${(err as Error).message}\n`))));
          process.exitCode = 1;
        }
        say(rootsText(await appRoots({ name: entry.NAME, type: entry.TYPE, client }, doctor)));
      }
      say(`${await reloadRunningRelay(config)}\n`);
    });
}

function described(r: EntryResult, entry: ArrEntry, hook: string): string {
  const what = r.action === 'unchanged' ? 'the Webhook connection' : r.action === 'added' ? 'added the Webhook connection' : 'updated the Webhook connection';
  const where = `POST ${hook} on ${r.events.join(', ')}`;
  if (r.action === 'unchanged') return `${what} '${r.name}'${r.id !== undefined ? ` (id ${r.id})` : ''} already posts ${where}; nothing changed.`;
  return `${what} '${r.name}'${r.id !== undefined ? ` (id ${r.id})` : ''}: ${where}. ${entry.TYPE} calls it from now on.`;
}
