/**
 * RFC 3339 date-times, as `expires_at` uses them (section 3: "The last time an approval of this
 * revision is accepted (RFC 3339)").
 *
 * Only RFC 3339 section 5.6 `date-time` is accepted: a full date, `T`, a full time and a time
 * offset that is required (`Z` or `+hh:mm` / `-hh:mm`). A time without an offset would mean a
 * different instant on the Personal Agent and the Company, and an expiry has to be one instant.
 * The letters `T` and `Z` may be lower case (RFC 3339 section 5.6, note on case; RFC 5234 strings
 * are case-insensitive). The "space instead of T" that the RFC allows applications to choose is
 * not accepted: the seed uses `T`, and a parser should not guess.
 *
 * Dates are checked as real dates (no February 30, leap years per the Gregorian calendar); a
 * leap second (`:60`) is accepted only where one can occur, 23:59:60 UTC on the last day of a
 * month (RFC 3339 section 5.7).
 *
 * The one clock. Every module that compares an RFC 3339 time with now (the operation parser, the
 * extension's queue and window, the decision signer and verifier, the agent SDK, the revision
 * diff) goes through `instantOf`, never `Date.parse`: `Date.parse` returns NaN for a leap second,
 * and a NaN deadline is one that never passes and never compares, so a prompt could be neither
 * expired nor decided. The rule for a leap second: `23:59:60.x` is read as `23:59:59.999` UTC, the
 * last millisecond POSIX time has before midnight, so it stays after every earlier instant and
 * before the next day.
 */
import { CountersignError } from './errors';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** What this module calls a valid value, in words. */
export const RFC3339_RULE = 'an RFC 3339 date-time with an offset, such as 2026-10-08T12:20:00-07:00 or 2026-10-08T19:20:00Z';

export type Rfc3339Check = { ok: true; epochMs: number } | { ok: false; reason: string };

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** 400 Gregorian years are exactly 146,097 days: shifting by them keeps every date valid. */
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

/** Milliseconds since the epoch of a UTC date and time; `Date.UTC` maps years 0-99 to 1900-1999, so shift first. */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  return Date.UTC(year + 400, month - 1, day, hour, minute, second, ms) - GREGORIAN_CYCLE_MS;
}

/** Check an RFC 3339 date-time and compute the instant it names. */
export function checkRfc3339(value: string): Rfc3339Check {
  const m = DATE_TIME.exec(value);
  if (m === null) return { ok: false, reason: `expected ${RFC3339_RULE}` };
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12) return { ok: false, reason: `expected ${RFC3339_RULE} (month ${mo} does not exist)` };
  if (day < 1 || day > daysInMonth(year, month)) {
    return { ok: false, reason: `expected ${RFC3339_RULE} (${MONTH_NAMES[month - 1]} ${year} has no day ${d})` };
  }
  if (hour > 23 || minute > 59 || second > 60) return { ok: false, reason: `expected ${RFC3339_RULE} (no time ${h}:${mi}:${s})` };
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHour = Number(oh);
    const offsetMinute = Number(om);
    if (offsetHour > 23 || offsetMinute > 59) return { ok: false, reason: `expected ${RFC3339_RULE} (no offset ${sign}${oh}:${om})` };
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  // Milliseconds are the first three digits of the fraction; further digits are below what an
  // expiry needs and are truncated, never rounded up past the stated instant.
  const ms = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const leap = second === 60;
  const epochMs = utcMs(year, month, day, hour, minute, leap ? 59 : second, ms) - offsetMinutes * 60_000;
  if (leap) {
    const asUtc = new Date(epochMs);
    const lastSecondOfMonth = asUtc.getUTCHours() === 23 && asUtc.getUTCMinutes() === 59 && new Date(epochMs + 1000).getUTCDate() === 1;
    if (!lastSecondOfMonth) {
      return { ok: false, reason: `expected ${RFC3339_RULE} (a leap second :60 can only be 23:59:60 UTC on the last day of a month)` };
    }
    // 23:59:60.x lies after 23:59:59.999 and before midnight; POSIX time has no name for it, so
    // it is counted as the last millisecond of the day, which keeps the order of instants.
    return { ok: true, epochMs: epochMs - ms + 999 };
  }
  return { ok: true, epochMs };
}

/**
 * The instant an RFC 3339 date-time names, in milliseconds since the epoch (leap seconds as
 * above). Throws ERR_OPERATION_INVALID for anything else, so a caller can never get NaN.
 */
export function instantOf(value: string): number {
  if (typeof value !== 'string') throw new CountersignError('ERR_OPERATION_INVALID', `expires_at: expected ${RFC3339_RULE}, got ${typeof value}`);
  const checked = checkRfc3339(value);
  if (!checked.ok) throw new CountersignError('ERR_OPERATION_INVALID', `expires_at: ${checked.reason}`);
  return checked.epochMs;
}

/**
 * `instantOf` for a deadline, failing closed: a value that names no instant counts as already
 * past, so whatever it guards (an approval, a prompt) ends rather than lives for ever.
 */
export function deadlineOf(value: string): number {
  try {
    return instantOf(value);
  } catch {
    return Number.NEGATIVE_INFINITY;
  }
}

export function isRfc3339(value: unknown): value is string {
  return typeof value === 'string' && checkRfc3339(value).ok;
}
