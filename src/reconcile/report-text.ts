// A reconcile's report as lines for a terminal: per app, then per media server, the counts and the paths missing
// and unknown to the app, or why the app or the server could not be read, or why nothing was queued.
import type { AppReport } from './audit.js';

export function reportText(r: AppReport, opts: { dryRun: boolean; listed: number }): string {
  const out = [`${r.type} '${r.app}': ${r.error ? `could not be read: ${r.error}` : `${r.files} file(s)`}`];
  if (r.held) out.push(`  ${r.held}`);
  for (const t of r.targets) {
    if (t.error) {
      out.push(`  ${t.target}: could not be read: ${t.error}`);
      continue;
    }
    out.push(`  ${t.target}: ${t.files} file(s) of the app in its libraries, ${t.items} item(s); missing ${t.missing}, unknown to the app ${t.unknown}`);
    if (t.held) out.push(`    held back: ${t.held}`);
    list(out, 'missing', t.missingPaths, opts.listed);
    list(out, 'unknown to the app (never deleted)', t.unknownPaths, opts.listed);
  }
  const missing = r.targets.some((t) => t.missing > 0 && !t.held && !t.error);
  if (opts.dryRun && missing) out.push('  --dry-run: nothing was queued.');
  else if (r.queued) out.push(`  queued the folders of ${r.queued} missing file(s): a running scanrelay server on this queue file scans them.`);
  else if (!r.error && !r.held && r.targets.every((t) => !t.error && t.missing === 0)) out.push('  nothing missing.');
  return out.join('\n') + '\n';
}

function list(out: string[], label: string, paths: string[], listed: number): void {
  if (paths.length === 0) return;
  out.push(`    ${label}:`);
  for (const p of paths.slice(0, listed)) out.push(`      ${p}`);
  if (paths.length > listed) out.push(`      … and ${paths.length - listed} more (--all lists every one)`);
}
