// A server's library list as every target keeps it: read once, trusted for five minutes, read again sooner when a
// folder is in none of its libraries (one may have been added), one read at a time however many ask.
import type { Clock } from '../clock.js';
import { isInside } from '../paths/folder.js';
import type { Library } from '../scan.js';

/** How long a list is trusted. */
const MAX_AGE_MS = 5 * 60_000;
/** A folder in no library reads the list again, but not more often than this, so an unmapped folder can't hammer the server. */
const MISS_AGE_MS = 30_000;

export class LibraryList<L extends Library = Library> {
  private list?: { libraries: L[]; at: number };
  private reading?: Promise<L[]>;

  constructor(
    private readonly read: () => Promise<L[]>,
    private readonly clock: Clock,
  ) {}

  /** The Target's `libraries` capability (src/scan.ts). */
  async get(ask: { fresh?: boolean; holding?: string } = {}): Promise<L[]> {
    const age = this.list ? this.clock.now() - this.list.at : Infinity;
    if (ask.fresh || age >= MAX_AGE_MS) return this.readNow();
    const libraries = this.list!.libraries;
    if (ask.holding !== undefined && age >= MISS_AGE_MS && holders(libraries, ask.holding).length === 0) return this.readNow();
    return libraries;
  }

  /** The list as last read, without reading it: undefined before the first read. */
  known(): L[] | undefined {
    return this.list?.libraries;
  }

  /** The libraries holding `folder` (the deepest location first) and the whole list, for an "unmatched" message. */
  async holding(folder: string): Promise<{ holders: L[]; all: L[] }> {
    const all = await this.get({ holding: folder });
    return { holders: holders(all, folder), all };
  }

  private readNow(): Promise<L[]> {
    this.reading ??= this.read()
      .then((libraries) => {
        this.list = { libraries, at: this.clock.now() };
        return libraries;
      })
      .finally(() => (this.reading = undefined));
    return this.reading;
  }
}

/** The libraries with a location holding `folder` at a path boundary, the deepest location first. */
export function holders<L extends Library>(libraries: L[], folder: string): L[] {
  const depth = (l: Library) => Math.max(...l.locations.filter((loc) => isInside(folder, loc)).map((loc) => loc.length));
  return libraries.filter((l) => l.locations.some((loc) => isInside(folder, loc))).sort((a, b) => depth(b) - depth(a));
}

/** Every location of a list, for an "unmatched" message. */
export function knownLocations(libraries: Library[]): string {
  const all = libraries.flatMap((l) => l.locations);
  return all.length ? all.join(', ') : 'none';
}
