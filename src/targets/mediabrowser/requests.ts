// Every request the Jellyfin and Emby modules send, as templates: method, path template and query names, the
// names read from the same functions that build the queries. test/targets/jellyfin-sdk-conformance.test.ts checks
// each against @jellyfin/sdk's generated client, so a request added here, or a query name added to a builder,
// meets the check; that test also checks every request the real target sent the model server.
import { itemPathsQuery, newestFilesQuery } from './confirm.js';
import { pathQuery } from './emby-paths.js';
import { childFilesQuery } from './file-items.js';
import { fileItemsQuery, ITEM_REFRESH_QUERY } from './items.js';
import { libraryFilesQuery } from './library-files.js';
import { childrenQuery } from './locate.js';
import { refreshQuery, type ServerKind } from './scan-plan.js';

export interface RequestTemplate {
  method: 'GET' | 'POST';
  /** Path with its parameters in braces. */
  template: string;
  query: string[];
  /** What sends it. */
  from: string;
  /** Why the request is sent though the server's own API has no such operation. */
  exception?: string;
}

export function mediaBrowserRequests(kind: ServerKind, librariesPath: string): RequestTemplate[] {
  return [
    { method: 'GET', template: '/System/Info/Public', query: [], from: 'mediabrowser/target.ts available()' },
    { method: 'GET', template: librariesPath, query: [], from: `${kind}.ts librariesPath` },
    { method: 'POST', template: '/Library/Media/Updated', query: [], from: 'mediabrowser/scan.ts, SCAN_METHOD media-updated' },
    { method: 'GET', template: '/Items', query: Object.keys(childrenQuery('p', 0, 1)), from: 'mediabrowser/locate.ts childrenQuery' },
    { method: 'GET', template: '/Items', query: Object.keys(childFilesQuery('p', 0, 1)), from: 'mediabrowser/file-items.ts childFilesQuery (which files are items)' },
    { method: 'POST', template: '/Items/{itemId}/Refresh', query: Object.keys(refreshQuery(kind)), from: 'mediabrowser/scan-plan.ts refreshQuery' },
    { method: 'GET', template: '/Items', query: Object.keys(fileItemsQuery('p', 0, 1)), from: 'mediabrowser/items.ts fileItemsQuery' },
    { method: 'POST', template: '/Items/{itemId}/Refresh', query: Object.keys(ITEM_REFRESH_QUERY), from: 'mediabrowser/items.ts refreshMediaBrowserItem' },
    { method: 'GET', template: '/Items', query: Object.keys(libraryFilesQuery('p', 0, 1)), from: 'mediabrowser/library-files.ts libraryFilesQuery (the reconcile)' },
    { method: 'GET', template: '/Items', query: Object.keys(itemPathsQuery(['i'])), from: 'mediabrowser/confirm.ts itemPathsQuery (the items a LibraryChanged named)' },
    { method: 'GET', template: '/Items', query: Object.keys(newestFilesQuery('p', 0, 1)), from: 'mediabrowser/confirm.ts newestFilesQuery (a folder with no item of its own)' },
    ...(kind === 'jellyfin' ? [{ method: 'GET' as const, template: '/Users/Me', query: [], from: 'mediabrowser/follower.ts jellyfinTokenHasUser' }] : []),
    ...(kind === 'emby' ? [{ method: 'GET' as const, template: '/Items', query: Object.keys(pathQuery('p')), from: 'emby-paths.ts pathQuery (an item by its path)' }] : []),
    {
      method: 'POST',
      template: '/Library/ScanPath',
      query: [],
      from: 'mediabrowser/plugin.ts, SCAN_METHOD auto',
      exception: 'the Targeted Scans plugin’s route (d3v1l1989/targeted-scans), used only when the server answers it',
    },
    {
      method: 'POST',
      template: '/Library/ScanPaths',
      query: [],
      from: 'mediabrowser/plugin.ts, SCAN_METHOD auto, several paths at once',
      exception: 'the Targeted Scans plugin’s batch route (d3v1l1989/targeted-scans), used only when the server answers ScanPath',
    },
  ];
}
