// Turns a parsed autopulse config (its TOML, YAML or JSON, all the same shape) into scanrelay config keys, and
// lists what could not be carried over. The shape is autopulse's `Settings` (dan-online/autopulse
// `crates/service/src/settings/mod.rs` L116-142): app, auth, opts, triggers, targets, webhooks, anchors.
import { convertTargets, convertWebhooks } from './autopulse-targets.js';
import { convertTriggers, given } from './autopulse-triggers.js';
import { list, obj, str, type Conversion, type Obj } from './from-autoscan.js';
import { newServerPass } from './schema.js';
import { basePath } from '../value-rules.js';

/** autopulse's own defaults (app.rs L51-64, auth.rs L16-24, opts.rs L72-87), where scanrelay's differ. */
const AUTOPULSE_PORT = 2875;
const AUTOPULSE_WAIT = 60;
const AUTOPULSE_USER = 'admin';
const AUTOPULSE_PASSWORD = 'password';

export function convertAutopulse(input: unknown): Conversion {
  const src = obj(input);
  const report: string[] = [];
  const generated: string[] = [];
  const config: Record<string, unknown> = {};

  convertApp(obj(src.app), config, report);
  const opts = obj(src.opts);
  const defaultWait = convertOpts(opts, config, report);

  const triggers = convertTriggers(src.triggers, defaultWait, report);
  config.AUTOSCAN = {
    ENABLED: true,
    ...credentials(src.auth, report, generated),
    TRIGGERS: triggers.routes,
    MANUAL_REWRITE: triggers.manualRewrite,
  };
  if (Object.keys(triggers.delays).length) config.SERVER_SCAN_DELAYS = triggers.delays;
  if (triggers.watchPaths.length) config.WATCH = { PATHS: triggers.watchPaths, DEBOUNCE: triggers.debounce };

  // Every server is a TARGETS entry with its own rewrite, as in autopulse, so the PLEX_* server stays off.
  config.PLEX_ENABLED = false;
  config.TARGETS = convertTargets(src.targets, report);
  if ((config.TARGETS as Obj[]).length === 0) report.push('targets: none configured; requests are queued and kept until a target is added.');
  const notify = convertWebhooks(src.webhooks, report);
  if (notify.length) config.NOTIFY = notify;

  const anchors = list(src.anchors).map(str).filter((a): a is string => !!a);
  if (anchors.length) config.SERVER_ANCHOR_FILES = anchors;

  for (const key of Object.keys(src)) {
    if (!['app', 'auth', 'opts', 'triggers', 'targets', 'webhooks', 'anchors'].includes(key)) report.push(`${key}: not an autopulse key scanrelay knows; not carried over.`);
  }
  return { config, report, generated };
}

function convertApp(app: Obj, config: Record<string, unknown>, report: string[]) {
  config.SERVER_IP = str(app.hostname) ?? '0.0.0.0';
  // The arrs' webhook URLs name autopulse's port: keeping it keeps them working.
  config.SERVER_PORT = typeof app.port === 'number' ? app.port : AUTOPULSE_PORT;
  const proxies = list(app.trusted_proxies).map(str).filter((p): p is string => !!p);
  if (proxies.length) config.SERVER_TRUST_PROXY = proxies;
  // base_path (app.rs): autopulse served every route under this prefix, as SERVER_BASE_PATH does.
  const prefix = str(app.base_path);
  if (prefix) {
    const checked = basePath().safeParse(prefix.startsWith('/') ? prefix : `/${prefix}`);
    if (checked.success) config.SERVER_BASE_PATH = checked.data;
    else report.push(`app.base_path: '${prefix}' is not a path SERVER_BASE_PATH takes (${checked.error.issues[0]?.message}); not carried over.`);
  }
  const notes: Record<string, string> = {
    database_url: "scanrelay keeps its queue and history in one SQLite file (--queuefile); autopulse's events are not imported",
    log_level: 'pass --loglevel (or SCANRELAY_LOGLEVEL) instead',
    api_logging: 'scanrelay logs one line per request it acts on',
    secure_cookies: 'scanrelay has no login session; the dashboard is guarded by SERVER_PASS',
  };
  // Values equal to autopulse's defaults (app.rs L51-64) changed nothing there, so they need nothing here.
  const defaults: Record<string, unknown> = { log_level: 'info', api_logging: false, secure_cookies: false };
  for (const [key, note] of Object.entries(notes)) if (given(app[key]) && app[key] !== defaults[key]) report.push(`app.${key}: not carried over: ${note}.`);
  for (const key of Object.keys(app)) {
    if (!['hostname', 'port', 'trusted_proxies', 'base_path', ...Object.keys(notes)].includes(key)) report.push(`app.${key}: not an autopulse key scanrelay knows; not carried over.`);
  }
}

