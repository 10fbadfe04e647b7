// Which watched files count: WATCH INCLUDE/EXCLUDE regular expressions, tried on the file's full path.

export class PathFilter {
  private readonly include: RegExp[];
  private readonly exclude: RegExp[];

  constructor(include: string[] = [], exclude: string[] = []) {
    this.include = include.map((r) => new RegExp(r));
    this.exclude = exclude.map((r) => new RegExp(r));
  }

  /** Excluded when any EXCLUDE matches; otherwise kept when INCLUDE is empty or any INCLUDE matches. */
  accepts(path: string): boolean {
    if (this.exclude.some((r) => r.test(path))) return false;
    return this.include.length === 0 || this.include.some((r) => r.test(path));
  }
}
