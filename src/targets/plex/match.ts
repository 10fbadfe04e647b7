// PLEX_FIX_MISMATCHED: after a scan, check that the show or movie Plex filed the new file under is the one
// Sonarr/Radarr named (their tvdb/tmdb/imdb IDs), and fix it when not: split a wrongly merged item first, find the
// right match through Plex's matches API, match it, refresh it. Works with the legacy agents
// ("com.plexapp.agents.thetvdb://ID?lang=…") and the current ones ("plex://…" with a Guid list of tvdb://, tmdb://,
// imdb://). PLEX_FIX_MISMATCHED_DRY_RUN only logs what would be done.
import { ACKNOWLEDGEMENT, PLEX_FILE_LOOKUP, PLEX_ITEM, PLEX_MATCHES } from '../../http/answer-caps.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../log/logger.js';
import type { PlexApi } from './api.js';

import type { ExternalIds } from '../../scan.js';

export type { ExternalIds };

export interface MatchRequest {
  /** The file as the media server names it. */
  file: string;
  /** The episode or movie the scan's confirmation found for the file. */
  ratingKey: string;
  /** The section the file is in: after a split the file may belong to a new item, found again by its path. */
  sectionId?: string;
  ids: ExternalIds;
}

export interface MatchSettings {
  /** PLEX_FIX_MISMATCHED_LANG. */
  lang: string;
  /** PLEX_FIX_MISMATCHED_DRY_RUN. */
  dryRun: boolean;
  clock: Clock;
  /** Plex needs a moment after a split before the new items can be read (plex_autoscan waited 10 s). */
  splitSettleMs?: number;
}

export type MatchOutcome =
  | { kind: 'validated'; ratingKey: string }
  | { kind: 'fixed'; ratingKey: string; guid: string; split: boolean }
  | { kind: 'dry-run'; ratingKey: string; guid?: string; split: boolean }
  /** Nothing to compare, no candidate, or Plex refused: the reason says which; the scan itself stands. */
  | { kind: 'skipped'; reason: string };

type IdKind = 'tvdb' | 'tmdb' | 'imdb';

interface Item {
  ratingKey: string;
  type: string;
  title: string;
  guid: string;
  /** External IDs Plex holds for the item (new agents' Guid list, or the legacy guid itself). */
  ids: Partial<Record<IdKind, string>>;
  grandparentRatingKey?: string;
  parentRatingKey?: string;
  locations: string[];
  files: string[];
}

const LEGACY = /^com\.plexapp\.agents\.(thetvdb|themoviedb|imdb):\/\/([^/?]+)/i;
const LEGACY_KIND: Record<string, IdKind> = { thetvdb: 'tvdb', themoviedb: 'tmdb', imdb: 'imdb' };
const LEGACY_AGENT: Record<IdKind, string> = { tvdb: 'thetvdb', tmdb: 'themoviedb', imdb: 'imdb' };

const folderOf = (path: string): string => path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')));
const under = (path: string, folder: string): boolean => {
  const f = folder.replace(/[/\\]+$/, '');
  return path === f || path.startsWith(`${f}/`) || path.startsWith(`${f}\\`);
};
/** IDs as compared: imdb's "tt" in any case, numeric IDs without leading zeros. */
const norm = (kind: IdKind, id: string): string => (kind === 'imdb' ? id.toLowerCase() : id.replace(/^0+(?=\d)/, ''));

export function isNewAgent(guid: string): boolean {
  return guid.startsWith('plex://');
}

function readItem(raw: Record<string, unknown>): Item {
  const guid = String(raw.guid ?? '');
  const ids: Partial<Record<IdKind, string>> = {};
  for (const g of Array.isArray(raw.Guid) ? (raw.Guid as { id?: unknown }[]) : []) {
    const m = /^(tvdb|tmdb|imdb):\/\/(.+)$/.exec(String(g.id ?? ''));
    if (m) ids[m[1] as IdKind] = m[2];
  }
  const legacy = LEGACY.exec(guid);
  if (legacy) ids[LEGACY_KIND[legacy[1].toLowerCase()]] = legacy[2];
  const media = Array.isArray(raw.Media) ? (raw.Media as { Part?: { file?: unknown }[] }[]) : [];
  return {
    ratingKey: String(raw.ratingKey),
    type: String(raw.type ?? ''),
    title: String(raw.title ?? ''),
    guid,
    ids,
    grandparentRatingKey: raw.grandparentRatingKey === undefined ? undefined : String(raw.grandparentRatingKey),
    parentRatingKey: raw.parentRatingKey === undefined ? undefined : String(raw.parentRatingKey),
    locations: (Array.isArray(raw.Location) ? (raw.Location as { path?: unknown }[]) : []).map((l) => String(l.path ?? '')).filter(Boolean),
    files: media.flatMap((m) => (m.Part ?? []).map((p) => String(p.file ?? ''))).filter(Boolean),
  };
}

