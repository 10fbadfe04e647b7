// The token rclone stores: Go's JSON of oauth2.Token (access_token, token_type, refresh_token,
// expiry in RFC 3339 with the local offset), built from a Google token-endpoint response.
import type { TokenResponse } from '../google/token-endpoint.js';
import { goJson } from './gojson.js';

/** Go's time.RFC3339Nano in the machine's local zone: trailing fraction zeros trimmed, "Z" for UTC. */
export function goTime(date: Date): string {
  const offsetMinutes = -date.getTimezoneOffset();
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const iso = local.toISOString(); // the local wall clock, labelled Z
  const [base, fraction] = iso.slice(0, -1).split('.');
  const trimmed = (fraction ?? '').replace(/0+$/, '');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const zone =
    offsetMinutes === 0 ? 'Z' : `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${base}${trimmed ? `.${trimmed}` : ''}${zone}`;
}

/** The token line of rclone.conf for a fresh token-endpoint response received at `now`. */
export function tokenJson(response: TokenResponse, now: Date = new Date()): string {
  if (!response.access_token) throw new Error('server response missing access_token');
  const seconds = Number(response.expires_in ?? 0);
  const expiry = seconds > 0 ? goTime(new Date(now.getTime() + seconds * 1000)) : '0001-01-01T00:00:00Z';
  // Go's oauth2.Token field order; token_type and refresh_token are left out when empty.
  const token: Record<string, string> = { access_token: response.access_token };
  if (response.token_type) token.token_type = response.token_type;
  if (response.refresh_token) token.refresh_token = response.refresh_token;
  token.expiry = expiry;
  return goJson(token);
}

/** Whether text parses as a token as rclone's config_token step accepts it (any JSON object). */
export function looksLikeToken(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
