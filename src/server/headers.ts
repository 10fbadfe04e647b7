// Security headers on every answer, a Content-Security-Policy for the pages, and the favicon browsers ask for.
// "Every answer" includes the ones Fastify and Node write themselves, before any hook could run: 414 (a path
// segment over maxParamLength), 400 (a URL that cannot be decoded), 503 while closing, and Node's own 431, 408
// and 400 for a request it could not parse.
import { hash } from 'node:crypto';
import type { Socket } from 'node:net';
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
      .map((m) => `'sha256-${hash('sha256', m[2], 'base64')}'`);
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
  // Set on Node's response before Fastify sees the request: the answers Fastify writes straight to it (414, 400 for
  // a bad URL, 503 while closing) keep them. Requests injected in tests skip the server; the hook below covers those.
  app.server.prependListener('request', (_req, res) => {
    for (const [name, value] of Object.entries(ALWAYS)) res.setHeader(name, value);
    res.setHeader('content-security-policy', NOTHING);
  });
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

/** What Node's parser refused, answered as Fastify's default would, with the headers every answer carries. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request timeout: the request was not received in time'],
};

/**
 * Fastify's `clientErrorHandler`: Node found a request it cannot parse (headers over its 16 KiB, a request that
 * took too long, a malformed one). The socket is closed after the answer, as Node's own handler does.
 */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody to answer; a response already under way cannot be followed by another.
  const busy = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code !== 'ECONNRESET' && socket.writable && !busy) {
    const [status, error] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'bad request: it could not be parsed as HTTP/1.1'];
    const body = JSON.stringify({ error });
    const headers = { ...ALWAYS, 'content-security-policy': NOTHING, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' };
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    // node:http from process.getBuiltinModule, not an ES import: an ES import builds node:http's whole namespace,
    // whose WebSocket export loads undici on Node 22 and 24 (measured: docs/performance.md, "Built-ins").
    socket.write(`HTTP/1.1 ${status} ${process.getBuiltinModule('node:http').STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
