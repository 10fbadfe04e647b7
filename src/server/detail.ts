// A history detail on the dashboard: one sentence for people, the technical part behind a "details" toggle.
import { escapeHtml as h } from './page.js';

/**
 * A history detail: its first sentence for people, the technical rest behind "details". New details put a
 * line break between the two; older ones are cut after their first sentence (outside quoted paths).
 */
export function splitDetail(detail: string): { sentence: string; rest: string } {
  const nl = detail.indexOf('\n');
  if (nl >= 0) return { sentence: detail.slice(0, nl).trim(), rest: detail.slice(nl + 1).trim() };
  let quoted = false;
  for (let i = 0; i < detail.length - 1; i++) {
    if (detail[i] === "'") quoted = !quoted;
    if (!quoted && '.!?'.includes(detail[i]) && detail[i + 1] === ' ') return { sentence: detail.slice(0, i + 1), rest: detail.slice(i + 2).trim() };
  }
  return { sentence: detail, rest: '' };
}

export function detailBlock(detail: string, tone: string): string {
  const { sentence, rest } = splitDetail(detail);
  return `<p class="${tone}">${h(sentence)}</p>${rest ? `<details class="detail"><summary>details</summary><p class="muted">${h(rest)}</p></details>` : ''}`;
}