/** opts.rs L38-70. Returns the default timer wait, which triggers without their own timer use. */
function convertOpts(opts: Obj, config: Record<string, unknown>, report: string[]): number {
  const wait = typeof opts.default_timer_wait === 'number' && opts.default_timer_wait >= 0 ? opts.default_timer_wait : AUTOPULSE_WAIT;
  if (opts.default_timer_wait !== undefined && wait !== opts.default_timer_wait) report.push(`opts.default_timer_wait: '${String(opts.default_timer_wait)}' is not a number of seconds; SERVER_SCAN_DELAY is autopulse's default, ${AUTOPULSE_WAIT}.`);
  config.SERVER_SCAN_DELAY = wait;
  // check_path (runner.rs L38-41, L161-167): off, autopulse sends a file without looking for it; on, it waits
  // for the file until the event is cleaned up (cleanup_days), where scanrelay gives up after its checks.
  if (opts.check_path === true) {
    report.push('opts.check_path: scanrelay checks for the file SERVER_MAX_FILE_CHECKS (10) times, SERVER_FILE_CHECK_DELAY (60 s) apart, then gives up (autopulse waited until cleanup_days); raise them for slow mounts.');
  } else {
    config.SERVER_MAX_FILE_CHECKS = 0;
  }
  if (typeof opts.cleanup_days === 'number' && opts.cleanup_days > 0 && opts.cleanup_days !== 10) {
    config.HISTORY_DAYS = opts.cleanup_days;
    report.push(`opts.cleanup_days: carried as HISTORY_DAYS ${opts.cleanup_days}, which keeps all history that long (autopulse deleted only not-found and failed events).`);
  }
  // 30 is autopulse's default: left to scanrelay's own, which keeps size-rotated files.
  if (typeof opts.log_file_max_files === 'number' && opts.log_file_max_files !== 30) config.LOG_KEEP = Math.min(Math.max(0, Math.floor(opts.log_file_max_files)), 1000);
  const notes: Record<string, string> = {
    max_retries: 'scanrelay never gives up on a server: it retries with growing pauses up to SERVER_SCAN_RETRY_MAX_DELAY, and NOTIFY tells when a server stays down',
    log_file: 'pass --logfile (or SCANRELAY_LOGFILE) instead',
    log_file_rollover: 'scanrelay rotates by size (LOG_MAX_SIZE), not by time',
    webhook_retries: 'scanrelay tries a notification 3 times',
    webhook_timeout: 'scanrelay waits 10 s for a notification to be taken',
    webhook_interval: 'scanrelay sends notifications as they happen, at least 2 s apart per notifier',
  };
  const defaults: Record<string, unknown> = { max_retries: 5, log_file_rollover: 'never', webhook_retries: 3, webhook_timeout: 10, webhook_interval: 10 };
  for (const [key, note] of Object.entries(notes)) if (given(opts[key]) && opts[key] !== defaults[key]) report.push(`opts.${key}: not carried over: ${note}.`);
  for (const key of Object.keys(opts)) {
    if (!['default_timer_wait', 'check_path', 'cleanup_days', 'log_file_max_files', ...Object.keys(notes)].includes(key)) report.push(`opts.${key}: not an autopulse key scanrelay knows; not carried over.`);
  }
  return wait;
}

/**
 * auth.rs L4-24: Basic auth on every route, admin/password unless set, `enabled: false` to serve without.
 * scanrelay's /triggers/ routes always ask for AUTOSCAN.USER and AUTOSCAN.PASSWORD. autopulse's default password is
 * in its docs and an empty one is none, so neither is carried over: the senders get a random one, the same kind as
 * SERVER_PASS (newServerPass).
 */
function credentials(input: unknown, report: string[], generated: string[]): { USER: string; PASSWORD: string } {
  const auth = obj(input);
  if (auth.enabled === false) {
    generated.push('AUTOSCAN.PASSWORD');
    report.push('auth.enabled: autopulse served its routes without a password; scanrelay never does. AUTOSCAN.USER is "autopulse" with a generated AUTOSCAN.PASSWORD: enter both in each sender (arr webhook Username/Password, Bazarr, curl -u).');
    return { USER: 'autopulse', PASSWORD: newServerPass() };
  }
  let user = str(auth.username) ?? AUTOPULSE_USER;
  const password = str(auth.password) ?? AUTOPULSE_PASSWORD;
  if (user.includes(':') || user === '') {
    report.push(`auth.username: '${user}' cannot be a Basic-auth user name (empty, or with ":"); AUTOSCAN.USER is "autopulse": change it in each sender.`);
    user = 'autopulse';
  }
  if (password === AUTOPULSE_PASSWORD || password === '') {
    generated.push('AUTOSCAN.PASSWORD');
    const was = password === '' ? 'empty' : `autopulse's default ("${AUTOPULSE_PASSWORD}", published in its docs${auth.password === undefined ? ', used when auth.password is not set' : ''})`;
    report.push(`auth.password: ${was}, so not carried over: AUTOSCAN.PASSWORD is a new random password; enter it, with the user "${user}", in each sender (arr webhook Username/Password, Bazarr, curl -u).`);
    return { USER: user, PASSWORD: newServerPass() };
  }
  return { USER: user, PASSWORD: password };
}
