// Path arithmetic that works for both POSIX and Windows-style paths, without touching the disk:
// the paths we handle belong to other machines (the arr's container, the media server).

/** The separator a path uses: backslash for Windows forms ("D:\\Media" or "\\\\nas\\share"), else slash. */
export function separatorOf(path: string): '/' | '\\' {
  if (path.includes('\\') && !path.includes('/')) return '\\';
  if (/^[A-Za-z]:\\/.test(path) || path.startsWith('\\\\')) return '\\';
  return '/';
}

/** Removes trailing separators, keeping a root ("/", "C:\\") intact. */
export function trimTrailingSeparator(path: string): string {
  let p = path;
  while (p.length > 1 && (p.endsWith('/') || p.endsWith('\\'))) {
    const candidate = p.slice(0, -1);
    if (/^[A-Za-z]:$/.test(candidate)) break;
    p = candidate;
  }
  return p;
}

/** The folder holding `path` (its parent). "/tv/Show/S01/e.mkv" -> "/tv/Show/S01". */
export function parentFolder(path: string): string {
  const p = trimTrailingSeparator(path);
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  if (i < 0) return p;
  if (i === 0) return p.slice(0, 1);
  const parent = p.slice(0, i);
  if (/^[A-Za-z]:$/.test(parent)) return parent + p[i];
  // "/a//b" has the parent "/a", not "/a/".
  return trimTrailingSeparator(parent) || p.slice(0, 1);
}

/** Joins a base folder and a relative path with the base's own separator. */
export function joinPath(base: string, relative: string): string {
  const sep = separatorOf(base);
  const rel = relative.replace(/^[\\/]+/, '');
  const normalisedRel = sep === '\\' ? rel.replace(/\//g, '\\') : rel.replace(/\\/g, '/');
  return trimTrailingSeparator(base) + sep + normalisedRel;
}

/** Do two stretches of path name the same thing: Windows forms (backslashes) compare case-insensitively, as Windows does. */
export function sameForm(a: string, b: string, form: string): boolean {
  return separatorOf(form) === '\\' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/**
 * True when `path` equals `folder` or lies inside it, compared at a path boundary. The one containment rule:
 * library sections, path mappings, target rewrites and INCLUDE/EXCLUDE all use it.
 */
export function isInside(path: string, folder: string): boolean {
  const f = trimTrailingSeparator(folder);
  const p = trimTrailingSeparator(path);
  if (p.length < f.length || !sameForm(p.slice(0, f.length), f, f)) return false;
  if (p.length === f.length) return true;
  if (f.endsWith('/') || f.endsWith('\\')) return true; // root
  const next = p[f.length];
  return next === '/' || next === '\\';
}

/** Do two paths name the same folder: trailing separators aside, compared as isInside compares. */
export function sameFolder(a: string, b: string): boolean {
  return isInside(a, b) && isInside(b, a);
}

/** The last segment of a path. */
export function baseName(path: string): string {
  const p = trimTrailingSeparator(path);
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}
