// autopulse's `targets` as TARGETS entries and its `webhooks` as NOTIFY entries. Pure: the caller gathers the
// keys and the report.
import { list, literalPrefix, obj, str, type Obj } from './from-autoscan.js';
import { given, withChainNote } from './autopulse-triggers.js';

const NAME_CHARS = /[^A-Za-z0-9_.-]/g;

/** A name scanrelay accepts, unique without regard to case. */
function uniqueName(wanted: string, taken: Set<string>): string {
  const base = wanted.replace(NAME_CHARS, '-') || 'target';
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
  taken.add(name.toLowerCase());
  return name;
}

/**
 * `targets` is a map of name → `{type, url, token, rewrite, filter, request, …}` (autopulse
 * `crates/service/src/settings/targets/mod.rs` L279-292). Each becomes one TARGETS entry named after its key.
 */
export function convertTargets(input: unknown, report: string[]): Obj[] {
  const out: Obj[] = [];
  const taken = new Set<string>();
  for (const [key, value] of Object.entries(obj(input))) {
    const t = obj(value);
    const where = `targets.${key}`;
    const type = str(t.type)?.toLowerCase();
    const entry = type ? targetOf(type, t, where, report) : undefined;
    if (!type) report.push(`${where}: no "type"; not carried over.`);
    if (!entry) continue;
    const name = uniqueName(key, taken);
    if (name !== key) report.push(`${where}: named "${name}" (a TARGETS NAME is letters, digits, "_", "." or "-", unique).`);
    const target: Obj = { NAME: name, ...entry };
    const mappings = withChainNote(t.rewrite, where, report);
    if (Object.keys(mappings).length) target.PATH_MAPPINGS = mappings;
    Object.assign(target, prefixFilter(t.filter, where, report));
    requestNote(t.request, where, report);
    out.push(target);
  }
  return out;
}

function targetOf(type: string, t: Obj, where: string, report: string[]): Obj | undefined {
  const url = str(t.url) ?? '';
  const token = str(t.token) ?? '';
  switch (type) {
    case 'plex': {
      // plex.rs L13-33: `refresh` refreshes the item after every scan, `analyze` analyzes it; both default off.
      const entry: Obj = { TYPE: 'plex', URL: url, TOKEN: token, ANALYZE_TYPE: t.analyze === true ? 'basic' : 'off' };
      if (t.refresh === true) {
        entry.REFRESH_ITEMS = true;
        report.push(`${where}.refresh: carried as REFRESH_ITEMS, which refreshes the item on renames and upgrades only (a new file's item is new anyway).`);
      }
      return entry;
    }
    case 'jellyfin':
    case 'emby': {
      // emby.rs L23-46: refresh_metadata (default true) refreshes the file's item instead of scanning.
      const entry: Obj = { TYPE: type, URL: url, TOKEN: token, REFRESH_ITEMS: t.refresh_metadata !== false };
      if (given(t.metadata_refresh_mode) && t.metadata_refresh_mode !== 'full_refresh') report.push(`${where}.metadata_refresh_mode: not carried over: scanrelay asks for a full metadata refresh of renamed and upgraded items.`);
      if (str(t.path_match) === 'case_insensitive') report.push(`${where}.path_match: not carried over: scanrelay compares library folders case-sensitively (Windows forms with backslashes case-insensitively); write PATH_MAPPINGS in the server's own case.`);
      return entry;
    }
    case 'sonarr':
    case 'radarr':
    case 'audiobookshelf':
      return { TYPE: type, URL: url, TOKEN: token };
    case 'tdarr':
      return { TYPE: 'tdarr', URL: url, LIBRARY_ID: str(t.db_id) ?? '' };
    case 'command':
      return commandOf(t, where, report);
    case 'autopulse': {
      // autopulse.rs L11-27: GET /triggers/<trigger>?path=…; scanrelay's relay speaks autoscan's dir= form.
      const auth = obj(t.auth);
      const entry: Obj = { TYPE: 'relay', URL: url };
      if (auth.enabled !== false && (str(auth.username) || str(auth.password))) {
        entry.USER = str(auth.username) ?? 'admin';
        entry.PASSWORD = str(auth.password) ?? 'password';
      }
      report.push(`${where}: carried as a relay target, which sends POST /triggers/manual?dir=<folder> (autoscan's form): a scanrelay or autoscan there takes it, an autopulse does not; run scanrelay on that machine too.`);
      if (given(t.trigger) && str(t.trigger) !== 'manual') report.push(`${where}.trigger: "${String(t.trigger)}" not carried over: a relay always calls /triggers/manual.`);
      return entry;
    }
    case 'fileflows':
      report.push(`${where}: scanrelay has no FileFlows target; not carried over: point a FileFlows library at the folder, or add a command target that calls FileFlows' API.`);
      return undefined;
    default:
      report.push(`${where}: an unknown target type "${type}"; not carried over.`);
      return undefined;
  }
}

