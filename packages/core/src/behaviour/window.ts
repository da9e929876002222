// Send windows and fixed trigger times, in workspace time: whether a moment (a weekday and a minute
// of the day) is inside an automation's send window, when the window next opens, and the moments a
// time-fixed trigger fires at (a schedule's cron, a date trigger's time of day).
import type { FlowSettings } from './flow.js';

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MINUTES_A_DAY = 1440;

export const clock = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;

/** Whether the settings hold sends to a window (of minutes or of days). */
export const hasWindow = (s: FlowSettings) => s.windowStart !== undefined || s.days !== undefined;

/** Whether a minute of the day is inside the window's minutes (a window past midnight wraps). */
export function inWindowMinutes(s: FlowSettings, minute: number): boolean {
  if (s.windowStart === undefined || s.windowEnd === undefined) return true;
  return s.windowStart < s.windowEnd ? minute >= s.windowStart && minute < s.windowEnd : minute >= s.windowStart || minute < s.windowEnd;
}

/** Whether a weekday (0 Sunday) and minute of the day are inside the send window. */
export function inWindow(s: FlowSettings, day: number, minute: number): boolean {
  return (s.days === undefined || s.days.includes(day)) && inWindowMinutes(s, minute);
}

/** The window in words: `09:00–19:00, Monday to Friday`. */
export function windowWords(s: FlowSettings): string {
  const time = s.windowStart !== undefined && s.windowEnd !== undefined ? `${clock(s.windowStart)}–${clock(s.windowEnd)}` : 'any time';
  if (!s.days) return `${time}, every day`;
  const days = [...s.days].sort((a, b) => a - b);
  const run = days.every((d, i) => i === 0 || d === days[i - 1] + 1);
  const names =
    run && days.length > 2 ? `${DAY_NAMES[days[0]]} to ${DAY_NAMES[days[days.length - 1]]}` : days.map((d) => DAY_NAMES[d]).join(', ');
  return `${time}, ${names}`;
}

/** Minutes from (day, minute) until the window next opens there (0 when inside), or undefined when it never does. */
export function minutesUntilOpen(s: FlowSettings, day: number, minute: number): number | undefined {
  if (inWindow(s, day, minute)) return 0;
  // Step to each next minute the window could open at: its start, or midnight of an allowed day.
  for (let wait = 1; wait <= 8 * MINUTES_A_DAY; wait++) {
    const total = minute + wait;
    const m = total % MINUTES_A_DAY;
    if ((m === s.windowStart || m === 0 || s.windowStart === undefined) && inWindow(s, (day + Math.floor(total / MINUTES_A_DAY)) % 7, m))
      return wait;
  }
  return undefined;
}

/** One cron field's values (numbers, `*`, lists, ranges, steps); undefined for what we do not read. */
function cronField(field: string, min: number, max: number): number[] | undefined {
  const out = new Set<number>();
  for (const part of field.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] !== undefined ? max : from;
    const step = m[4] !== undefined ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1) return undefined;
    for (let v = from; v <= to; v += step) out.add(v === 7 && max === 7 ? 0 : v);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The moments a time-fixed trigger fires at: weekdays and minutes of the day. A schedule's cron
 * (`minute hour day-of-month month day-of-week`, numbers only) and a date trigger's `time_of_day`;
 * undefined where the model cannot read it (the trigger is not time-fixed, or the cron uses names).
 */
export function firingMoments(
  kind: string,
  config: Record<string, unknown> | undefined,
): { days: number[]; minutes: number[]; words: string } | undefined {
  if (kind === 'trigger.date_reached') {
    const t = config?.time_of_day;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 0 || t >= MINUTES_A_DAY) return undefined;
    return { days: [0, 1, 2, 3, 4, 5, 6], minutes: [t], words: `at ${clock(t)} on the date (time_of_day ${t})` };
  }
  if (kind !== 'trigger.schedule' || typeof config?.cron !== 'string') return undefined;
  const fields = config.cron.trim().split(/\s+/);
  if (fields.length !== 5) return undefined;
  const [mi, ho, , , dw] = fields;
  const minutesOfHour = cronField(mi, 0, 59);
  const hours = cronField(ho, 0, 23);
  const days = cronField(dw, 0, 7);
  if (!minutesOfHour || !hours || !days) return undefined;
  const minutes = hours.flatMap((h) => minutesOfHour.map((m) => h * 60 + m));
  const when = minutes.length === 1 ? clock(minutes[0]) : `${minutes.length} times a day`;
  return {
    days,
    minutes,
    words: `${days.length === 7 ? 'every day' : days.map((d) => DAY_NAMES[d]).join(', ')} at ${when} (schedule "${config.cron}")`,
  };
}
