// The image's health check (the Dockerfile's HEALTHCHECK, deploy/compose.yaml's healthcheck): asks /health?ready
// on the address and port the server listens on, found as the server finds them: SERVER_PORT and SERVER_IP (or
// their _FILE) in the environment, else config.json's, else 3468 on every address. Exit 0 when ready, else 1.
// Plain node:http, no fetch: Node's fetch compiles a WebAssembly parser first, tens of MB for one request.
//
//   node /app/healthcheck.mjs [config.json]      default /config/config.json
import { readFileSync } from 'node:fs';
import { get } from 'node:http';

const configFile = process.argv[2] ?? '/config/config.json';

/** config.json's keys, or none when it cannot be read yet (the first start writes it). */
function fileKeys() {
  try {
    const text = readFileSync(configFile, 'utf8');
    const keys = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return keys && typeof keys === 'object' ? keys : {};
  } catch {
    return {};
  }
}

/** A key's value from its variable (JSON, or the raw text), its _FILE's file, or config.json. */
function setting(key, fromFile) {
  const raw = process.env[key];
  if (raw) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  const file = process.env[`${key}_FILE`];
  if (file) {
    try {
      const text = readFileSync(file, 'utf8').replace(/[\r\n]+$/, '');
      return /^\d+$/.test(text) ? Number(text) : text;
    } catch {
      return undefined;
    }
  }
  return fromFile[key];
}

const keys = fileKeys();
const port = Number(setting('SERVER_PORT', keys) ?? 3468);
const ip = String(setting('SERVER_IP', keys) ?? '0.0.0.0');
// Listening on every address: ask the loopback one of the same family.
const host = ip === '0.0.0.0' || ip === '' ? '127.0.0.1' : ip === '::' ? '::1' : ip;

const req = get({ host, port, path: '/health?ready', timeout: 4000 }, (res) => {
  res.resume();
  process.exit(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300 ? 0 : 1);
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', () => process.exit(1));
