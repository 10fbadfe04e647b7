// What a browser may do: state-changing POSTs only from scanrelay's own pages (Sec-Fetch-Site / Origin) or as
// JSON; pages carry a CSP that allows exactly their own inline blocks, nosniff and no-referrer. In Chromium
// (when installed) a real cross-site form post is refused while the pages keep working under the CSP.
import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET, testService, type TestService } from '../support/service.js';
import { chromiumPages } from '../support/chromium.js';

let t: TestService;
let base: string;
beforeEach(async () => {
  t = await testService();
  base = await t.service.listen(0, '127.0.0.1');
});
afterEach(async () => t.close());

/** A raw POST, so that browser-only headers (Sec-Fetch-Site, Origin) can be set exactly. */
function rawPost(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const manual = (n: number) => 'eventType=Manual&filepath=' + encodeURIComponent(`/mnt/unionfs/Media/tv/S${n}/e.mkv`);

describe('cross-site POSTs', () => {
  it('a form post another site makes (Sec-Fetch-Site cross-site or same-site, foreign or null Origin) is refused with 403', async () => {
    const host = new URL(base).host;
    const refused: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' },
      { 'sec-fetch-site': 'same-site', origin: 'http://other.lan' },
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `http://${host}.evil.example` },
    ];
    for (const headers of refused) {
      for (const [path, body, type] of [
        [`/${SECRET}`, manual(1), FORM],
        [`/${SECRET}`, JSON.stringify({ eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/S1/e.mkv' }), { 'content-type': 'text/plain' }],
        [`/${SECRET}/dashboard/drop`, 'folder=/x', FORM],
        [`/api/${SECRET}`, 'cmd=queue_count', FORM],
      ] as const) {
        const res = await rawPost(path, { ...type, ...headers }, body);
        expect(res.status, `${JSON.stringify(headers)} ${path}`).toBe(403);
        expect(JSON.parse(res.body).error).toMatch(/cross-site request refused/);
      }
    }
    expect(t.service.queue.count()).toBe(0);
  });

  it('same-origin forms, typed-in requests, JSON and non-browser clients (arr apps, curl) are let through', async () => {
    const host = new URL(base).host;
    const allowed: [Record<string, string>, string, Record<string, string>][] = [
      [{ 'sec-fetch-site': 'same-origin', origin: base }, manual(1), FORM],
      [{ 'sec-fetch-site': 'none' }, manual(2), FORM],
      [{ origin: `http://${host}` }, manual(3), FORM],
      [{}, manual(4), FORM], // curl, Tdarr, a script
      [{ 'sec-fetch-site': 'cross-site', origin: 'http://evil.example' }, JSON.stringify({ eventType: 'Manual', filepath: '/mnt/unionfs/Media/tv/S5/e.mkv' }), { 'content-type': 'application/json' }],
    ];
    for (const [headers, body, type] of allowed) {
      const res = await rawPost(`/${SECRET}`, { ...type, ...headers }, body);
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
    expect(t.service.queue.count()).toBe(5);
  });
});

describe('security headers', () => {
  const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;

  it('pages: CSP default-src self and frame-ancestors none, allowing exactly their inline blocks; nosniff; no-referrer', async () => {
    for (const page of ['', '/dashboard', '/doctor', '/doctor?path=/x']) {
      const res = await fetch(`${base}/${SECRET}${page}`);
      expect(res.status, page).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      const html = await res.text();
      for (const [, tag, content] of html.matchAll(/<(script|style)(?:\s[^>]*)?>([\s\S]*?)<\/\1>/g)) {
        const directive = csp.split('; ').find((d) => d.startsWith(`${tag}-src `))!;
        expect(directive, `${page} ${tag}`).toContain(hash(content));
      }
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('a block with attributes (type="module") is hashed too; a script with src= is left to default-src', async () => {
    const { pagePolicy } = await import('../../src/server/headers.js');
    const csp = pagePolicy('<script type="module">go()</script><script src="x.js"></script><style media="print">a{}</style>');
    expect(csp).toContain(`script-src 'self' ${hash('go()')}`);
    expect(csp).not.toContain(hash(''));
    expect(csp).toContain(`style-src 'self' ${hash('a{}')}`);
  });

  it('JSON answers, errors and /health load nothing and are not sniffed either', async () => {
    for (const url of [`${base}/health`, `${base}/api/${SECRET}/queue`, `${base}/wrong`, `${base}/metrics`]) {
      const res = await fetch(url);
      expect(res.headers.get('content-security-policy'), url).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), url).toBe('no-referrer');
    }
  });
});


describe('in Chromium', () => {
  let attacker: Server;
  afterEach(async () => new Promise((r) => attacker?.close(r)));

  it('a cross-site auto-submitting form queues nothing; the manual page works under its CSP', async () => {
    // Another origin (another port) serving a page that posts to scanrelay as soon as it loads.
    attacker = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form id="f" method="post" action="${base}/${SECRET}"><input name="eventType" value="Manual"><input name="filepath" value="/mnt/unionfs/Media/tv/Evil/e.mkv"></form><script>document.getElementById('f').submit()</script>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const address = attacker.address() as { port: number };
    const browser = await chromiumPages();
    try {
      const page = await browser.newPage();
      const answer = page.waitForResponse((r) => r.url().startsWith(base) && r.request().method() === 'POST');
      await page.goto(`http://127.0.0.1:${address.port}/`);
      expect((await answer).status()).toBe(403);
      expect(t.service.queue.count()).toBe(0);

      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      await page.goto(`${base}/${SECRET}`);
      // The page's own inline script ran (it fills in these links) and its style applied.
      await expect.poll(() => page.locator('a[data-below="dashboard"]').getAttribute('href')).toBe(`/${SECRET}/dashboard`);
      await page.getByLabel('Path to scan').fill('/mnt/unionfs/Media/tv/Good/e.mkv');
      await page.getByRole('button', { name: 'Scan' }).click();
      await expect.poll(() => page.locator('.outcome').textContent()).toContain('Folder to scan: /data/media/tv/Good');
      expect(errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
