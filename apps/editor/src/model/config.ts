// Config forms from the catalog: known fields get inputs; every other key is edited as raw
// JSON and always kept, so unknown config is never dropped.
import { nodeKindInfo, setOwn, type ConfigField } from '@setup-pack/core';
import { asObj, isObj, setKey, type Obj } from './json.js';

export function catalogFields(kind: string): readonly ConfigField[] {
  return nodeKindInfo(kind)?.fields ?? [];
}

/** Config keys the catalog does not describe for this kind. */
export function unknownConfig(kind: string, config: unknown): Obj {
  const known = new Set(catalogFields(kind).map((f) => f.name));
  const out: Obj = {};
  for (const [k, v] of Object.entries(asObj(config))) if (!known.has(k)) setOwn(out, k, v);
  return out;
}

/** Sets one field; `undefined` removes it. Key order of the rest is kept. */
export function setConfigField(config: unknown, name: string, value: unknown): Obj {
  return setKey(asObj(config), name, value);
}

/** Replaces the unknown part of a config with `unknown` (parsed raw JSON), keeping known fields in place. */
export function setUnknownConfig(kind: string, config: unknown, unknown: Obj): Obj {
  const known = new Set(catalogFields(kind).map((f) => f.name));
  const out: Obj = {};
  for (const [k, v] of Object.entries(asObj(config))) {
    // Config keys are data ("constructor", "__proto__" included): own properties only.
    if (known.has(k)) setOwn(out, k, v);
    else if (Object.prototype.hasOwnProperty.call(unknown, k)) setOwn(out, k, unknown[k]);
  }
  for (const [k, v] of Object.entries(unknown)) if (!Object.prototype.hasOwnProperty.call(out, k)) setOwn(out, k, v);
  return out;
}

export type ParseResult = { ok: true; value: Obj } | { ok: false; error: string };

export function parseRawObject(text: string): ParseResult {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    const v = JSON.parse(text) as unknown;
    return isObj(v) ? { ok: true, value: v } : { ok: false, error: 'Enter a JSON object: { "name": value }.' };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : 'Not valid JSON.' };
  }
}

/** Converts what a form input holds into the field's JSON value ('' → removed). Number fields read their text by core's rule instead (ui/fields NumberField). */
export function fieldValue(field: ConfigField, input: string | boolean): unknown {
  if (field.type === 'boolean') return typeof input === 'boolean' ? input : input === 'true';
  const text = String(input);
  if (text === '') return undefined;
  switch (field.type) {
    case 'refs':
    case 'strings':
      return text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'object':
    case 'any':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}

export function fieldText(field: ConfigField, value: unknown): string {
  if (value === undefined || value === null) return '';
  if ((field.type === 'refs' || field.type === 'strings') && Array.isArray(value))
    return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  if (typeof value === 'string') return value;
  if (field.type === 'object' || field.type === 'any') return JSON.stringify(value, null, 2);
  return String(value);
}
