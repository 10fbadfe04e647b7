// docs/performance.md as `npm run bench -- --write-docs` leaves it: the tables of the benchmarks that ran are
// replaced (or added, in the benchmarks' order), every other section is kept as it was: the tables of benchmarks
// not run this time (`--only`), and the sections written by hand (the suite, the notes, the history).

/** A benchmark's section: "## 11. Jellyfin scans". */
const BENCH_HEADING = /^## (\d+)\. /;

/** The document's sections, each from its "## " heading to the next (what comes before the first is left out). */
function sections(doc: string): string[] {
  const starts = [...doc.matchAll(/^## /gm)].map((m) => m.index);
  return starts.map((at, i) => doc.slice(at, starts[i + 1] ?? doc.length));
}

/**
 * The new document: `preamble`, then one section per benchmark id of `order` (the fresh one where it ran, else the
 * one `previous` had), then the other sections of `previous` in their order. Each section ends in one blank line.
 */
export function performanceDoc(previous: string, preamble: string, fresh: ReadonlyMap<string, string>, order: readonly string[]): string {
  const kept = new Map<string, string>();
  const others: string[] = [];
  for (const part of sections(previous)) {
    const id = BENCH_HEADING.exec(part)?.[1];
    if (id !== undefined && order.includes(id)) kept.set(id, part);
    else others.push(part);
  }
  const tidy = (s: string) => `${s.trimEnd()}\n`;
  const benches = order.flatMap((id) => {
    const s = fresh.get(id) ?? kept.get(id);
    return s === undefined ? [] : [tidy(s)];
  });
  return [tidy(preamble), ...benches, ...others.map(tidy)].join('\n');
}
