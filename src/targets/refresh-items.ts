// Which targets can refresh an item's metadata, whether each wants to for a request, and the call that does it,
// built from the same config as the targets (the first Plex, TARGETS plex/plex-scanner with a token, Jellyfin, Emby).
import type { Config, TargetConfig } from '../config/schema.js';
import { PlexApi } from '../plex/api.js';
import { refreshPlexItems } from '../plex/refresh-item.js';
import type { ScanRequest } from '../scan.js';
import { emby } from './emby.js';
import type { ItemRefreshResult } from './item-refresh.js';
import { jellyfin } from './jellyfin.js';
import { refreshMediaBrowserItems } from './mediabrowser-items.js';
import { exclusionOf, rewritePath } from './rewrite.js';

export type { ItemRefreshResult } from './item-refresh.js';

export interface ItemRefresher {
  /** 'item' (asked for by the sender): yes. 'item-if-enabled' (Rename, Upgrade): the target's REFRESH_ITEMS, else PLEX_REFRESH_ITEMS. */
  wants(flag: ScanRequest['refresh']): boolean;
  /** `file` as the queue holds it (after SERVER_PATH_MAPPINGS); the target's own PATH_MAPPINGS, INCLUDE and EXCLUDE apply. */
  refresh(file: string): Promise<ItemRefreshResult>;
}

/** By target name (the delivery key). Targets that cannot refresh items are absent. */
export function buildItemRefreshers(config: Config, deps: { fetch?: typeof fetch } = {}): Map<string, ItemRefresher> {
  const out = new Map<string, ItemRefresher>();
  const wants = (enabled: boolean) => (flag: ScanRequest['refresh']) => flag === 'item' || (flag === 'item-if-enabled' && enabled);
  if (config.PLEX_ENABLED && config.PLEX_TOKEN && config.PLEX_LOCAL_URL) {
    const api = new PlexApi({ url: config.PLEX_LOCAL_URL, token: config.PLEX_TOKEN, fetch: deps.fetch });
    out.set('plex', { wants: wants(config.PLEX_REFRESH_ITEMS), refresh: (file) => refreshPlexItems(api, file) });
  }
  for (const t of config.TARGETS) {
    if (t.ENABLED === false) continue;
    const call = refreshCall(t, config, deps);
    if (!call) continue;
    out.set(t.NAME, {
      wants: wants(t.REFRESH_ITEMS ?? config.PLEX_REFRESH_ITEMS),
      async refresh(file) {
        const own = rewritePath(file, t.PATH_MAPPINGS);
        const excluded = exclusionOf([file, own], t.INCLUDE, t.EXCLUDE);
        return excluded ? { status: 'not-found', detail: excluded } : call(own);
      },
    });
  }
  return out;
}

function refreshCall(t: TargetConfig, config: Config, deps: { fetch?: typeof fetch }): ((file: string) => Promise<ItemRefreshResult>) | undefined {
  switch (t.TYPE) {
    case 'plex':
    case 'plex-scanner': {
      const url = t.URL || config.PLEX_LOCAL_URL;
      const token = t.TOKEN || (t.TYPE === 'plex-scanner' ? config.PLEX_TOKEN : '');
      if (!url || !token) return undefined;
      const api = new PlexApi({ url, token, fetch: deps.fetch });
      return (file) => refreshPlexItems(api, file);
    }
    case 'jellyfin':
    case 'emby': {
      const flavour = t.TYPE === 'jellyfin' ? jellyfin : emby;
      return (file) => refreshMediaBrowserItems(flavour, { name: t.NAME, url: t.URL ?? '', token: t.TOKEN ?? '', fetch: deps.fetch }, file);
    }
    default:
      return undefined;
  }
}
