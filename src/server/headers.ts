// Security headers on every answer, a Content-Security-Policy for the pages, and the favicon browsers ask for.
import { rule } from './access.js';
import type { FastifyInstance } from 'fastify';

/** What every answer carries: no MIME sniffing, no referrer (the secret is in the URL), no framing. */
const ALWAYS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;

/** Non-HTML answers load nothing at all. */
const NOTHING = "default-src 'none'; frame-ancestors 'none'";

/**
 * The policy of one page: its own origin only, and of inline code only the exact <script> and <style> blocks
 * the page was rendered with (their hashes). Inline event handlers, javascript: URLs, other origins, plugins,
 * framing and form posts elsewhere are all refused by the browser.
 */
export function pagePolicy(html: string): string {
  // Inline blocks only (with or without attributes such as type="module"); a script with src= loads from 'self'.
  const hashes = (tag: string) =>
    [...html.matchAll(new RegExp(`<${tag}(\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))]
      .filter((m) => !/\ssrc\s*=/i.test(m[1] ?? ''))
      .map((m) => `'sha256-${process.getBuiltinModule('node:crypto').hash('sha256', m[2], 'base64')}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes('script').join(' ')}`.trim(),
    `style-src 'self' ${hashes('style').join(' ')}`.trim(),
    "img-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A small SVG icon: the browser's /favicon.ico request gets an answer instead of a 401 and a log line. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f6fde"/><path d="M8 22l6-6-6-6M16 22h8" stroke="#fff" stroke-width="3" fill="none" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export function securityHeaders(app: FastifyInstance): void {
  // Callback style, not async: it runs on every answer, and a promise per hook is measurable under load.
  app.addHook('onSend', (_req, reply, payload, done) => {
    reply.headers(ALWAYS);
    const type = String(reply.getHeader('content-type') ?? '');
    const html = type.startsWith('text/html') && typeof payload === 'string';
    reply.header('content-security-policy', html ? pagePolicy(payload) : NOTHING);
    done(null, payload);
  });
  app.get('/favicon.ico', { schema: { hide: true }, ...rule('public') }, async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(FAVICON),
  );
}
