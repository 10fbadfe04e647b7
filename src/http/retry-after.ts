// A server's Retry-After header read as a wait (RFC 9110 §10.2.3): delay-seconds or an HTTP-date, in any of the
// three date forms a recipient must accept (§5.6.7). Anything else is no answer at all, so the caller backs off as
// it would without the header rather than trust a value it cannot read.

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAYS = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = '([A-Za-z]{3})';
/** IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT", the form servers must send. */
const IMF_FIXDATE = new RegExp(`^${DAYS}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** The obsolete RFC 850 form: "Sunday, 06-Nov-94 08:49:37 GMT". */
const RFC_850 = new RegExp(`^${LONG_DAYS}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** The obsolete asctime() form, in UTC: "Sun Nov  6 08:49:37 1994". */
const ASCTIME = new RegExp(`^${DAYS} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`);

/**
 * How many ms from `now` the server asked to be left alone, or undefined when the value is missing, unreadable,
 * or asks for no wait (0 seconds, a date not after `now`).
 */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return seconds > 0 && Number.isSafeInteger(seconds) ? seconds * 1000 : undefined;
  }
  const at = httpDate(text, now);
  return at !== undefined && at > now ? at - now : undefined;
}

/** An HTTP-date as ms since the epoch, or undefined when it is in none of the three forms or names no real day. */
export function httpDate(text: string, now: number): number | undefined {
  let m = IMF_FIXDATE.exec(text);
  if (m) return utc(Number(m[3]), m[2], Number(m[1]), m[4], m[5], m[6]);
  m = RFC_850.exec(text);
  if (m) return utc(fullYear(Number(m[3]), now), m[2], Number(m[1]), m[4], m[5], m[6]);
  m = ASCTIME.exec(text);
  if (m) return utc(Number(m[6]), m[1], Number(m[2].trim()), m[3], m[4], m[5]);
  return undefined;
}

/** RFC 850's two-digit year: one that would be more than 50 years ahead is the most recent past such year (§5.6.7). */
function fullYear(yy: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear();
  let year = Math.floor(thisYear / 100) * 100 + yy;
  if (year > thisYear + 50) year -= 100;
  return year;
}

function utc(year: number, month: string, day: number, hh: string, mm: string, ss: string): number | undefined {
  const m = MONTHS.indexOf(month.toLowerCase());
  const [h, min, s] = [Number(hh), Number(mm), Number(ss)];
  if (m < 0 || h > 23 || min > 59 || s > 60) return undefined;
  const at = Date.UTC(year, m, day, h, min, Math.min(s, 59));
  // Date.UTC rolls "31 Feb" over into March; such a date names no day.
  return new Date(at).getUTCDate() === day ? at : undefined;
}
