/**
 * HTTP-date (RFC 9110 §5.6.7): the three formats a recipient must accept, parsed strictly.
 * `Date.parse` is not used: it accepts almost anything ("2020", "1", "Tue") and would turn a
 * malformed conditional header into a comparison instead of the contract's 400.
 *
 * @module
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAY = "(Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MON = `(${MONTHS.join("|")})`;
const TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MON} (\\d{4}) ${TIME} GMT$`);
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MON}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME = new RegExp(`^${DAY} ${MON} ([ \\d]\\d) ${TIME} (\\d{4})$`);
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function build(
  weekday: string,
  year: number,
  month: string,
  day: number,
  [h, m, s]: number[],
): number | null {
  if (h > 23 || m > 59 || s > 60) return null;
  const ms = Date.UTC(year, MONTHS.indexOf(month), day, h, m, Math.min(s, 59));
  const date = new Date(ms);
  // Rejects day 31 of a 30-day month and a weekday that does not belong to the date.
  if (date.getUTCDate() !== day || date.getUTCFullYear() !== year) return null;
  if (WEEKDAYS[date.getUTCDay()] !== weekday.slice(0, 3)) return null;
  return Math.floor(ms / 1000);
}

/**
 * Parses an HTTP-date to seconds since the epoch, or `null` when it is not one.
 *
 * @param now Current time in ms, to place RFC 850's two-digit years (RFC 9110: a year more than
 * 50 years in the future is in the previous century).
 * @example Usage
 * ```ts
 * import { parseHttpDate } from "./http_date.ts";
 * parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"); // 784111777
 * parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"); // 784111777
 * parseHttpDate("Sun Nov  6 08:49:37 1994"); // 784111777
 * parseHttpDate("yesterday"); // null
 * ```
 */
export function parseHttpDate(value: string, now: number = Date.now()): number | null {
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    return build(m[1], Number(m[4]), m[3], Number(m[2]), [m[5], m[6], m[7]].map(Number));
  }
  m = RFC850.exec(value);
  if (m) {
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(m[4]);
    if (year > thisYear + 50) year -= 100;
    return build(m[1], year, m[3], Number(m[2]), [m[5], m[6], m[7]].map(Number));
  }
  m = ASCTIME.exec(value);
  if (m) {
    return build(m[1], Number(m[7]), m[2], Number(m[3].trim()), [m[4], m[5], m[6]].map(Number));
  }
  return null;
}

/**
 * Formats a time as IMF-fixdate.
 *
 * @example Usage
 * ```ts
 * import { formatHttpDate } from "./http_date.ts";
 * formatHttpDate(new Date(784111777000)); // "Sun, 06 Nov 1994 08:49:37 GMT"
 * ```
 */
export function formatHttpDate(date: Date): string {
  return date.toUTCString();
}
