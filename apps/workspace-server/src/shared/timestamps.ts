import { fullFormats } from 'ajv-formats/dist/formats.js';

/**
 * The one statement of which dates and timestamps the API takes: what RFC 3339 writes and the
 * store holds. RFC 3339 allows year 0000 and UTC offsets up to ±23:59; PostgreSQL's timestamptz
 * has no year 0 and refuses offsets beyond ±15:59 ("time zone displacement out of range"), and the
 * API writes every timestamp back as RFC 3339 (`toISOString`), which has four-digit years. So a
 * timestamp is an RFC 3339 date-time (a real calendar day) with an offset of at most ±15:59 whose
 * instant, in UTC, falls in the years 0001–9999; a date is a real `YYYY-MM-DD` day in those years.
 *
 * Request schemas say which a field is with the `x-stored` keyword (validation.ts); the store's
 * own parsers (transaction dates, a deal's expected close date) read the same functions.
 */
export type StoredKind = 'date-time' | 'date' | 'date-or-date-time';

export const MAX_OFFSET_MINUTES = 15 * 60 + 59;
/** Milliseconds since the epoch of a UTC time (Date.UTC would read years 0–99 as 1900–1999; 60 seconds roll over). */
export const utc = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => {
  const t = new Date(0);
  t.setUTCFullYear(y, mo - 1, d);
  t.setUTCHours(h, mi, s, 0);
  return t.getTime();
};
/** The first instant and the instant after the last one the API takes. */
const EARLIEST = utc(1, 1, 1);
const AFTER_LAST = utc(10000, 1, 1);

const RANGE_WORDS = 'from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z';
const validator = (f: unknown) => (f as { validate: (s: string) => boolean }).validate;
/** ajv-formats' full RFC 3339 checks (real calendar days, leap seconds at 23:59 UTC only): the same as the `date-time` format. */
const isRfc3339DateTime = validator(fullFormats['date-time']);
const isRfc3339Date = validator(fullFormats.date);
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|([+-])(\d{2})(?::?(\d{2}))?)$/;

/** Why `v` is not a timestamp the API takes, or null. */
export function timestampProblem(v: string): string | null {
  const m = DATE_TIME.exec(v);
  if (!m) return 'must be an RFC 3339 timestamp (e.g. 2026-03-02T10:00:00Z)';
  if (!isRfc3339DateTime(v)) return 'must be a real day and time of day (RFC 3339)';
  const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0));
  if (Math.abs(offset) > MAX_OFFSET_MINUTES) return 'has a UTC offset beyond ±15:59';
  const at = utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) - offset * 60_000;
  if (at < EARLIEST || at >= AFTER_LAST) return `must be a timestamp ${RANGE_WORDS}`;
  return null;
}

/** Why `v` is not a date the API takes, or null. */
export function dateProblem(v: string): string | null {
  if (!isRfc3339Date(v) || v.startsWith('0000')) return 'must be a real day as YYYY-MM-DD, from 0001-01-01 to 9999-12-31';
  return null;
}

/** Why `v` is not a value of `kind`, or null. */
export function storedProblem(kind: StoredKind, v: string): string | null {
  if (kind === 'date') return dateProblem(v);
  if (kind === 'date-time') return timestampProblem(v);
  if (/^\d{4}-\d{2}-\d{2}$/.test(v))
    return dateProblem(v) && 'must be a real day as YYYY-MM-DD or an RFC 3339 timestamp, from 0001-01-01 to 9999-12-31';
  const p = timestampProblem(v);
  return p && (p.startsWith('must be an RFC 3339') ? 'must be an RFC 3339 timestamp or YYYY-MM-DD' : p);
}

/**
 * A date or timestamp (`date-or-date-time`) as the instant it names, in RFC 3339 UTC: a date is
 * midnight UTC of that day. Null when it is not one the API takes.
 */
export function storedInstant(v: string): string | null {
  if (storedProblem('date-or-date-time', v)) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T00:00:00.000Z`;
  const m = DATE_TIME.exec(v)!;
  const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0));
  const frac = /\.(\d+)/.exec(v.slice(19));
  const ms = frac ? Math.floor(Number(`0.${frac[1]}`) * 1000) : 0;
  return new Date(utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) - offset * 60_000 + ms).toISOString();
}

/**
 * An inclusive bound of a time filter at the store's precision. RFC 3339 allows any number of
 * fractional digits; timestamptz holds microseconds and rounds a finer value to the nearest one,
 * so a bound 0.4 µs before a row (`created_before`) rounded to the row's microsecond and took it
 * in, and one 0.4 µs after it (`created_after`, `updated_after`) rounded down to it. Every stored
 * instant is a whole microsecond, so `at <= v` is exactly `at <= floor(v)` and `at >= v` exactly
 * `at >= ceil(v)`: an upper bound is cut to six digits, a lower bound that had more goes up to the
 * next microsecond (`infinity` past the last one the store holds). `v` has passed timestampProblem.
 */
export function microsecondBound(v: string, round: 'down' | 'up'): string {
  const m = DATE_TIME.exec(v);
  const frac = /^\.(\d+)/.exec(v.slice(19))?.[1] ?? '';
  if (!m || frac.length <= 6) return v;
  const kept = frac.slice(0, 6);
  const cut = `${v.slice(0, 20)}${kept}${v.slice(20 + frac.length)}`;
  if (round === 'down' || !/[1-9]/.test(frac.slice(6))) return cut;
  const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8] ?? 0) * 60 + Number(m[9] ?? 0));
  const micros = BigInt(utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]) - offset * 60_000) * 1000n + BigInt(kept) + 1n;
  const ms = Number(micros / 1000n);
  if (ms >= AFTER_LAST) return 'infinity';
  return new Date(ms).toISOString().replace('Z', `${String(micros % 1000n).padStart(3, '0')}Z`);
}