export class MatchFixer {
  constructor(
    private readonly api: PlexApi,
    private readonly settings: MatchSettings,
    private readonly logger: Logger,
  ) {}

  private async item(ratingKey: string): Promise<Item | undefined> {
    const res = await this.api.request('GET', `/library/metadata/${encodeURIComponent(ratingKey)}`, PLEX_ITEM, { includeGuids: '1' });
    const body = (await res.json()) as { MediaContainer?: { Metadata?: Record<string, unknown>[] } };
    const raw = body.MediaContainer?.Metadata?.[0];
    return raw ? readItem(raw) : undefined;
  }

  private async itemOfFile(sectionId: string, file: string): Promise<string | undefined> {
    const res = await this.api.request('GET', `/library/sections/${encodeURIComponent(sectionId)}/all`, PLEX_FILE_LOOKUP, { file });
    const body = (await res.json()) as { MediaContainer?: { Metadata?: { ratingKey?: unknown; Media?: { Part?: { file?: unknown }[] }[] }[] } };
    const hit = (body.MediaContainer?.Metadata ?? []).find((m) => (m.Media ?? []).some((x) => (x.Part ?? []).some((p) => p.file === file)));
    return hit ? String(hit.ratingKey) : undefined;
  }

  /** The show of an episode (or season), the movie itself otherwise. */
  private async top(leaf: Item): Promise<Item | undefined> {
    const key = leaf.type === 'episode' ? leaf.grandparentRatingKey : leaf.type === 'season' ? leaf.parentRatingKey : undefined;
    return key ? this.item(key) : leaf;
  }

  /** Checks one scanned file's match and fixes it. Never throws: Plex errors become a skipped outcome and a warning. */
  async check(req: MatchRequest): Promise<MatchOutcome> {
    try {
      return await this.run(req);
    } catch (err) {
      const reason = `Plex refused a fix-mismatched call: ${(err as Error).message}`;
      this.logger.warn({ file: req.file }, `${reason}; the match of '${req.file}' was left as it is.`);
      return { kind: 'skipped', reason };
    }
  }

  private async run(req: MatchRequest): Promise<MatchOutcome> {
    const wanted = (['tvdb', 'tmdb', 'imdb'] as const).filter((k) => req.ids[k]);
    if (wanted.length === 0) return this.skip(req, 'the request carries no tvdb, tmdb or imdb ID', 'debug');
    let leaf = await this.item(req.ratingKey);
    if (!leaf) return this.skip(req, `Plex has no item ${req.ratingKey}`);
    let top = await this.top(leaf);
    if (!top) return this.skip(req, `Plex has no show for item ${req.ratingKey}`);

    let split = false;
    const merged = this.mergedFolders(req.file, leaf, top);
    if (merged.length > 0) {
      split = true;
      if (this.settings.dryRun) {
        this.logger.info({ file: req.file, ratingKey: top.ratingKey }, `Dry run: would split '${top.title}' (${top.ratingKey}), which also holds ${merged.map((f) => `'${f}'`).join(', ')}.`);
      } else {
        this.logger.info({ file: req.file, ratingKey: top.ratingKey }, `Splitting '${top.title}' (${top.ratingKey}): it also holds ${merged.map((f) => `'${f}'`).join(', ')}.`);
        await (await this.api.request('PUT', `/library/metadata/${encodeURIComponent(top.ratingKey)}/split`, ACKNOWLEDGEMENT)).body?.cancel();
        await this.settings.clock.sleep(this.settings.splitSettleMs ?? 10_000);
        leaf = await this.item(req.ratingKey);
        if (leaf && !leaf.files.includes(req.file) && req.sectionId) {
          const moved = await this.itemOfFile(req.sectionId, req.file);
          if (moved) leaf = await this.item(moved);
        }
        top = leaf && (await this.top(leaf));
        if (!leaf || !top) return this.skip(req, `item ${req.ratingKey} is gone after the split`);
      }
    }

    const verdict = this.compare(top, req.ids);
    if (verdict === 'unknown') return this.skip(req, `'${top.title}' (${top.guid}) carries none of the IDs the request has (${wanted.join(', ')})`, 'info');
    if (verdict === 'same') {
      this.logger.info({ file: req.file, ratingKey: top.ratingKey, guid: top.guid }, `Match validated for '${top.title}' (${top.ratingKey})${split ? ' after the split' : ''}.`);
      return { kind: 'validated', ratingKey: top.ratingKey };
    }

    const candidate = await this.candidate(top, req);
    const wrong = `Fixing match of '${top.title}' (${top.ratingKey}, ${top.guid}) for '${req.file}': the request names ${wanted.map((k) => `${k} ${req.ids[k]}`).join(', ')}`;
    if (!candidate) {
      const reason = `${wrong}, but Plex's matches list has no such item: fix the match in Plex by hand`;
      this.logger.warn({ file: req.file, ratingKey: top.ratingKey }, reason);
      return { kind: 'skipped', reason };
    }
    if (this.settings.dryRun) {
      this.logger.info({ file: req.file, ratingKey: top.ratingKey }, `Dry run: ${wrong}; would match it to '${candidate.name}' (${candidate.guid}) and refresh it.`);
      return { kind: 'dry-run', ratingKey: top.ratingKey, guid: candidate.guid, split };
    }
    this.logger.info({ file: req.file, ratingKey: top.ratingKey }, `${wrong}; matching it to '${candidate.name}' (${candidate.guid}).`);
    const key = encodeURIComponent(top.ratingKey);
    await (await this.api.request('PUT', `/library/metadata/${key}/match`, ACKNOWLEDGEMENT, { guid: candidate.guid, name: candidate.name })).body?.cancel();
    await (await this.api.request('PUT', `/library/metadata/${key}/refresh`, ACKNOWLEDGEMENT)).body?.cancel();
    return { kind: 'fixed', ratingKey: top.ratingKey, guid: candidate.guid, split };
  }

