// Wall-clock time in a workspace's time zone (an IANA name such as America/New_York), on the
// platform's Intl time-zone data, which Node and browsers both carry: the weekday and minute of
// the day of an instant, the instant of a wall-clock time (daylight-saving changes included), and
// an instant written with its offset. Core stays pure and isomorphic: no library of its own.

export interface Wall {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  /** 0 (Sunday) – 6 */
  weekday: number;
  /** Minutes after midnight. */
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Whether `timeZone` names a time zone the platform knows (UTC, or an IANA name). */
export function isTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock in `timeZone` at instant `ms`, with the seconds. */
function parts(ms: number, timeZone: string): Wall & { second: number } {
  const p: Record<string, string> = {};
  for (const x of formatter(timeZone).formatToParts(new Date(ms))) p[x.type] = x.value;
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    weekday: WEEKDAYS.indexOf(p.weekday),
    minute: Number(p.hour) * 60 + Number(p.minute),
    second: Number(p.second),
  };
}

export function wallOf(ms: number, timeZone: string): Wall {
  const { second: _s, ...wall } = parts(ms, timeZone);
  return wall;
}

/** The zone's offset from UTC at instant `ms`, in minutes (New York in winter: -300). */
export function offsetAt(ms: number, timeZone: string): number {
  const p = parts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, Math.floor(p.minute / 60), p.minute % 60, p.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60000);
}

/**
 * The instant a wall-clock date and minute happen in `timeZone`. A time the clocks skip (the hour
 * lost when daylight saving starts) is taken an hour later; one they repeat, at its first time.
 */
export function instantOf(year: number, month: number, day: number, minute: number, timeZone: string): number {
  const naive = Date.UTC(year, month - 1, day, Math.floor(minute / 60), minute % 60);
  const guess = naive - offsetAt(naive, timeZone) * 60000;
  const better = naive - offsetAt(guess, timeZone) * 60000;
  const w = wallOf(better, timeZone);
  // The wall time exists: `better` is it. In a skipped hour it reads an hour early; the later guess is the time after the change.
  return w.minute === minute && w.day === day ? better : Math.max(guess, better);
}

/** The wall date `days` after the given one (calendar arithmetic, whatever the zone). */
export function addDays(year: number, month: number, day: number, days: number): { year: number; month: number; day: number } {
  const d = new Date(Date.UTC(year, month - 1, day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

const two = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of a wall date. */
export const dateText = (w: { year: number; month: number; day: number }) => `${w.year}-${two(w.month)}-${two(w.day)}`;

/** An instant as RFC 3339 with the zone's offset: `2026-12-04T18:45:00-05:00`. */
export function isoIn(ms: number, timeZone: string): string {
  const p = parts(ms, timeZone);
  const off = offsetAt(ms, timeZone);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${dateText(p)}T${two(Math.floor(p.minute / 60))}:${two(p.minute % 60)}:${two(p.second)}${off === 0 && timeZone === 'UTC' ? 'Z' : `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`}`;
}
