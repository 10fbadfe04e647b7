// An arr app's API, as scanrelay calls it: every request through src/http/api-call.ts with the key in X-Api-Key (never in
// the URL, so no log line or error can carry it), and every request one of the app's published OpenAPI operations
// (`arrRequests`, checked against each app's document in test/arr/openapi-conformance.test.ts).
import { ARR_HISTORY_PAGE, ARR_ITEM, ARR_LIBRARY, ARR_SETTINGS, SERVER_STATUS, type AnswerCap } from '../http/answer-caps.js';
import { ApiRefusal, apiCaller, type ApiCaller } from '../http/api-call.js';
import type { Keep } from '../http/json-cost.js';
import type { Clock } from '../clock.js';
import type { ArrEntry } from '../config/arr-schema.js';
import { shownUrl } from '../http/url-credentials.js';
import { API_BASE } from './apps.js';
import { appText } from './app-text.js';

/** Every request the client sends, by method, path template (after the API base) and query names. */
export const arrRequests = [
  { method: 'GET', template: '/system/status', query: [] },
  { method: 'GET', template: '/history', query: ['page', 'pageSize', 'sortKey', 'sortDirection'] },
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

/** A page of history as the apps answer it (PagingResource<HistoryResource>): the fields the catch-up reads. */
export interface HistoryPage {
  totalRecords: number;
  records: unknown[];
}

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
  /**
   * One page of the app's whole history, oldest first (GET history, sortKey date, ascending: each app's
   * HistoryController.GetHistory): its records as the app sends them (checked by the caller), and how many it holds.
   */
  historyPage(page: number, pageSize: number): Promise<HistoryPage>;
  rootFolders(): Promise<string[]>;
  /** The series or movie `id` (its IDs and title, as a webhook carries them); undefined when the app has none. */
  item(path: '/series' | '/movie', id: number): Promise<Record<string, unknown> | undefined>;
  /** The folder (`path`) of every series, movie, artist or author the app has; items without one are left out. */
  libraryFolders(path: '/series' | '/movie' | '/artist' | '/author'): Promise<string[]>;
  /**
   * Any list the app answers (an item list, the files of one item: src/reconcile/app-files.ts), read as the library
   * list is, of each entry what `keep` returns held; its requests are listed and checked where they are made.
   */
  list<T = unknown>(path: string, query?: Record<string, string>, keep?: Keep<T>): Promise<T[]>;
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
  const list = async <T>(method: string, path: string, from: ApiCaller = api, query?: Record<string, string>, cap: AnswerCap = ARR_SETTINGS, keep?: Keep<T>): Promise<T[]> => {
    const body = await from.list(method, path, { query, cap, keep });
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
    async historyPage(page, pageSize) {
      const query = { page: String(page), pageSize: String(pageSize), sortKey: 'date', sortDirection: 'ascending' };
      const body = await history.list('GET', '/history', { query, cap: ARR_HISTORY_PAGE });
      if (!isObject(body) || !Array.isArray(body.records) || typeof body.totalRecords !== 'number') {
        throw new ApiRefusal(api.scrub(`${who} answered GET /history with ${describe(body)}, not a page of its history: check the URL of ARR entry "${entry.NAME}"`), 200);
      }
      return { totalRecords: body.totalRecords, records: body.records };
    },
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
      return list<string>('GET', path, history, undefined, ARR_LIBRARY, (i) => (isObject(i) && typeof i.path === 'string' && i.path !== '' ? i.path : undefined));
    },
    list: (path, query, keep) => list('GET', path, history, query, ARR_LIBRARY, keep),
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
  if (Array.isArray(body)) return 'a list';
  return isObject(body) ? 'an object' : `a ${typeof body}`;
}