  /** Folders the item holds besides the scanned file's: other media of the movie/episode, other show locations. */
  private mergedFolders(file: string, leaf: Item, top: Item): string[] {
    const folder = folderOf(file);
    const others = new Set<string>();
    for (const f of leaf.files) if (!under(f, folder)) others.add(folderOf(f));
    if (top !== leaf && top.locations.length > 1) for (const l of top.locations) if (!under(file, l)) others.add(l);
    return [...others];
  }

  private compare(top: Item, ids: ExternalIds): 'same' | 'different' | 'unknown' {
    let result: 'same' | 'different' | 'unknown' = 'unknown';
    for (const k of ['tvdb', 'tmdb', 'imdb'] as const) {
      const want = ids[k];
      const have = top.ids[k];
      if (!want || !have) continue;
      if (norm(k, want) !== norm(k, have)) return 'different';
      result = 'same';
    }
    return result;
  }

  /** The item to match: searched by ID (new agents) or by title among the legacy agent's results. */
  private async candidate(top: Item, req: MatchRequest): Promise<{ guid: string; name: string } | undefined> {
    const key = encodeURIComponent(top.ratingKey);
    const results = async (query: Record<string, string>) => {
      const res = await this.api.request('GET', `/library/metadata/${key}/matches`, PLEX_MATCHES, { manual: '1', ...query });
      const body = (await res.json()) as { MediaContainer?: { SearchResult?: { guid?: unknown; name?: unknown }[] } };
      return (body.MediaContainer?.SearchResult ?? []).map((r) => ({ guid: String(r.guid ?? ''), name: String(r.name ?? '') })).filter((r) => r.guid);
    };
    if (isNewAgent(top.guid)) {
      // The current agents look an item up by "tvdb-123", "tmdb-123" or "imdb-tt123" typed as the title.
      for (const k of ['tvdb', 'tmdb', 'imdb'] as const) {
        const id = req.ids[k];
        if (!id) continue;
        const found = await results({ title: `${k}-${id}` });
        if (found.length > 0) return found[0];
      }
      return undefined;
    }
    const legacy = LEGACY.exec(top.guid);
    const kind = legacy ? LEGACY_KIND[legacy[1].toLowerCase()] : (['tvdb', 'tmdb', 'imdb'] as const).find((k) => req.ids[k]);
    const id = kind && req.ids[kind];
    if (!kind || !id) return undefined;
    const agent = `com.plexapp.agents.${LEGACY_AGENT[kind]}`;
    const found = await results({ agent, title: req.ids.title ?? top.title, language: this.settings.lang });
    const exact = found.find((r) => {
      const m = LEGACY.exec(r.guid);
      return m && LEGACY_KIND[m[1].toLowerCase()] === kind && norm(kind, m[2]) === norm(kind, id);
    });
    // A legacy agent takes the GUID as given even when its search does not list the item (plex_autoscan's way).
    return exact ?? { guid: `${agent}://${id.toLowerCase()}?lang=${this.settings.lang}`, name: req.ids.title ?? top.title };
  }

  private skip(req: MatchRequest, reason: string, level: 'debug' | 'info' | 'warn' = 'info'): MatchOutcome {
    this.logger[level]({ file: req.file }, `Match of '${req.file}' not checked: ${reason}.`);
    return { kind: 'skipped', reason };
  }
}
