// Turns a parsed autoscan config.yml into scanrelay config keys, and lists what could not be carried over.
import { regexRule } from '../paths/mapping.js';
import { newServerPass } from './schema.js';

export interface Conversion {
  /** scanrelay config.json content (keys not named keep their defaults when loaded). */
  config: Record<string, unknown>;
  /** One line per thing not carried over, or carried differently, saying what to do. */
  report: string[];
  /** Keys whose values the import made up (a random password): the output says where they are. */
  generated?: string[];
}

export type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Go's time.ParseDuration for the units autoscan users write (h, m, s, ms); undefined when it is not one. */
export function goDurationSeconds(text: string): number | undefined {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]], 0);
}

/**
 * autoscan rewrites are regular expressions. A rule whose "from" is a literal path (optionally anchored with ^)
 * and whose "to" uses no capture group becomes a prefix mapping (matched at folder boundaries, in NFC); any other
 * becomes a regex rule `{"FROM", "TO"}`, applied as autoscan applies it (first matching rule, every match).
 */
export function rewriteToMappings(rules: unknown, where: string, report: string[]): Record<string, string[] | { FROM: string; TO: string }> {
  const out: Record<string, string[] | { FROM: string; TO: string }> = {};
  list(rules).forEach((rule, i) => {
    const from = str(obj(rule).from);
    const to = str(obj(rule).to);
    if (from === undefined || to === undefined) {
      report.push(`${where}: a rewrite rule without "from" and "to" was skipped.`);
      return;
    }
    const literal = literalPrefix(from);
    if (literal !== undefined && !/\$\{?\w/.test(to)) {
      const forms = out[to];
      if (Array.isArray(forms)) forms.push(literal);
      else out[to] = [literal];
      return;
    }
    const pattern = goRegex(from);
    try {
      regexRule('check', pattern, to);
    } catch (err) {
      report.push(`${where}: the rewrite "${from}" → "${to}" does not compile here (${(err as Error).message}); write it as a mapping by hand.`);
      return;
    }
    out[`rewrite ${i + 1}`] = { FROM: pattern, TO: to };
  });
  return out;
}

/** Go's regexp syntax where JavaScript spells it differently: named groups `(?P<name>` and the end of text `\z`. */
export function goRegex(pattern: string): string {
  return pattern.replace(/\(\?P</g, '(?<').replace(/\\z$/, '$');
}

/** The literal path a regex stands for ("^/tv/", "/tv/(.*)"), or undefined when it is a real pattern. */
export function literalPrefix(regex: string): string | undefined {
  let text = regex.startsWith('^') ? regex.slice(1) : regex;
  if (text.endsWith('(.*)') || text.endsWith('.*')) text = text.replace(/\(?\.\*\)?$/, '');
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      const next = text[++i];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return undefined;
      out += next;
    } else if ('*+?()[]{}|$^'.includes(c)) {
      return undefined;
    } else {
      out += c; // "." matches itself among others: close enough for a path
    }
  }
  return out === '' ? undefined : out;
}

const ARRS = ['sonarr', 'radarr', 'lidarr', 'readarr'] as const;
const SERVERS: Record<string, string> = { plex: 'plex', emby: 'emby', jellyfin: 'jellyfin', autoscan: 'relay' };

