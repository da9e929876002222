// The mechanical repairs of a pack, stated once: `setup-pack fix` applies them to files, and the
// editor offers them on the open pack. Each repair is one whose answer the pack itself holds.
// They are written copy-on-write (fixedPack): an editor holds its pack as immutable states that
// share every untouched part, and an edit that copied all of a pack at every limit to change one
// stage would cost it that pack's clone, and a patch of every item to its validation worker.
import type { Diagnostic } from './diagnostics.js';
import type { Base64Hasher } from './hash.js';
import { getOwn, setOwn } from './own.js';
import { fixedStageProbability } from './pipeline.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The pack with the fixes applied, and one line per change in words for a person:
 * - an asset's `sha256` and `byteSize` recomputed from its `data` (when the data is strict base64);
 * - a `CLOSED_WON` stage's probability set to 100 and a `CLOSED_LOST` stage's to 0;
 * - an edge's `sourceHandle` (React Flow's name) moved to `handle`, when it is a non-empty string
 *   and the edge has no `handle` (with both, which one is meant is the author's call). Whether the
 *   source block has that output is validation's question (graph/invalid-handle), not this one's.
 *
 * `pack` itself is never changed: what a fix changes is a copy, along with the objects and arrays
 * that lead to it, and everything else is shared. With nothing to fix, the result is `pack`.
 */
export function fixedPack<T>(pack: T, hash: Base64Hasher): { pack: T; changes: string[] } {
  const changes: string[] = [];
  if (!isObj(pack)) return { pack, changes };
  let out: Obj = pack;
  out = withField(out, 'assets', (assets) => mapItems(assets, (a, i) => fixAsset(a, i, hash, changes)));
  out = withField(out, 'pipelines', (pipelines) =>
    mapItems(pipelines, (p) => (isObj(p) ? withField(p, 'stages', (stages) => mapItems(stages, (s) => fixStage(p, s, changes))) : p)),
  );
  out = withField(out, 'automations', (automations) =>
    mapItems(automations, (a, i) => {
      if (!isObj(a)) return a;
      const name = typeof a.key === 'string' ? `automation "${a.key}"` : `automations[${i}]`;
      return withPath(a, ['document', 'graph', 'edges'], (edges) => mapItems(edges, (e, j) => fixEdge(name, e, j, changes)));
    }),
  );
  return { pack: out as T, changes };
}

/**
 * Applies the fixes to `pack` itself (each of its fields that a fix changes is replaced by a fixed
 * copy); returns one line per change, as fixedPack does.
 */
export function fixPack(pack: unknown, hash: Base64Hasher): string[] {
  const { pack: fixed, changes } = fixedPack(pack, hash);
  if (fixed !== pack && isObj(pack) && isObj(fixed))
    for (const key of Object.keys(fixed)) if (fixed[key] !== pack[key]) setOwn(pack, key, fixed[key]);
  return changes;
}

/**
 * Whether a finding is about a place the fixes write — an asset's `sha256` or `byteSize` (or an
 * asset lacking one), a stage's `probability`, an edge field they move — so that fixing may
 * address it. A question of the pointer alone, cheap enough to ask of 60,000 findings before
 * deciding to run the fixes (as an editor offering them does); only running them says what changes.
 */
export function mayBeFixed(d: Pick<Diagnostic, 'pointer' | 'missing'>): boolean {
  return FIXED_PLACE.test(d.pointer) || (ASSET.test(d.pointer) && (d.missing === 'sha256' || d.missing === 'byteSize'));
}

const ASSET = /^\/assets\/\d+$/;

function fixAsset(a: unknown, i: number, hash: Base64Hasher, changes: string[]): unknown {
  if (!isObj(a) || typeof a.data !== 'string') return a;
  const hashed = hash(a.data); // undefined for data that is not strict base64
  if (!hashed) return a;
  const { byteSize, sha256 } = hashed;
  const name = typeof a.key === 'string' ? `asset "${a.key}"` : `assets[${i}]`;
  // A field the asset lacks is set; one it has is changed from what it says (a hash cut short).
  const change = (field: string, was: string | undefined, now: string) =>
    changes.push(`${name}: ${field} ${was === undefined ? `set to ${now}` : `${was} → ${now}`}`);
  if (a.sha256 !== sha256)
    change(
      'sha256',
      a.sha256 === undefined
        ? undefined
        : typeof a.sha256 === 'string' && a.sha256.length > 12
          ? `${a.sha256.slice(0, 12)}…`
          : written(a.sha256),
      `${sha256.slice(0, 12)}…`,
    );
  if (a.byteSize !== byteSize) change('byteSize', a.byteSize === undefined ? undefined : written(a.byteSize), String(byteSize));
  if (a.sha256 === sha256 && a.byteSize === byteSize) return a;
  return { ...a, sha256, byteSize };
}

/** A value as a change names it: a number as written, a string quoted (cut short), an object or array by its kind. */
function written(v: unknown): string {
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return Array.isArray(v) ? 'an array' : 'an object';
}

function fixStage(p: Obj, s: unknown, changes: string[]): unknown {
  if (!isObj(s) || typeof s.probability !== 'number') return s;
  const want = fixedStageProbability(s.stageType);
  if (want === undefined || s.probability === want) return s;
  changes.push(`pipeline "${String(p.key)}" stage "${String(s.key)}": probability ${s.probability} → ${want}`);
  return { ...s, probability: want };
}

/**
 * Edge fields other tools write for one the format defines, and that one: React Flow (xyflow)
 * calls the output an edge leaves through `sourceHandle`. Nothing reads such a field, so the edge
 * silently leaves through "next" (graph/unknown-field names it, and says fix moves it).
 */
export const MOVED_EDGE_FIELDS: ReadonlyMap<string, string> = new Map([['sourceHandle', 'handle']]);

/** The places fixedPack writes (pointers; the moved edge fields need no escaping). */
const FIXED_PLACE = new RegExp(
  `^/(?:assets/\\d+/(?:sha256|byteSize)|pipelines/\\d+/stages/\\d+/probability|automations/\\d+/document/graph/edges/\\d+/(?:${[...MOVED_EDGE_FIELDS.keys()].join('|')}))$`,
);

function fixEdge(automation: string, e: unknown, j: number, changes: string[]): unknown {
  if (!isObj(e)) return e;
  let out = e;
  for (const [from, to] of MOVED_EDGE_FIELDS) {
    const value = getOwn(out, from);
    if (typeof value !== 'string' || value === '' || Object.prototype.hasOwnProperty.call(out, to)) continue;
    // The defined field takes the other's place, so the edge reads as it was written.
    const moved: Obj = {};
    for (const key of Object.keys(out)) setOwn(moved, key === from ? to : key, out[key]);
    changes.push(`${automation} ${typeof e.id === 'string' ? `edge "${e.id}"` : `edges[${j}]`}: ${from} "${value}" → ${to}`);
    out = moved;
  }
  return out;
}

/** `o` with the value at `path` (through objects' own fields) replaced by `fix(value)`; `o` itself when nothing changes. */
function withPath(o: Obj, path: readonly string[], fix: (v: unknown) => unknown): Obj {
  const [key, ...rest] = path;
  return withField(o, key, (v) => (rest.length === 0 ? fix(v) : isObj(v) ? withPath(v, rest, fix) : v));
}

/** `o` with its own field `key` replaced by `fix(o[key])`; `o` itself when that is the same value. */
function withField(o: Obj, key: string, fix: (v: unknown) => unknown): Obj {
  const v = getOwn(o, key);
  if (v === undefined) return o;
  const next = fix(v);
  if (next === v) return o;
  const copy = { ...o }; // spread defines own properties: a "__proto__" key stays a key
  setOwn(copy, key, next);
  return copy;
}

/** `list` with each item replaced by `fix(item, index)`; `list` itself when none changed, and what is not a list as it is. */
function mapItems(list: unknown, fix: (item: unknown, i: number) => unknown): unknown {
  if (!Array.isArray(list)) return list;
  let out: unknown[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const next = fix(list[i], i);
    if (next !== list[i]) (out ??= list.slice())[i] = next;
  }
  return out ?? list;
}
