// autopulse's `triggers` (one named route or watcher each, with its rewrite and timer) as scanrelay's AUTOSCAN
// routes, WATCH paths and SERVER_SCAN_DELAYS. Pure: the caller gathers the keys and the report.
import { list, obj, rewriteToMappings, str, type Obj } from './from-autoscan.js';

type Mapping = ReturnType<typeof rewriteToMappings>;

/**
 * A key the user set. autopulse's own serialised configs (its config-template API, a saved config) write every
 * key, unset ones as null, [] or {}: those are not worth a line in the report.
 */
export function given(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.values(value).some(given);
  return true;
}

export interface TriggerKeys {
  /** AUTOSCAN.TRIGGERS entries: one per arr trigger, served at /triggers/<NAME>. */
  routes: Obj[];
  /** Every manual, bazarr and autoscan trigger's rewrite, merged: scanrelay has one /triggers/manual. */
  manualRewrite: Mapping;
  watchPaths: Obj[];
  /** WATCH.DEBOUNCE, when a notify trigger set one. */
  debounce?: number;
  /** SERVER_SCAN_DELAYS: a trigger's own timer, keyed by the source scanrelay records for it. */
  delays: Record<string, number>;
}

const ARRS = ['sonarr', 'radarr', 'lidarr', 'readarr'];
const MANUAL_LIKE = ['manual', 'bazarr', 'autoscan'];
/** Route names scanrelay serves for autopulse's manual form. */
const MANUAL_ROUTES = ['manual', 'bazarr'];
const ROUTE_NAME = /^[A-Za-z0-9_.-]+$/;
const RESERVED = ['manual', 'a-train', 'bazarr', 'tdarr'];

/**
 * `triggers` is a map of name → `{type, rewrite, timer: {wait}, event_timers, excludes, filter, …}`
 * (autopulse `crates/service/src/settings/triggers/mod.rs` L283-295). A trigger without a timer waits
 * `opts.default_timer_wait` (`crates/server/src/routes/triggers.rs` L85-93), which is SERVER_SCAN_DELAY here.
 */
export function convertTriggers(input: unknown, defaultWait: number, report: string[]): TriggerKeys {
  const out: TriggerKeys = { routes: [], manualRewrite: {}, watchPaths: [], delays: {} };
  const delaySetBy: Record<string, string> = {};
  const setDelay = (key: string, seconds: number, where: string) => {
    if (key in out.delays) {
      if (out.delays[key] !== seconds) report.push(`${where}: waits ${seconds} s, but ${delaySetBy[key]} already set SERVER_SCAN_DELAYS "${key}" to ${out.delays[key]} s; scanrelay keys delays by source, not by route, so the first was kept.`);
      return;
    }
    out.delays[key] = seconds;
    delaySetBy[key] = where;
  };

  for (const [name, value] of Object.entries(obj(input))) {
    const t = obj(value);
    const where = `triggers.${name}`;
    const type = str(t.type)?.toLowerCase();
    if (!type) {
      report.push(`${where}: no "type"; not carried over.`);
      continue;
    }
    const wait = waitOf(t.timer, where, report);
    otherKeys(t, type, where, report);

    if (ARRS.includes(type)) {
      if (!ROUTE_NAME.test(name) || RESERVED.includes(name.toLowerCase())) {
        report.push(`${where}: scanrelay cannot serve /triggers/${name} (a route name is letters, digits, "_", "." or "-", and not ${RESERVED.join(', ')}); not carried over: add an AUTOSCAN.TRIGGERS entry with another NAME and change the ${type} webhook's URL to it.`);
        continue;
      }
      out.routes.push({ NAME: name, TYPE: type, REWRITE: withChainNote(t.rewrite, where, report) });
      if (wait !== undefined && wait !== defaultWait) setDelay(type, wait, where);
      eventDelays(type, t.event_timers, wait, where, report, setDelay);
    } else if (MANUAL_LIKE.includes(type)) {
      mergeRewrite(out.manualRewrite, withChainNote(t.rewrite, where, report), name, where, report);
      if (!MANUAL_ROUTES.includes(name.toLowerCase())) {
        const form = type === 'autoscan' ? '?dir=<folder>' : '?path=<file>';
        report.push(`${where}: scanrelay serves autopulse's ${type} form at /triggers/manual and /triggers/bazarr only; point what called /triggers/${name} at /triggers/manual${form} (its rewrite now applies there).`);
      }
      if (wait !== undefined && wait !== defaultWait) setDelay('manual', wait, where);
    } else if (type === 'notify') {
      watchPaths(t, where, report).forEach((p) => out.watchPaths.push(p));
      const debounce = typeof t.debounce === 'number' ? t.debounce : 2; // autopulse's default (notify.rs L71-72)
      if (out.debounce === undefined) out.debounce = debounce;
      else if (out.debounce !== debounce) report.push(`${where}: debounce ${debounce} s not carried over: WATCH.DEBOUNCE is one value for every path and is ${out.debounce} s.`);
      if (wait !== undefined && wait !== defaultWait) setDelay('watch', wait, where);
    } else if (type === 'sportarr') {
      report.push(`${where}: scanrelay does not read Sportarr's webhooks; not carried over: watch Sportarr's library folder with a WATCH path instead.`);
    } else {
      report.push(`${where}: an unknown trigger type "${type}"; not carried over.`);
    }
  }
  return out;
}

