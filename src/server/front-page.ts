// GET / (no secret): where the pages are. A browser opened at the bare address (the Unraid WebUI button, a
// bookmark of host:port) learns that the dashboard is at /<SERVER_PASS>/dashboard and where SERVER_PASS is
// written, rather than meeting a 401 (and the log a WARN). The page holds no secret and reveals nothing else.
import type { FastifyPluginAsync } from 'fastify';
import { rule } from './access.js';
import type { AppDeps } from './deps.js';
import { documentHead, escapeHtml as h, PAGE_STYLE } from './page.js';

// The typed secret becomes the address, never a form field sent anywhere (the input has no name).
const OPEN_SCRIPT = `
  const form = document.getElementById('open');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const pass = document.getElementById('pass').value.trim();
    if (pass) location.href = form.dataset.base + encodeURIComponent(pass) + '/dashboard';
  });
`;

export function frontPage(basePath: string): string {
  const base = `${basePath}/`;
  return `${documentHead('where the pages are', PAGE_STYLE)}
<body>
<header><h1>scanrelay</h1></header>
<main>
  <p>scanrelay is running. Its pages are behind its secret, <code>SERVER_PASS</code>:</p>
  <ul>
    <li>Dashboard: <code>${h(base)}&lt;SERVER_PASS&gt;/dashboard</code></li>
    <li>Path doctor: <code>${h(base)}&lt;SERVER_PASS&gt;/doctor</code></li>
    <li>Webhook URL for Sonarr, Radarr and Lidarr: <code>${h(base)}&lt;SERVER_PASS&gt;</code></li>
  </ul>
  <p><code>SERVER_PASS</code> is in config.json (in the container <code>/config/config.json</code>; on Unraid
  <code>/mnt/user/appdata/scanrelay/config.json</code>), and the start-up banner prints the whole dashboard URL at
  every start (the container's log, or the terminal that runs <code>scanrelay server</code>).</p>
  <form id="open" data-base="${h(base)}">
    <label for="pass">SERVER_PASS</label>
    <input type="password" id="pass" autocomplete="off" required>
    <button type="submit">Open the dashboard</button>
  </form>
  <p class="hint">Typed here, it only becomes the address of the dashboard; it is sent nowhere else.</p>
</main>
<script>${OPEN_SCRIPT}</script>
</body>
</html>`;
}

export const frontPageRoutes: FastifyPluginAsync<AppDeps> = async (app, deps) => {
  // Written when first asked for: most relays never are.
  let page: string | undefined;
  app.get('/', { schema: { hide: true }, ...rule('public') }, async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send((page ??= frontPage(deps.basePath ?? ''))),
  );
};