export function convertAutoscan(input: unknown): Conversion {
  const src = obj(input);
  const report: string[] = [];
  const generated: string[] = [];
  const config: Record<string, unknown> = {};
  const priorityNote = (where: string, p: unknown) => {
    if (p !== undefined && p !== 0) report.push(`${where}: priority ${String(p)} not carried over: scanrelay orders scans by SERVER_SCAN_PRIORITIES (path substrings).`);
  };

  // --- the web server
  if (src.port !== undefined) config.SERVER_PORT = Number(src.port);
  const hosts = list(src.host).map(str).filter((h): h is string => !!h);
  if (hosts.length) {
    const [host, port] = hosts[0].includes(':') ? hosts[0].split(':') : [hosts[0], undefined];
    config.SERVER_IP = host;
    if (port) config.SERVER_PORT = Number(port);
    if (hosts.length > 1) report.push(`host: scanrelay listens on one address; used '${hosts[0]}', dropped ${hosts.slice(1).join(', ')} (listen on 0.0.0.0 to serve them all).`);
  }

  // --- the processor
  const minimumAge = str(src['minimum-age']);
  const age = minimumAge === undefined ? 600 : goDurationSeconds(minimumAge);
  if (age === undefined) report.push(`minimum-age: '${minimumAge}' is not a duration like 10m or 1m30s; SERVER_SCAN_DELAY keeps its default.`);
  else config.SERVER_SCAN_DELAY = age;
  if (minimumAge === undefined) report.push("minimum-age: not set; autoscan's default of 10m became SERVER_SCAN_DELAY 600.");
  const scanDelayText = str(src['scan-delay']);
  const scanDelay = scanDelayText === undefined ? 5 : goDurationSeconds(scanDelayText);
  if (scanDelay === undefined) report.push(`scan-delay: '${scanDelayText}' is not a duration; each target's SCAN_PAUSE stays 0.`);
  if (src['scan-stats'] !== undefined) report.push('scan-stats: not carried over: scanrelay shows counts on /health, /metrics and the dashboard.');
  // autoscan waits minimum-age and checks only its anchors, never the files themselves.
  config.SERVER_MAX_FILE_CHECKS = 0;
  const anchors = list(src.anchors).map(str).filter((a): a is string => !!a);
  if (anchors.length) config.SERVER_ANCHOR_FILES = anchors;

  // --- the triggers
  const auth = obj(src.authentication);
  let user = str(auth.username) ?? '';
  let password = str(auth.password) ?? '';
  if (!user || !password) {
    user = 'autoscan';
    password = newServerPass();
    generated.push('AUTOSCAN.PASSWORD');
    report.push('authentication: autoscan served /triggers/ without a user and password; scanrelay never does. AUTOSCAN.USER is "autoscan" with a generated AUTOSCAN.PASSWORD: enter both in each arr\'s webhook (Username, Password).');
  }
  const triggers = obj(src.triggers);
  const routes: Obj[] = [];
  for (const type of ARRS) {
    list(triggers[type]).forEach((t, i) => {
      const name = str(obj(t).name) ?? type;
      priorityNote(`triggers.${type}[${i}]`, obj(t).priority);
      routes.push({ NAME: name, TYPE: type, REWRITE: rewriteToMappings(obj(t).rewrite, `triggers.${type}[${i}]`, report) });
    });
  }
  const manual = obj(triggers.manual);
  priorityNote('triggers.manual', manual.priority);
  const aTrain = obj(triggers['a-train']);
  priorityNote('triggers.a-train', aTrain.priority);
  const drives: Record<string, ReturnType<typeof rewriteToMappings>> = {};
  list(aTrain.drives).forEach((d, i) => {
    const id = str(obj(d).id);
    if (id) drives[id] = rewriteToMappings(obj(d).rewrite, `triggers.a-train.drives[${i}]`, report);
  });
  config.AUTOSCAN = {
    ENABLED: true,
    USER: user,
    PASSWORD: password,
    TRIGGERS: routes,
    MANUAL_REWRITE: rewriteToMappings(manual.rewrite, 'triggers.manual', report),
    A_TRAIN_REWRITE: rewriteToMappings(aTrain.rewrite, 'triggers.a-train', report),
    A_TRAIN_DRIVES: drives,
  };
  const watched: Obj[] = [];
  list(triggers.inotify).forEach((t, i) => {
    const entry = obj(t);
    priorityNote(`triggers.inotify[${i}]`, entry.priority);
    const rewrite = rewriteToMappings(entry.rewrite, `triggers.inotify[${i}]`, report);
    for (const p of list(entry.paths)) {
      const path = str(obj(p).path);
      if (!path) continue;
      watched.push({
        PATH: path,
        INCLUDE: [...list(entry.include), ...list(obj(p).include)].map(str).filter(Boolean),
        EXCLUDE: [...list(entry.exclude), ...list(obj(p).exclude)].map(str).filter(Boolean),
        REWRITE: { ...rewrite, ...rewriteToMappings(obj(p).rewrite, `triggers.inotify[${i}].paths`, report) },
      });
    }
  });
  if (watched.length) config.WATCH = { PATHS: watched };
  if (triggers.bernard !== undefined) {
    report.push('triggers.bernard: not carried over: use scanrelay\'s own Google Drive monitor (GOOGLE.ENABLED, see docs/drive.md) or the A-Train route.');
  }
  for (const key of Object.keys(triggers)) {
    if (![...ARRS, 'manual', 'a-train', 'inotify', 'bernard'].includes(key)) report.push(`triggers.${key}: an unknown trigger; not carried over.`);
  }

  // --- the targets
  const targets: Obj[] = [];
  const targetsIn = obj(src.targets);
  for (const [kind, entries] of Object.entries(targetsIn)) {
    const type = SERVERS[kind];
    if (!type) {
      report.push(`targets.${kind}: an unknown target; not carried over.`);
      continue;
    }
    list(entries).forEach((t, i) => {
      const e = obj(t);
      const name = targets.filter((x) => x.TYPE === type).length === 0 ? kind : `${kind}-${i + 1}`;
      const target: Obj = { NAME: name, TYPE: type, URL: str(e.url) ?? '', PATH_MAPPINGS: rewriteToMappings(e.rewrite, `targets.${kind}[${i}]`, report) };
      if (type === 'relay') {
        if (e.username) target.USER = str(e.username);
        if (e.password) target.PASSWORD = str(e.password);
      } else {
        target.TOKEN = str(e.token) ?? '';
      }
      if (scanDelay) target.SCAN_PAUSE = scanDelay;
      targets.push(target);
    });
  }
  // Every Plex is a TARGETS entry with its own rewrite, so the first Plex of the PLEX_* keys stays off.
  config.PLEX_ENABLED = false;
  config.TARGETS = targets;
  if (targets.length === 0) report.push('targets: none configured; requests are queued and kept until a target is added.');
  if (scanDelay && targets.length) report.push(`scan-delay: autoscan waited ${scanDelay} s between scans overall; each target got SCAN_PAUSE ${scanDelay}, which spaces scans per server.`);

  for (const key of Object.keys(src)) {
    if (!['port', 'host', 'minimum-age', 'scan-delay', 'scan-stats', 'anchors', 'authentication', 'triggers', 'targets', 'database'].includes(key)) {
      report.push(`${key}: not an autoscan key scanrelay knows; not carried over.`);
    }
  }
  if (src.database !== undefined) report.push("database: not carried over: scanrelay keeps its queue in --queuefile (autoscan's pending scans are not imported).");
  return { config, report, generated };
}