/** `timer: {wait: seconds}`; a string or a negative number is reported, not guessed. */
function waitOf(timer: unknown, where: string, report: string[]): number | undefined {
  if (timer === undefined || timer === null) return undefined;
  const wait = obj(timer).wait;
  if (wait === undefined || wait === null) return undefined;
  if (typeof wait === 'number' && wait >= 0) return wait;
  report.push(`${where}.timer.wait: '${String(wait)}' is not a number of seconds; not carried over.`);
  return undefined;
}

/**
 * `event_timers: {download: {wait}}` adds to the trigger's own timer (autopulse `timer.rs` L10-21, L63-72;
 * `triggers/mod.rs` L315-328). autopulse's Download covers upgrades, which scanrelay names Upgrade.
 */
function eventDelays(source: string, timers: unknown, base: number | undefined, where: string, report: string[], set: (key: string, s: number, where: string) => void) {
  for (const [event, timer] of Object.entries(obj(timers))) {
    const wait = waitOf(timer, `${where}.event_timers.${event}`, report);
    if (wait === undefined) continue;
    const seconds = (base ?? 0) + wait;
    const name = event.toLowerCase();
    set(`${source}:${name}`, seconds, `${where}.event_timers.${event}`);
    if (name === 'download') set(`${source}:upgrade`, seconds, `${where}.event_timers.${event}`);
  }
}

/** What a trigger may carry that scanrelay has nothing for, one line each. */
function otherKeys(t: Obj, type: string, where: string, report: string[]) {
  const excludes = list(t.excludes).map(str).filter(Boolean);
  if (excludes.length) {
    report.push(`${where}.excludes: not carried over: every scan goes to every target; to keep ${excludes.join(', ')} out of these paths, give those TARGETS entries an EXCLUDE prefix.`);
  }
  const filter = obj(t.filter);
  if (given(filter.include) || given(filter.exclude)) {
    const hint = type === 'notify' ? 'use the WATCH path\'s INCLUDE/EXCLUDE (matched before the rewrite)' : 'use SERVER_IGNORE_LIST (substrings) or the targets\' INCLUDE/EXCLUDE prefixes';
    report.push(`${where}.filter: not carried over: scanrelay has no per-trigger regex filter after the rewrite; ${hint}.`);
  }
  const known = ['type', 'rewrite', 'timer', 'excludes', 'filter', 'event_timers', 'paths', 'recursive', 'backend', 'filters', 'debounce'];
  for (const key of Object.keys(t)) if (!known.includes(key)) report.push(`${where}.${key}: not an autopulse trigger key scanrelay knows; not carried over.`);
}

/** A notify trigger: one WATCH path per watched folder, sharing its rewrite and filters. */
function watchPaths(t: Obj, where: string, report: string[]): Obj[] {
  const rewrite = withChainNote(t.rewrite, where, report);
  const include = list(t.filters).map(str).filter((f): f is string => !!f);
  const out: Obj[] = [];
  for (const p of list(t.paths)) {
    const path = str(p);
    if (!path || !path.startsWith('/')) {
      report.push(`${where}.paths: '${String(p)}' is not an absolute POSIX path; not carried over (WATCH runs on Linux).`);
      continue;
    }
    out.push({
      PATH: path,
      BACKEND: str(t.backend)?.toLowerCase() === 'polling' ? 'poll' : 'inotify',
      RECURSIVE: t.recursive !== false,
      INCLUDE: include,
      REWRITE: rewrite,
    });
  }
  if (out.length === 0) report.push(`${where}: no path to watch; not carried over.`);
  return out;
}

/**
 * autopulse applies every rule of a rewrite in turn (`crates/utils/src/rewrite.rs` L76-85); scanrelay applies the
 * one that matches (the longest prefix, else the first regex). They differ only when one rule rewrites what an
 * earlier one produced, which is reported.
 */
export function withChainNote(rules: unknown, where: string, report: string[]): Mapping {
  const entries = list(rules).map((r) => ({ from: str(obj(r).from), to: str(obj(r).to) }));
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [earlier, later] = [entries[i], entries[j]];
      if (!earlier.to || !later.from) continue;
      let chained = false;
      try {
        chained = new RegExp(later.from, 'u').test(earlier.to);
      } catch {
        // a pattern that does not compile is reported by rewriteToMappings
      }
      if (chained) report.push(`${where}.rewrite: autopulse applies "${later.from}" to what "${earlier.from}" produced; scanrelay applies one rule per path: write the combined rule, and check it with scanrelay explain.`);
    }
  }
  return rewriteToMappings(rules, `${where}.rewrite`, report);
}

/** Adds one trigger's rewrite to the shared MANUAL_REWRITE; a prefix two triggers map differently is reported. */
function mergeRewrite(into: Mapping, add: Mapping, name: string, where: string, report: string[]) {
  for (const [key, value] of Object.entries(add)) {
    if (!Array.isArray(value)) {
      into[`${name} ${key}`] = value;
      continue;
    }
    for (const form of value) {
      const other = Object.entries(into).find(([k, v]) => k !== key && Array.isArray(v) && v.includes(form));
      if (other) {
        report.push(`${where}.rewrite: '${form}' already goes to '${other[0]}' for another manual trigger; '${key}' not carried over.`);
        continue;
      }
      const forms = into[key];
      if (Array.isArray(forms)) {
        if (!forms.includes(form)) forms.push(form);
      } else into[key] = [form];
    }
  }
}
