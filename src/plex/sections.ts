// Which Plex sections hold a folder: the library list, cached, refreshed periodically and on a miss.
import type { Clock } from '../clock.js';
import { isInside } from '../paths/folder.js';
import type { PlexSection } from './api.js';

export interface SectionSource {
  sections(): Promise<PlexSection[]>;
}

export class SectionCache {
  private cached?: PlexSection[];
  private fetchedAt = -Infinity;

  constructor(
    private readonly source: SectionSource,
    private readonly clock: Clock,
    /** Refresh at least this often. */
    private readonly maxAgeMs = 5 * 60_000,
    /** Refresh on a miss at most this often, so an unmapped folder can't hammer Plex. */
    private readonly missRefreshMs = 30_000,
  ) {}

  async all(force = false): Promise<PlexSection[]> {
    const now = this.clock.now();
    if (force || !this.cached || now - this.fetchedAt > this.maxAgeMs) {
      this.cached = await this.source.sections();
      this.fetchedAt = now;
    }
    return this.cached;
  }

  /** Every section with a location containing `folder` at a path boundary (several libraries may share it). */
  async containing(folder: string): Promise<{ matches: PlexSection[]; all: PlexSection[] }> {
    let all = await this.all();
    let matches = sectionsContaining(all, folder);
    if (matches.length === 0 && this.clock.now() - this.fetchedAt > this.missRefreshMs) {
      all = await this.all(true);
      matches = sectionsContaining(all, folder);
    }
    return { matches, all };
  }
}

export function sectionsContaining(sections: PlexSection[], folder: string): PlexSection[] {
  return sections.filter((s) => s.locations.some((loc) => isInside(folder, loc)));
}
