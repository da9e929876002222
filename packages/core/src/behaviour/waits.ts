// How long a control.wait waits, as the model reads its config (duration and unit; `until` waits
// for a time of day of its own instead).

const UNIT_MINUTES: Record<string, number> = { minutes: 1, hours: 60, days: 1440 };

/** A wait's fixed length in minutes; undefined when it waits until a time (`until`) or its length cannot be read. */
export function waitMinutes(config: Record<string, unknown> | undefined): number | undefined {
  if (!config || (typeof config.until === 'string' && config.until !== '')) return undefined;
  const d = config.duration;
  // Minutes when no unit is given, as the catalog's words for a wait read it ("Wait 2 minutes").
  const unit = typeof config.unit === 'string' ? config.unit : 'minutes';
  if (typeof d !== 'number' || !Number.isFinite(d) || d < 0 || !(unit in UNIT_MINUTES)) return undefined;
  return Math.round(d * UNIT_MINUTES[unit]);
}

/** A wait's `until` as a minute of the day (`"09:00"`), or undefined. */
export function waitUntilMinute(config: Record<string, unknown> | undefined): number | undefined {
  const m = typeof config?.until === 'string' ? /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(config.until.trim()) : null;
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}
