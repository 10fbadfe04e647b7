// Which app sent a webhook, read from its User-Agent ("Sonarr/4.0.17.2952 (ubuntu 24.04)").
import type { Source } from '../request.js';
import { arrTriggers, lookalikes } from './arr-triggers.js';

// "sonarr|radarr|…|whisparr": the apps of the trigger table (their names are plain words).
const products = [...arrTriggers, ...lookalikes].map((app) => app.source).join('|');
const arrProduct = new RegExp(`(?:^|\\s)(${products})\\/\\S`, 'i');

/**
 * The User-Agent is the only thing telling Whisparr from Sonarr or Radarr, since it reuses their
 * payloads; `instanceName` is user-editable and so no evidence.
 */
export function sourceFromUserAgent(userAgent: string | undefined): Source | undefined {
  const match = userAgent === undefined ? null : arrProduct.exec(userAgent);
  return match ? (match[1]!.toLowerCase() as Source) : undefined;
}
