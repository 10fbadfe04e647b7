// The fake Plex's fix-mismatched side: /library/metadata/{key} with its Guid list, …/matches, and PUT …/match,
// …/split and …/refresh on shows, episodes and movies that tests set up (legacy and current agents).
import type { ServerResponse } from 'node:http';
import { json, type RecordedRequest } from './plex.js';

/** A show, season, episode or movie as /library/metadata/{key} describes it (fix-mismatched). */
export interface FakeMetadata {
  ratingKey: string;
  type: 'show' | 'season' | 'episode' | 'movie';
  title: string;
  /** "com.plexapp.agents.thetvdb://123?lang=en" (legacy agents) or "plex://show/…" (current agents). */
  guid: string;
  /** The current agents' external IDs ("tvdb://123", "tmdb://4", "imdb://tt5"), sent with ?includeGuids=1. */
  guids?: string[];
  parentRatingKey?: string;
  grandparentRatingKey?: string;
  /** A show's folders. */
  locations?: string[];
  /** An episode's or movie's files. */
  files?: string[];
}

/** What GET /library/metadata/{key}/matches can offer; PUT …/match copies guid, name and guids onto the item. */
export interface FakeMatchCandidate {
  guid: string;
  name: string;
  year?: number;
  guids?: string[];
}

export class FakeMetadataRoutes {
  /** Items by ratingKey. */
  readonly metadata = new Map<string, FakeMetadata>();
  readonly matchCandidates: FakeMatchCandidate[] = [];

  constructor(
    private readonly newKey: () => string,
    private readonly requests: () => RecordedRequest[],
    /** Tells the file-lookup side which item a file belongs to after a split. */
    private readonly moved: (file: string, ratingKey: string) => void,
  ) {}

  addMetadata(m: Omit<FakeMetadata, 'ratingKey'> & { ratingKey?: string }): FakeMetadata {
    const item = { ...m, ratingKey: m.ratingKey ?? String(this.newKey()) };
    this.metadata.set(item.ratingKey, item);
    return item;
  }

  /** The PUT calls on /library/metadata/{key}/{split,match,refresh}, as "split 1001" or "match 1001 <guid>". */
  get metadataCalls(): string[] {
    return this.requests()
      .filter((r) => r.method === 'PUT' && /^\/library\/metadata\/[^/]+\/(split|match|refresh)$/.test(r.path))
      .map((r) => {
        const [, , , key, action] = r.path.split('/');
        return action === 'match' ? `match ${key} ${r.query.guid}` : `${action} ${key}`;
      });
  }

  /** The fix-mismatched routes; false when the request is not one of them. */
  handle(method: string, u: URL, res: ServerResponse): boolean {
    const m = /^\/library\/metadata\/([^/]+)(?:\/(matches|match|split|refresh))?$/.exec(u.pathname);
    if (!m) return false;
    const [, key, action] = m;
    const item = this.metadata.get(key);
    if (!item) return false; // items of the scan/analyze routes live in `library`
    if (!action && method === 'GET') {
      const withGuids = u.searchParams.get('includeGuids') === '1';
      json(res, {
        MediaContainer: {
          size: 1,
          Metadata: [
            {
              ratingKey: item.ratingKey,
              type: item.type,
              title: item.title,
              guid: item.guid,
              ...(withGuids && item.guids?.length ? { Guid: item.guids.map((id) => ({ id })) } : {}),
              ...(item.parentRatingKey ? { parentRatingKey: item.parentRatingKey } : {}),
              ...(item.grandparentRatingKey ? { grandparentRatingKey: item.grandparentRatingKey } : {}),
              ...(item.locations ? { Location: item.locations.map((path) => ({ path })) } : {}),
              ...(item.files ? { Media: item.files.map((file) => ({ Part: [{ file }] })) } : {}),
            },
          ],
        },
      });
      return true;
    }
    if (action === 'matches' && method === 'GET') {
      const title = u.searchParams.get('title') ?? '';
      const agent = u.searchParams.get('agent');
      const byId = /^(tvdb|tmdb|imdb)-(.+)$/.exec(title);
      const legacy = agent?.startsWith('com.plexapp.agents.') ? agent : undefined;
      const found = this.matchCandidates.filter((c) => {
        if (legacy ? !c.guid.startsWith(`${legacy}://`) : !c.guid.startsWith('plex://')) return false;
        if (byId) return !legacy && (c.guids ?? []).includes(`${byId[1]}://${byId[2]}`);
        return c.name.toLowerCase().includes(title.toLowerCase());
      });
      json(res, { MediaContainer: { size: found.length, SearchResult: found.map((c) => ({ guid: c.guid, name: c.name, year: c.year, score: 100 })) } });
      return true;
    }
    if (method !== 'PUT') return false;
    if (action === 'match') {
      const guid = u.searchParams.get('guid') ?? '';
      if (!guid) {
        res.writeHead(400).end();
        return true;
      }
      const c = this.matchCandidates.find((x) => x.guid === guid);
      item.guid = guid;
      item.title = u.searchParams.get('name') ?? c?.name ?? item.title;
      item.guids = c?.guids ?? [];
    } else if (action === 'split') {
      this.split(item);
    }
    res.writeHead(200).end();
    return true;
  }

  /** Every folder but the first becomes an item of its own; a show's episodes follow their folder. */
  private split(item: FakeMetadata): void {
    const folderOf = (f: string) => f.slice(0, f.lastIndexOf('/'));
    if (item.type === 'movie') {
      const folders = [...new Set((item.files ?? []).map(folderOf))];
      for (const folder of folders.slice(1)) {
        const part = this.addMetadata({ ...item, ratingKey: undefined, files: item.files!.filter((f) => folderOf(f) === folder) });
        for (const f of part.files ?? []) this.moved(f, part.ratingKey);
        item.files = item.files!.filter((f) => folderOf(f) !== folder);
      }
      return;
    }
    for (const location of (item.locations ?? []).slice(1)) {
      const show = this.addMetadata({ ...item, ratingKey: undefined, locations: [location] });
      for (const e of this.metadata.values()) {
        if (e.grandparentRatingKey === item.ratingKey && (e.files ?? []).some((f) => f.startsWith(`${location}/`))) e.grandparentRatingKey = show.ratingKey;
      }
    }
    item.locations = item.locations?.slice(0, 1);
  }
}
