// The HTML of the manual scan page: one path input, a plain form POST, works without JavaScript.

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** The head every page shares: phone-sized viewport, no referrer (the URL holds the secret), inline style. */
export function documentHead(title: string, style: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>scanrelay — ${escapeHtml(title)}</title>
<style>${style}</style>
</head>`;
}

export type PageName = 'Manual scan' | 'Dashboard' | 'Path doctor';
const PAGES: [PageName, string][] = [
  ['Manual scan', './'],
  ['Dashboard', 'dashboard'],
  ['Path doctor', 'doctor'],
];

/** The header's look, in every page's stylesheet. */
export const HEADER_STYLE = `
  header { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; justify-content: space-between; margin-bottom: 1rem; font-size: .9375rem; }
  header h1 { font-size: 1.3rem; margin: 0; } nav a { margin-right: .8rem; } a { color: var(--accent); }
  nav a[aria-current] { font-weight: 600; color: inherit; }
`;

/**
 * The one header of the manual page, the dashboard and the path doctor: the name, the three pages with the
 * current one marked, and `extra` (the dashboard's live state). A page at /<SERVER_PASS> itself (`atPass`, no
 * trailing slash) cannot link relatively without losing the secret: LINK_SCRIPT builds its links from the
 * address bar, so the secret is never written into the page.
 */
export function pageHeader(current: PageName, opts: { atPass?: boolean; extra?: string } = {}): string {
  const links = PAGES.map(([label, href]) => {
    const mark = label === current ? ' aria-current="page"' : '';
    if (!opts.atPass) return `<a href="${href}"${mark}>${label}</a>`;
    return href === './' ? `<a href=""${mark}>${label}</a>` : `<a data-below="${href}" href="#"${mark}>${label}</a>`;
  });
  return `<header><h1>scanrelay</h1><nav aria-label="scanrelay pages">${links.join('')}</nav>${opts.extra ?? ''}</header>`;
}

const LINK_SCRIPT = `
  for (const a of document.querySelectorAll('a[data-below]')) a.href = location.pathname.replace(/[/]+$/, '') + '/' + a.dataset.below;
`;

export interface PageOutcome {
  ok: boolean;
  title: string;
  lines: string[];
}

/** The manual page's look, which the page at / (front-page.ts) shares. */
export const PAGE_STYLE = `
  :root { color-scheme: light dark; --accent: #2f6fde; }
  * { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; padding: 1rem; max-width: 46rem; margin-inline: auto; }
  label { display: block; font-weight: 600; margin-bottom: .25rem; }
  input[type=text], input[type=password] { width: 100%; padding: .6rem; font: inherit; border: 1px solid #8889; border-radius: .4rem; }
  button { margin-top: .75rem; padding: .6rem 1.2rem; font: inherit; border: 0; border-radius: .4rem; background: var(--accent); color: #fff; cursor: pointer; }
  .outcome { margin-top: 1.25rem; padding: .75rem 1rem; border-radius: .4rem; border-left: .3rem solid; }
  .ok { border-color: #2a9d4b; background: #2a9d4b1a; } .err { border-color: #c93c3c; background: #c93c3c1a; }
  .outcome p { margin: .2rem 0; overflow-wrap: anywhere; } code { font-size: .95em; overflow-wrap: anywhere; }
  .hint { color: #888; font-size: .9rem; }
  ${HEADER_STYLE}
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  label.box { font-weight: normal; margin-top: .5rem; }
`;

export function manualPage(opts: { outcome?: PageOutcome; value?: string }): string {
  const outcome = opts.outcome
    ? `<section class="outcome ${opts.outcome.ok ? 'ok' : 'err'}" role="status" aria-live="polite">
        <strong>${escapeHtml(opts.outcome.title)}</strong>
        ${opts.outcome.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}
      </section>`
    : '';
  return `${documentHead('manual scan', PAGE_STYLE)}
<body>
${pageHeader('Manual scan', { atPass: true })}
<main>
  <h2>Manual scan</h2>
  <form method="post" action="">
    <input type="hidden" name="eventType" value="Manual">
    <label for="filepath">Path to scan</label>
    <input type="text" id="filepath" name="filepath" required autocomplete="off"
      placeholder="/mnt/unionfs/Media/Movies/Movie Name (2024)/" value="${escapeHtml(opts.value ?? '')}">
    <p class="hint">A file or a folder, in any form your path mappings cover (container, mount or drive path).</p>
    <label class="box"><input type="checkbox" name="libraryRoot" value="true"> Scan the whole library if this is a library's own folder</label>
    <p class="hint">Left unticked, a library's own folder (say <code>/tv/</code>) is not scanned: the media servers would rescan the whole library. History then says <em>refused</em>.</p>
    <button type="submit">Scan</button>
  </form>
  ${outcome}
  <noscript><p class="hint">Dashboard and path doctor: add <code>/dashboard</code> or <code>/doctor</code> to this page's address.</p></noscript>
</main>
<script>${LINK_SCRIPT}</script>
</body>
</html>`;
}

/**
 * What a browser gets at /<SERVER_PASS> while manual scans are off: the URL the banner printed, said to be the
 * webhook URL, with how to turn the manual page on and the way to the dashboard.
 */
export function manualOffPage(): string {
  return `${documentHead('webhook URL', PAGE_STYLE)}
<body>
${pageHeader('Manual scan', { atPass: true })}
<main>
  <h2>Webhook URL</h2>
  <p>This address is scanrelay's webhook URL: give it to Sonarr, Radarr and Lidarr (Settings → Connect → + → Webhook, method POST).</p>
  <p>Manual scans from this page are off. To use it, set <code>"SERVER_ALLOW_MANUAL_SCAN": true</code> in config.json and restart scanrelay.</p>
  <noscript><p class="hint">Dashboard and path doctor: add <code>/dashboard</code> or <code>/doctor</code> to this page's address.</p></noscript>
</main>
<script>${LINK_SCRIPT}</script>
</body>
</html>`;
}