/**
 * command.rs L30-90: `path` runs the program with the file as its one argument, `raw` runs `sh -c` with $FILE_PATH;
 * both time out after 10 s unless `timeout` says otherwise. scanrelay's command target runs no shell and passes
 * the file in SCANRELAY_PATH, so the same call is spelt with an explicit sh.
 */
function commandOf(t: Obj, where: string, report: string[]): Obj | undefined {
  const path = str(t.path);
  const raw = str(t.raw);
  if (!path === !raw) {
    report.push(`${where}: a command target needs exactly one of "path" and "raw"; not carried over.`);
    return undefined;
  }
  const command = path ? ['sh', '-c', 'exec "$0" "$SCANRELAY_PATH"', path] : ['sh', '-c', `FILE_PATH="$SCANRELAY_PATH"; export FILE_PATH; ${raw}`];
  report.push(`${where}: runs once per folder (autopulse ran it once per file); the folder's file, when known, is the argument/$FILE_PATH, else the folder.`);
  return { TYPE: 'command', COMMAND: command, TIMEOUT: typeof t.timeout === 'number' && t.timeout > 0 ? t.timeout : 10 };
}

/**
 * path_filter.rs L4-18: include/exclude are regexes on the target's path. scanrelay's INCLUDE/EXCLUDE are path
 * prefixes: an anchored literal ("^/audiobooks/") carries over, any other pattern is reported.
 */
function prefixFilter(filter: unknown, where: string, report: string[]): Obj {
  const out: Obj = {};
  for (const side of ['include', 'exclude'] as const) {
    const prefixes: string[] = [];
    for (const pattern of list(obj(filter)[side]).map(str)) {
      if (pattern === undefined) continue;
      const prefix = pattern.startsWith('^') ? literalPrefix(pattern) : undefined;
      if (prefix) prefixes.push(prefix);
      else report.push(`${where}.filter.${side}: "${pattern}" is a pattern, not a path prefix; not carried over: write the folders it means as ${side.toUpperCase()} prefixes.`);
    }
    if (prefixes.length) out[side.toUpperCase()] = prefixes;
  }
  return out;
}

function requestNote(request: unknown, where: string, report: string[]) {
  const r = obj(request);
  if (r.insecure === true) report.push(`${where}.request.insecure: not carried over: scanrelay checks certificates; use http:// on a private network, or give Node the CA with NODE_EXTRA_CA_CERTS.`);
  if (given(r.timeout)) report.push(`${where}.request.timeout: not carried over: scanrelay waits 30 s for a server's answer.`);
  if (given(r.headers)) report.push(`${where}.request.headers: not carried over: scanrelay sends no custom headers; put a reverse proxy in front if the server needs them.`);
}

/** What autopulse's webhooks were told that scanrelay tells: its `failed` and `hash_mismatch` (manager.rs L12-27). */
const NOTIFY_EVENTS = ['target-down', 'target-up', 'scan-failed', 'not-found'];

/** `webhooks` (webhooks/mod.rs L75-81): discord and json carry over; Matrix Hookshot has no NOTIFY type. */
export function convertWebhooks(input: unknown, report: string[]): Obj[] {
  const out: Obj[] = [];
  const taken = new Set<string>();
  for (const [key, value] of Object.entries(obj(input))) {
    const w = obj(value);
    const where = `webhooks.${key}`;
    const type = str(w.type)?.toLowerCase();
    const url = str(w.url);
    if ((type === 'discord' || type === 'json') && url) {
      out.push({ NAME: uniqueName(key, taken), TYPE: type, URL: url, EVENTS: NOTIFY_EVENTS });
      for (const extra of ['username', 'avatar_url', 'mentions']) {
        if (given(w[extra])) report.push(`${where}.${extra}: not carried over: scanrelay's Discord messages use the webhook's own name, avatar and no mentions.`);
      }
      if (type === 'json') report.push(`${where}: scanrelay's json body is one event per POST ({"event", "target", "message", …}), not autopulse's {"events": […]}; adapt the receiver.`);
    } else if (type === 'hookshot') {
      report.push(`${where}: scanrelay has no Matrix Hookshot type; not carried over: send to Matrix through an Apprise API (NOTIFY TYPE "apprise").`);
    } else {
      report.push(`${where}: ${url ? `an unknown webhook type "${type ?? ''}"` : 'no "url"'}; not carried over.`);
    }
  }
  if (out.length) {
    report.push(`webhooks: autopulse posted every file's new, found, retrying and processed events; scanrelay tells what needs a person (${NOTIFY_EVENTS.join(', ')}), and the dashboard shows the rest.`);
  }
  return out;
}
