// Collects the scan requests of one payload, in order, without duplicates.
import { parentFolder } from '../paths/folder.js';
import type { ScanRequest, Source } from '../request.js';
import { filePathOf, type Payload } from './payload.js';

const REFRESHING_EVENTS = new Set(['Rename', 'Upgrade']);
const REFRESHING_SOURCES = new Set<Source>(['sonarr', 'radarr', 'whisparr']);

export class ScanList {
  private readonly entries: ScanRequest[] = [];

  constructor(
    private readonly source: Source,
    private readonly event: string,
  ) {}

  file(path: string): this {
    return this.add({ path, kind: 'file' });
  }

  deletedFile(path: string): this {
    return this.add({ path, kind: 'file', deleted: true });
  }

  folder(path: string): this {
    return this.add({ path, kind: 'folder' });
  }

  deletedFolder(path: string): this {
    return this.add({ path, kind: 'folder', deleted: true });
  }

  /**
   * One file request per folder, naming the first file seen there: an album or season pack lands in
   * one or a few folders, and a scan is per folder, so one request each is enough.
   */
  filesByFolder(paths: Iterable<string>, deleted = false): this {
    const seen = new Set<string>();
    for (const path of paths) {
      const folder = parentFolder(path);
      if (seen.has(folder)) continue;
      seen.add(folder);
      if (deleted) this.deletedFile(path);
      else this.file(path);
    }
    return this;
  }

  /**
   * Each renamed file twice: the old name as deleted (it is gone) and the new one as a file. Both
   * fall back to `folder` + the relative forms for senders that only give those.
   */
  renamed(entries: Payload[], folder: string | undefined): this {
    for (const entry of entries) {
      const previous = filePathOf(entry, folder, 'previousPath', 'previousRelativePath');
      const current = filePathOf(entry, folder);
      if (previous !== undefined) this.deletedFile(previous);
      if (current !== undefined) this.file(current);
    }
    return this;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * A path that is both deleted and present in the same payload was replaced in place (an upgrade
   * that kept the file name): only the live request is kept, so the processor waits for the file.
   */
  requests(): ScanRequest[] {
    const live = new Set(this.entries.filter((r) => !r.deleted).map((r) => `${r.kind}\0${r.path}`));
    return this.entries.filter((r) => !r.deleted || !live.has(`${r.kind}\0${r.path}`));
  }

  private add(request: { path: string; kind: ScanRequest['kind']; deleted?: true }): this {
    const duplicate = this.entries.some(
      (r) => r.path === request.path && r.kind === request.kind && !!r.deleted === !!request.deleted,
    );
    if (duplicate) return this;
    const { path, kind, deleted } = request;
    const entry: ScanRequest = { path, source: this.source, event: this.event, kind };
    // Left out rather than false, so a request reads the same whether built here or by hand.
    if (deleted) entry.deleted = true;
    // A renamed or upgraded video keeps its item: a folder scan may not reread it, so its metadata is refreshed
    // where the target's REFRESH_ITEMS (or PLEX_REFRESH_ITEMS) asks for that.
    if (kind === 'file' && !deleted && REFRESHING_EVENTS.has(this.event) && REFRESHING_SOURCES.has(this.source)) entry.refresh = 'item-if-enabled';
    this.entries.push(entry);
    return this;
  }
}
