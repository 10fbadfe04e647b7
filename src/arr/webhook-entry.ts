// The app's Webhook Connect entry that posts to scanrelay, added or brought up to date, never doubled: found by its
// URL (any secret after it) or by the name "scanrelay", made from the app's own template otherwise (GET
// notification/schema), with the import, upgrade, rename and delete events the app has turned on. The app tests the
// URL when it saves (ProviderControllerBase.cs: no forceSave), so a URL it cannot reach is said, not saved.
import { ApiRefusal } from '../http/api-call.js';
import type { ArrApp } from './apps.js';
import type { ArrClient, Notification } from './client.js';

export const ENTRY_NAME = 'scanrelay';
/** WebhookMethod.POST (src/NzbDrone.Core/Notifications/Webhook/WebhookMethod.cs). */
const POST = 1;

export interface EntryResult {
  action: 'added' | 'updated' | 'unchanged';
  id: number | undefined;
  name: string;
  /** The events turned on, as the app names them (onDownload, onRename, …). */
  events: string[];
}

export class EntryRefused extends Error {}

const urlOf = (n: Notification): string | undefined => {
  const value = n.fields?.find((f) => f.name === 'url')?.value;
  return typeof value === 'string' ? value : undefined;
};

/** `hook` is `<relay URL>/<SERVER_PASS>`; `relay` the URL before it. */
export async function connectWebhook(client: ArrClient, arr: ArrApp, relay: string, hook: string, force: boolean): Promise<EntryResult> {
  const base = relay.replace(/\/+$/, '');
  const existing = (await client.notifications()).filter((n) => n.implementation === 'Webhook');
  const byUrl = existing.find((n) => {
    const url = urlOf(n)?.replace(/\/+$/, '');
    return url !== undefined && url.startsWith(`${base}/`) && !url.slice(base.length + 1).includes('/');
  });
  const found = byUrl ?? existing.find((n) => n.name?.toLowerCase() === ENTRY_NAME);
  const template = found ?? (await client.notificationTemplates()).find((t) => t.implementation === 'Webhook');
  if (!template) throw new EntryRefused(`${client.who} offers no Webhook connection (GET notification/schema has none): add one by hand in Settings > Connect`);
  // Only the events this app's Webhook says it supports (supportsOnRename, …).
  const events = arr.connect.filter((flag) => template[`supports${flag[0].toUpperCase()}${flag.slice(1)}`] !== false);
  const fields = (template.fields ?? []).map((f) => (f.name === 'url' ? { ...f, value: hook } : f.name === 'method' ? { ...f, value: POST } : f));
  if (!fields.some((f) => f.name === 'url')) fields.push({ name: 'url', value: hook });
  const name = found?.name ?? ENTRY_NAME;
  if (found && urlOf(found) === hook && found.fields?.find((f) => f.name === 'method')?.value === POST && events.every((e) => found[e] === true)) {
    return { action: 'unchanged', id: found.id, name, events };
  }
  const { id: _template, ...rest } = template;
  const entry: Notification = { ...rest, ...(found ? { id: found.id } : {}), name, fields, ...Object.fromEntries(events.map((e) => [e, true])) };
  let saved: Notification;
  try {
    saved = await client.saveNotification(entry, force);
  } catch (err) {
    if (err instanceof ApiRefusal && err.status === 400) {
      throw new EntryRefused(`${client.who} tested the URL and did not save it: ${err.message}. Start scanrelay, check that --url is its address as the app reaches it, and run this again (--force saves it untested)`);
    }
    throw err;
  }
  return { action: found ? 'updated' : 'added', id: typeof saved.id === 'number' ? saved.id : found?.id, name, events };
}
