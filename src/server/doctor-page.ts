// The HTML of the path doctor: a form for one path, and every step scanrelay would take with it.
import type { AppRoots } from '../arr/roots.js';
import type { Explanation } from '../doctor/explain.js';
import { appRootsSection } from './apps-section.js';
import { reconcileDoctorSection } from './reconcile-section.js';
import type { ReconcileView } from '../reconcile/schedule.js';
import { badge, layout } from './dashboard-page.js';
import { escapeHtml as h, pageHeader } from './page.js';

function mappingText(m: { from: string; to: string; rule?: string } | null): string {
  if (!m) return 'none matched';
  return `${m.rule !== undefined ? `rule <strong>${h(m.rule)}</strong> ` : ''}<code>${h(m.from)}</code> → <code>${h(m.to)}</code>`;
}

function explanationHtml(e: Explanation): string {
  const steps: string[] = [];
  steps.push(`<li><strong>Path mapping</strong> (SERVER_PATH_MAPPINGS, ${e.mapping.configured} form(s)): ${mappingText(e.mapping.match)}<br>Result: <code>${h(e.mapping.result)}</code></li>`);
  steps.push(`<li><strong>Ignore list</strong> (SERVER_IGNORE_LIST: ${e.ignore.list.map((s) => `<code>${h(s)}</code>`).join(', ') || 'empty'}): ${e.ignore.matchedBy !== null ? `<span class="badge b-bad">ignored</span> the path contains <code>${h(e.ignore.matchedBy)}</code>` : 'not ignored'}</li>`);
  if (e.verdict !== 'ignored') {
    const f = e.fileExist;
    steps.push(`<li><strong>File check</strong> (SERVER_FILE_EXIST_PATH_MAPPINGS: ${mappingText(f.match)}): <code>${h(f.path)}</code> ${f.state === 'missing' ? badge('missing') : `<span class="badge b-ok">exists (${h(f.state)})</span>`}${f.checked ? '' : ' <span class="muted">(SERVER_MAX_FILE_CHECKS is 0: not waited for)</span>'}</li>`);
    steps.push(`<li><strong>Folder to scan</strong>: <code>${h(e.folder)}</code> <span class="muted">(the path is a ${e.kind}; priority ${e.priority})</span></li>`);
    const targets = e.targets.map((t) => {
      const libs = t.matches?.length
        ? t.matches.map((l) => `in <strong>${h(l.title)}</strong>: ${l.locations.map((x) => `<code>${h(x)}</code>`).join(', ')}`).join('<br>')
        : t.matches
          ? `no library holds it. Libraries: ${t.known.map((l) => `${h(l.title)} ${l.locations.map((x) => `<code>${h(x)}</code>`).join(', ')}`).join('; ') || 'none'}`
          : '';
      return `<li>${h(t.name)} <span class="muted">${h(t.kind)}</span> ${badge(t.verdict === 'scan' ? 'would scan' : t.verdict)}: <code>${h(t.path)}</code>${t.rewrite ? ` <span class="muted">(rewritten ${mappingText(t.rewrite)})</span>` : ''}
        ${t.excluded ? `<p class="err">${h(t.excluded)}</p>` : ''}${t.error ? `<p class="err">${h(t.error)}</p>` : ''}${libs ? `<br>${libs}` : ''}${t.scan ? `<p class="muted">${h(t.scan)}</p>` : ''}</li>`;
    });
    steps.push(`<li><strong>Media servers</strong>${targets.length ? `<ul>${targets.join('')}</ul>` : ': none configured'}</li>`);
  }
  const candidates = e.candidates.length
    ? `<h3>Closest known prefixes</h3><ul>${e.candidates.map((c) => `<li><code>${h(c.prefix)}</code> <span class="muted">${h(c.where)}, ${c.distance} edit(s) away</span></li>`).join('')}</ul>`
    : '';
  const suggestion = e.suggestion
    ? `<h3>Suggested mapping</h3><p>Add this entry to the <code>SERVER_PATH_MAPPINGS</code> already in config.json, keeping every entry there (a second <code>SERVER_PATH_MAPPINGS</code> key would replace the first), then restart:</p><pre id="suggestion">${h(e.suggestion.entry)}</pre><p>The key then reads:</p><pre id="merged">${h(e.suggestion.merged)}</pre>`
    : '';
  return `<section aria-labelledby="result-h" id="explanation">
    <h2 id="result-h">Every step for <code>${h(e.input)}</code></h2>
    <ol class="steps">${steps.join('')}</ol>
    <p class="verdict ${e.verdict === 'scan' ? 'v-scan' : 'v-other'}" role="status" id="verdict"><strong>${h(e.verdict)}</strong>: ${h(e.summary)}</p>
    ${candidates}${suggestion}
  </section>`;
}

export function doctorPage(opts: { path?: string; explanation?: Explanation; error?: string; apps?: AppRoots[]; reconcile?: ReconcileView }): string {
  return layout(
    'path doctor',
    `${pageHeader('Path doctor')}
<main>
  <h2>Path doctor</h2>
  <p>Type a path as Sonarr, Radarr, Lidarr, the manual page or Google Drive sends it, and see what scanrelay would do with it. Nothing is queued.</p>
  <form class="ask" method="get" action="doctor">
    <label for="path">Path to explain</label>
    <input type="text" id="path" name="path" required autocomplete="off" value="${h(opts.path ?? '')}" placeholder="/tv/Show Name/Season 01/Show Name - S01E01.mkv">
    <button type="submit">Explain</button>
  </form>
  ${opts.error ? `<p class="held" role="alert">${h(opts.error)}</p>` : ''}
  ${opts.explanation ? explanationHtml(opts.explanation) : ''}
  ${appRootsSection(opts.apps)}
  ${reconcileDoctorSection(opts.reconcile)}
</main>`,
  );
}
