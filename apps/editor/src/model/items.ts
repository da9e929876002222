// Editing of the other item kinds: pipeline stages, message-template merge tags, asset files.
import { acceptsProperty, sha256Hex } from '@setup-pack/core';
export { STAGE_TYPES } from '@setup-pack/core';
import { asArr, asObj, move, setKey, str, type Obj } from './json.js';

export function moveStage(pipeline: Obj, from: number, to: number): Obj {
  return setKey(pipeline, 'stages', move(asArr(pipeline.stages), from, to));
}

export function updateStage(pipeline: Obj, index: number, patch: Obj): Obj {
  return setKey(
    pipeline,
    'stages',
    asArr(pipeline.stages).map((s, i) => {
      if (i !== index) return s;
      let o = asObj(s);
      for (const [k, v] of Object.entries(patch)) o = setKey(o, k, v);
      return o;
    }),
  );
}

export function addStage(pipeline: Obj): Obj {
  const stages = asArr(pipeline.stages);
  const keys = new Set(stages.map((s) => str(asObj(s).key)));
  let n = stages.length + 1;
  while (keys.has(`stage-${n}`)) n++;
  // New stages go before the closed ones, where open stages belong.
  const firstClosed = stages.findIndex((s) => str(asObj(s).stageType, 'OPEN') !== 'OPEN');
  const at = firstClosed < 0 ? stages.length : firstClosed;
  const next = stages.slice();
  next.splice(at, 0, { key: `stage-${n}`, name: `Stage ${n}`, color: NO_SWATCH, probability: 50, stageType: 'OPEN' });
  return setKey(pipeline, 'stages', next);
}

/** The swatch of a stage with no color the schema accepts (none, or one it refuses, which its finding names). */
export const NO_SWATCH = '#94a3b8';

/**
 * A stage color as a color picker shows it (`#rrggbb`, the one spelling an <input type="color">
 * takes): a color the schema accepts (its hexColor: #rgb, #rgba, #rrggbb, #rrggbbaa) with its
 * digits doubled and its alpha left out, lower-case; NO_SWATCH for anything else. Before, only
 * `#rrggbb` was shown and every other valid color showed as grey.
 */
export function swatchColor(color: unknown): string {
  if (typeof color !== 'string' || !acceptsProperty('stage', 'color', color)) return NO_SWATCH;
  const hex = color.slice(1).toLowerCase();
  const rgb = hex.length <= 4 ? [...hex.slice(0, 3)].map((c) => c + c).join('') : hex.slice(0, 6);
  return `#${rgb}`;
}

export function removeStage(pipeline: Obj, index: number): Obj {
  return setKey(
    pipeline,
    'stages',
    asArr(pipeline.stages).filter((_, i) => i !== index),
  );
}

const TAG = /\{\{\s*([\w.]+)\s*\}\}/g;

export function mergeTags(text: string): string[] {
  return [...new Set([...text.matchAll(TAG)].map((m) => m[1]))];
}

export const SAMPLE_MERGE_VALUES: Record<string, string> = {
  'contact.first_name': 'Alex',
  'contact.last_name': 'Rivera',
  'contact.email': 'alex@example.com',
  'agent.first_name': 'Jordan',
  'agent.name': 'Jordan Lee',
  'listing.address': '12 Harbor Lane',
  'listing.price': '$450,000',
  'brand.name': 'Harbor Realty',
};

/** The text with merge tags replaced by sample values (unknown tags shown as [tag]). */
export function previewMerge(text: string, values: Record<string, string> = SAMPLE_MERGE_VALUES): string {
  return text.replace(TAG, (_, tag: string) => values[tag] ?? `[${tag}]`);
}

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** An asset with its file replaced: data, byteSize and sha256 recomputed; fileName and mimeType from the file. */
export function replaceAssetFile(asset: Obj, bytes: Uint8Array, fileName?: string, mimeType?: string): Obj {
  let next = setKey(asset, 'data', toBase64(bytes));
  next = setKey(next, 'byteSize', bytes.length);
  next = setKey(next, 'sha256', sha256Hex(bytes));
  if (fileName) next = setKey(next, 'fileName', fileName);
  if (mimeType) next = setKey(next, 'mimeType', mimeType);
  return next;
}
