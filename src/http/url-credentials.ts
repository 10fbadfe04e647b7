// The user and password a person may write into a configured URL (http://user:pass@host, PLEX_LOCAL_URL or any
// TARGETS, NOTIFY, rclone or Google URL): split off before the URL is used, sent as HTTP Basic auth, and never
// shown. `shownUrl` is the one way a URL is rendered for a person (/health, the dashboard, log lines,
// notifications, error texts, the doctor, the CLI): a URL that still held its password would carry it into all of them.

export interface UrlCredentials {
  /** The URL as written, without `user:pass@`: where requests go and what every message shows. */
  url: string;
  /** `Basic base64(user:password)`, both percent-decoded; undefined when the URL names no user or password. */
  authorization?: string;
  /** What must never reach a log line: the password as written and decoded, user:password, the header's value. */
  secrets: string[];
}

/** `scheme://user:pass@`: the authority ends at the first / ? # or \ (WHATWG's URL parser), userinfo at its last @. */
const USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^\s/?#\\]*@/gi;

/** Splits `raw` into the URL without its userinfo and the Basic auth it asks for. A text that is no URL comes back as it is. */
export function splitUserinfo(raw: string): UrlCredentials {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { url: shownUrl(raw), secrets: [] };
  }
  if (parsed.username === '' && parsed.password === '') return { url: shownUrl(raw), secrets: [] };
  const user = decoded(parsed.username);
  const password = decoded(parsed.password);
  const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const secrets = [parsed.password, password, `${parsed.username}:${parsed.password}`, `${user}:${password}`, authorization.slice('Basic '.length)];
  return { url: shownUrl(raw), authorization, secrets: [...new Set(secrets.filter((s) => s !== '' && s !== ':'))] };
}

/** `text` with every URL in it rid of `user:pass@`: how a URL is shown anywhere. */
export function shownUrl(text: string): string {
  return text.replace(USERINFO, '$1');
}

/**
 * `headers` with the URL's Basic auth added, unless they carry an Authorization of their own (Jellyfin's
 * `MediaBrowser Token=…`, a Bearer token, a relay's USER and PASSWORD): a request carries one, and the call's
 * own is the one its server reads.
 */
export function withBasicAuth(headers: Record<string, string>, authorization: string | undefined): Record<string, string> {
  if (authorization === undefined || ownAuthorization(headers)) return headers;
  return { ...headers, Authorization: authorization };
}

/** Whether `headers` carry an Authorization header, in whatever case. */
export function ownAuthorization(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
}

/** RFC 3986 percent-decoding; a malformed escape is kept as written (Node does the same when it sends one). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
