// An arr app's API, as scanrelay calls it: every request through src/http/api-call.ts with the key in X-Api-Key (never in
// the URL, so no log line or error can carry it), and every request one of the app's published OpenAPI operations
// (`arrRequests`, checked against each app's document in test/arr/openapi-conformance.test.ts).
import { ARR_HISTORY, ARR_ITEM, ARR_LIBRARY, ARR_SETTINGS, SERVER_STATUS, type AnswerCap } from '../http/answer-caps.js';
import { ApiRefusal, apiCaller, type ApiCaller } from '../http/api-call.js';
import type { Clock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import { shownUrl } from '../http/url-credentials.js';
import { API_BASE } from './apps.js';
import { appText } from './app-text.js';

/** Every request the client sends, by method, path template (after the API base) and query names. */
export const arrRequests = [
  { method: 'GET', template: '/system/status', query: [] },
  { method: 'GET', template: '/history/since', query: ['date', 'eventType'] },
  { method: 'GET', template: '/rootfolder', query: [] },
  { method: 'GET', template: '/series/{id}', query: [] },
  { method: 'GET', template: '/movie/{id}', query: [] },
  { method: 'GET', template: '/series', query: [] },
  { method: 'GET', template: '/movie', query: [] },
  { method: 'GET', template: '/artist', query: [] },
  { method: 'GET', template: '/author', query: [] },
  { method: 'GET', template: '/notification', query: [] },
  { method: 'GET', template: '/notification/schema', query: [] },
  { method: 'POST', template: '/notification', query: ['forceSave'] },
  { method: 'PUT', template: '/notification/{id}', query: ['forceSave'] },
] as const;

export interface AppStatus {
  appName: string;
  version: string;
}

/** A Connect entry as the app answers it (NotificationResource): what scanrelay reads and writes of it. */
export type Notification = Record<string, unknown> & { id?: number; name?: string; implementation?: string; fields?: { name: string; value?: unknown }[] };

export interface ArrClient {
  /** "sonarr 'sonarr-4k'", for messages. */
  readonly who: string;
  status(): Promise<AppStatus>;
  /** The records written at or after `since` (ms) of one event type, as the app sends them (checked by the caller). */
  historySince(since: number, eventType: string): Promise<unknown[]>;
  rootFolders(): Promise<string[]>;
  /** The series or movie `id` (its IDs and title, as a webhook carries them); undefined when the app has none. */
  item(path: '/series' | '/movie', id: number): Promise<Record<string, unknown> | undefined>;
  /** The folder (`path`) of every series, movie, artist or author the app has; items without one are left out. */
  libraryFolders(path: '/series' | '/movie' | '/artist' | '/author'): Promise<string[]>;
  /**
   * Any list the app answers (an item list, the files of one item: src/reconcile/app-files.ts), read as the library
   * list is; its requests are listed and checked where they are made.
   */
  list(path: string, query?: Record<string, string>): Promise<unknown[]>;
  notifications(): Promise<Notification[]>;
  notificationTemplates(): Promise<Notification[]>;
  saveNotification(entry: Notification, force: boolean): Promise<Notification>;
  scrub(text: string): string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ArrClientOptions {
  clock?: Clock;
  fetch?: typeof fetch;
  /** Per request; a week of history read at once is allowed twice the usual time. */
  timeoutMs?: number;
  /** Aborted when scanrelay stops: every call in flight ends at once. */
  signal?: AbortSignal;
}

export function arrClient(entry: ArrEntry, opts: ArrClientOptions = {}): ArrClient {
  const who = `${entry.TYPE} '${entry.NAME}'`;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const caller = (ms: number): ApiCaller =>
    apiCaller({
      who,
      url: entry.URL.replace(/\/+$/, '') + API_BASE[entry.TYPE],
      urlKey: `the URL of ARR entry "${entry.NAME}"`,
      headers: { 'X-Api-Key': entry.API_KEY },
      secrets: [entry.API_KEY],
      timeoutMs: ms,
      signal: opts.signal,
      fetch: opts.fetch,
      clock: opts.clock,
      authHint: `check API_KEY of ARR entry "${entry.NAME}" (${entry.TYPE}: Settings > General > Security > API Key)`,
      notFoundHint: `check the URL of ARR entry "${entry.NAME}", with the app's URL base if it has one`,
    });
  const api = caller(timeoutMs);
  const history = caller(timeoutMs * 2);
  const list = async <T>(method: string, path: string, from: ApiCaller = api, query?: Record<string, string>, cap: AnswerCap = ARR_SETTINGS): Promise<T[]> => {
    const body = await from.list(method, path, { query, cap });
    if (!Array.isArray(body)) throw new ApiRefusal(api.scrub(`${who} answered ${method} ${path} with ${describe(body)}, not a list: check the URL of ARR entry "${entry.NAME}"`), 200);
    return body as T[];
  };

  return {
    who,
    async status() {
      const body = await api.json<unknown>('GET', '/system/status', { cap: SERVER_STATUS });
      if (!isObject(body) || typeof body.version !== 'string') throw new ApiRefusal(`${who} answered GET /system/status without a version: is ${shownUrl(entry.URL)} a ${entry.TYPE}?`, 200);
      return { appName: appText(typeof body.appName === 'string' ? body.appName : entry.TYPE), version: appText(body.version) };
    },
    historySince: (since, eventType) => list('GET', '/history/since', history, { date: new Date(since).toISOString(), eventType }, ARR_HISTORY),
    async rootFolders() {
      const roots = await list<unknown>('GET', '/rootfolder');
      return roots.flatMap((r) => (isObject(r) && typeof r.path === 'string' && r.path !== '' ? [r.path] : []));
    },
    async item(path, id) {
      const body = await api.json<unknown>('GET', `${path}/${id}`, { cap: ARR_ITEM });
      return isObject(body) ? body : undefined;
    },
    async libraryFolders(path) {
      // The whole library at once, as large as a week of history: the history's longer timeout.
      const items = await list<unknown>('GET', path, history, undefined, ARR_LIBRARY);
      return items.flatMap((i) => (isObject(i) && typeof i.path === 'string' && i.path !== '' ? [i.path] : []));
    },
    list: (path, query) => list('GET', path, history, query, ARR_LIBRARY),
    notifications: () => list('GET', '/notification'),
    notificationTemplates: () => list('GET', '/notification/schema'),
    async saveNotification(body, force) {
      const query = { forceSave: String(force) };
      const saved = body.id === undefined
        ? await api.json<unknown>('POST', '/notification', { body, query, cap: ARR_SETTINGS })
        : await api.json<unknown>('PUT', `/notification/${body.id}`, { body, query, cap: ARR_SETTINGS });
      return isObject(saved) ? (saved as Notification) : body;
    },
    scrub: api.scrub,
  };
}

function describe(body: unknown): string {
  if (body === null) return 'null';
  return isObject(body) ? 'an object' : `a ${typeof body}`;
}
