// JSON comparison shared by the pack diff and the filter diff.

export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Structural equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/** Keys (in a's order, then b's) whose values differ between two objects. */
export function differingKeys(a: Record<string, unknown>, b: Record<string, unknown>, skip: ReadonlySet<string> = new Set()): string[] {
  const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.prototype.hasOwnProperty.call(a, k))];
  return keys.filter((k) => !skip.has(k) && !jsonEqual(a[k], b[k]));
}

/** A field that differs, with its values on either side (undefined: the side lacks it). */
export interface FieldDelta {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * differingKeys, with each key of `nested` whose value is an object on both sides said one level
 * down, by the keys of it that differ (`config.template_id`, `brand.primaryColor`), and each with
 * its two values.
 */
export function differingDeltas(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  nested: ReadonlySet<string>,
  skip?: ReadonlySet<string>,
): FieldDelta[] {
  return differingKeys(a, b, skip).flatMap((k) => {
    const x = a[k];
    const y = b[k];
    return nested.has(k) && isObj(x) && isObj(y)
      ? differingKeys(x, y).map((sub) => ({ field: `${k}.${sub}`, before: x[sub], after: y[sub] }))
      : [{ field: k, before: x, after: y }];
  });
}

/** The fields of differingDeltas. */
export function differingFields(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  nested: ReadonlySet<string>,
  skip?: ReadonlySet<string>,
): string[] {
  return differingDeltas(a, b, nested, skip).map((d) => d.field);
}
