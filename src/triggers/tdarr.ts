// Tdarr: the message its "Send Webhook Notification" flow plugin posts after a transcode. The plugin takes only a
// URL (no headers), so it is pointed at /<SERVER_PASS>; it posts a Discord webhook body whose embed has a field
// "📁 Path" (German "📁 Pfad", emoji "📁") holding the file's full path, and a footer saying whether the
// transcode started or completed (HaveAGitGat/Tdarr_Plugins
// FlowPluginsTs/CommunityFlowPlugins/tools/sendWebhookNotification/1.0.0/index.ts: `translations`, `fields`,
// `payload`). A "Send Web Request" flow (any method, a JSON body of one's own) can post {"path": "<file>"} to
// /triggers/tdarr instead.
import { isPlainObject, objectAt, objectsAt, pathAt, type Payload } from './payload.js';
import type { TriggerResult } from './result.js';

const COMPLETED = ['Transcoding completed in Tdarr', 'Transcoding abgeschlossen in Tdarr', '🎉 Tdarr'];
const STARTED = ['Transcoding started in Tdarr', 'Transcoding gestartet in Tdarr', '🚀 Tdarr'];
const PATH_FIELDS = ['📁 Path', '📁 Pfad', '📁'];

function firstEmbed(body: Payload): Payload | undefined {
  return objectsAt(body, 'embeds')?.[0];
}

/** A body of Tdarr's notification plugin: an embed whose footer is one of the plugin's own. */
export function isTdarrNotification(body: unknown): body is Payload {
  if (!isPlainObject(body)) return false;
  const footer = pathAt(objectAt(firstEmbed(body) ?? {}, 'footer'), 'text');
  return footer !== undefined && [...COMPLETED, ...STARTED].includes(footer);
}

export function tdarrNotification(body: Payload): TriggerResult {
  const embed = firstEmbed(body)!;
  const footer = pathAt(objectAt(embed, 'footer'), 'text')!;
  if (STARTED.includes(footer)) {
    return { kind: 'ignored', source: 'tdarr', event: 'Started', reason: 'Tdarr is starting to transcode the file; it is scanned when the "complete" notification comes' };
  }
  const field = (objectsAt(embed, 'fields') ?? []).find((f) => typeof f.name === 'string' && PATH_FIELDS.includes(f.name));
  const path = pathAt(field, 'value');
  if (path === undefined) return { kind: 'ignored', source: 'tdarr', event: 'Transcoded', reason: 'the Tdarr notification has no "📁 Path" field' };
  // The emoji language shortens the path to its last two names.
  if (path.startsWith('.../')) {
    return { kind: 'ignored', source: 'tdarr', event: 'Transcoded', reason: 'the Tdarr notification shows a shortened path: set the plugin\'s Language to english or german' };
  }
  return transcoded([path]);
}

/** `{"path": "<file>"}` or `{"paths": [...]}` from a Send Web Request flow. */
export function tdarrPaths(body: unknown): TriggerResult {
  if (isTdarrNotification(body)) return tdarrNotification(body);
  if (!isPlainObject(body)) return { kind: 'invalid', reason: 'the body is not a JSON object' };
  const one = pathAt(body, 'path');
  const many = Array.isArray(body.paths) ? body.paths.filter((p): p is string => typeof p === 'string' && p.trim() !== '') : [];
  const paths = one !== undefined ? [one, ...many] : many;
  if (paths.length === 0) return { kind: 'invalid', reason: 'send {"path": "<file Tdarr wrote>"}, or Tdarr\'s notification body' };
  return transcoded(paths);
}

function transcoded(paths: string[]): TriggerResult {
  // The file was replaced in place: the item is refreshed where the target's REFRESH_ITEMS asks for it.
  return {
    kind: 'scan',
    source: 'tdarr',
    event: 'Transcoded',
    requests: paths.map((path) => ({ path, source: 'tdarr', event: 'Transcoded', kind: 'file', refresh: 'item-if-enabled' })),
  };
}
