// Pack and automation diffs: shared by `setup-pack diff` and the editor's visual diff.
// The types; the implementation is ./diff.ts.
import type { ItemKind } from '../types.js';

export type Change = 'added' | 'removed' | 'changed';

export interface NodeChange {
  id: string;
  change: Change;
  kind?: string;
  /** For `changed`: the node fields that differ (e.g. "kind", "config.template_id"). Position never counts. */
  fields?: string[];
}

export interface EdgeChange {
  id: string;
  change: Change;
  source: string;
  target: string;
  handle: string;
  fields?: string[];
}

export interface AutomationDiff {
  nodes: NodeChange[];
  edges: EdgeChange[];
  /** Other document fields that differ (name, settings, references, ...). */
  fields: string[];
}

/** A stage of a changed pipeline, by its key. */
export interface StageChange {
  key: string;
  change: Change;
  /** The stage's name (the new name when changed). */
  name?: string;
  /** For `changed`: the stage's fields that differ (name, stageType, probability, ...), as the service stores them. */
  fields?: string[];
}

export interface ItemChange {
  kind: ItemKind;
  key: string;
  change: Change;
  /** The item's name (new name when changed). */
  name?: string;
  /** For `changed`: the item's top-level fields that differ. */
  fields?: string[];
  /** For a changed automation: node and edge changes. */
  automation?: AutomationDiff;
  /** For a pipeline whose stages changed: each stage added, removed or changed, by key. */
  stages?: StageChange[];
  /** For a pipeline whose stages changed order (the stages both releases have): the new order of its stage keys. */
  stageOrder?: string[];
}

export interface PackDiff {
  packIdMatches: boolean;
  oldVersion: string;
  newVersion: string;
  /** up/down/same by semver where both parse; 'unknown' otherwise (then `same` is string equality). */
  versionChange: 'up' | 'down' | 'same' | 'unknown';
  /** Top-level pack fields that differ (name, description, brand, ...), item arrays excluded. */
  fields: string[];
  items: ItemChange[];
}

export * from './diff.js';
