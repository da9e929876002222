// Canonical form of a pack: keys in the order the published schemas list their `properties`,
// unknown keys (inside open objects such as config, brand, data) after the known ones in their
// original order. The order is read from publishedSchemas, never restated here.
import { setOwn } from '../own.js';
import { publishedSchemas } from '../generated/schemas.js';

type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Follows a `$ref` such as `stage.schema.json` or `common.schema.json#/$defs/key`. */
function resolveRef(ref: string, base: Schema): Schema | undefined {
  const [file, fragment] = ref.split('#');
  let target: unknown = file ? publishedSchemas[file.replace(/\.schema\.json$/, '')] : base;
  if (fragment) {
    for (const token of fragment.split('/').filter(Boolean)) target = isObj(target) ? target[token] : undefined;
  }
  return isObj(target) ? target : undefined;
}

/** The schema as seen after following `$ref`s (a few hops at most in our schemas). */
function deref(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let hops = 0; s && typeof s.$ref === 'string' && hops < 8; hops++) s = resolveRef(s.$ref, s);
  return s;
}

interface Shape {
  order: string[];
  /** Each known key's place in `order`. */
  index: Map<string, number>;
  children: Map<string, Shape | undefined>;
  items?: Shape;
  /** No properties and no items: everything below keeps its order. */
  open: boolean;
}

const shapeCache = new Map<Schema, Shape>();

function shapeOf(schema: Schema | undefined): Shape | undefined {
  const s = deref(schema);
  if (!s) return undefined;
  const cached = shapeCache.get(s);
  if (cached) return cached;
  const shape: Shape = { order: [], index: new Map(), children: new Map(), open: false };
  shapeCache.set(s, shape); // before recursing, so recursive schemas terminate
  const props = isObj(s.properties) ? s.properties : {};
  for (const [name, sub] of Object.entries(props)) {
    shape.index.set(name, shape.order.length);
    shape.order.push(name);
    shape.children.set(name, isObj(sub) ? shapeOf(sub) : undefined);
  }
  if (isObj(s.items)) shape.items = shapeOf(s.items);
  shape.open = shape.order.length === 0 && shape.items === undefined;
  return shape;
}

/**
 * A new object of `value`'s keys in canonical order — the known ones as the schema lists them,
 * then the others as they come — each holding `take(value, key, its shape)`.
 */
function reorder(
  value: Record<string, unknown>,
  shape: Shape | undefined,
  take: (value: Record<string, unknown>, key: string, shape: Shape | undefined) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of shape?.order ?? [])
    if (Object.prototype.hasOwnProperty.call(value, k)) setOwn(out, k, take(value, k, shape!.children.get(k)));
  for (const k of Object.keys(value)) if (!Object.prototype.hasOwnProperty.call(out, k)) setOwn(out, k, take(value, k, undefined));
  return out;
}

/** A copy of `value` in canonical order. */
function apply(value: unknown, shape: Shape | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => apply(v, shape?.items));
  if (!isObj(value)) return value;
  return reorder(value, shape, applyAt);
}

const applyAt = (value: Record<string, unknown>, key: string, shape: Shape | undefined) => apply(value[key], shape);

/** `value` in canonical order, sharing every part of it already in that order (those are not copied). */
function share(value: unknown, shape: Shape | undefined): unknown {
  // Below a key the schemas do not describe (config, data, a node's own fields) every object keeps
  // its order: nothing there moves. So too in an object the schemas give no properties or items.
  if (shape === undefined || shape.open) return value;
  if (Array.isArray(value)) {
    const list: unknown[] = value;
    let out: unknown[] | undefined;
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      const c = v !== null && typeof v === 'object' ? share(v, shape.items) : v;
      if (c !== v) (out ??= list.slice())[i] = c;
    }
    return out ?? list;
  }
  if (!isObj(value)) return value;
  // In order: the known keys as the schema lists them, then the others. Children first, once each.
  const keys = Object.keys(value);
  let ordered = true;
  let last = -1;
  let changed: Map<string, unknown> | undefined;
  for (const k of keys) {
    const at = shape.index.get(k);
    if (at === undefined) {
      last = Infinity;
      continue;
    }
    if (at < last) ordered = false;
    else last = at;
    const v = value[k];
    if (v !== null && typeof v === 'object') {
      const c = share(v, shape.children.get(k));
      if (c !== v) (changed ??= new Map()).set(k, c);
    }
  }
  if (ordered && !changed) return value;
  return reorder(value, shape, (v, k) => (changed?.has(k) ? changed.get(k) : v[k]));
}

/**
 * Returns a copy of `value` with keys in canonical order. Works on any JSON value (also an
 * invalid pack), so `fmt` can format files that do not validate yet. `schemaName` picks the
 * published schema to follow (default: the pack).
 */
export function canonicalize<T>(value: T, schemaName = 'pack'): T {
  const schema = publishedSchemas[schemaName];
  return apply(value, schema ? shapeOf(schema) : undefined) as T;
}

/**
 * `value` in canonical order without copying what is already in it: the result is `value` itself
 * when every key is in place, and otherwise shares each part that is (a pack read from files that
 * `fmt` or `unpack` wrote is not copied at all). Neither is changed; for a value about to be
 * written or read once, where canonicalize's copy of a whole pack would be garbage.
 */
export function inCanonicalOrder<T>(value: T, schemaName = 'pack'): T {
  const schema = publishedSchemas[schemaName];
  return share(value, schema ? shapeOf(schema) : undefined) as T;
}

/** The pack as text in canonical form: canonical key order, 2-space JSON, trailing newline. */
export function formatPack(value: unknown, schemaName = 'pack'): string {
  return JSON.stringify(inCanonicalOrder(value, schemaName), null, 2) + '\n';
}
