// The types of pack and automation diffs (core's diffPacks, ./diff.ts): what `setup-pack diff` and
// the editor's visual diff read.
import type { ItemKind } from '../types.js';

export type Change = 'added' | 'removed' | 'changed';

/**
 * A field that changed (core's valueChange; describeValueChange says it in words, as one line):
 * `before` and `after`, the values themselves (absent on the side that lacks the field), or, where
 * the whole values would say too much, a `summary` in words instead: a text of several lines (a template's body) by its lines, `1 line changed of
 * 12 lines (line 3: "Hi" → "Hello")`; a template's richTextDoc by its text; an automation's
 * references by which were added, removed or changed.
 */
export interface ValueChange {
  /** As in the `fields` beside it (`subject`, `config.template_id`, `brand.primaryColor`, `settings.daily_send_limit`). */
  field: string;
  before?: unknown;
  after?: unknown;
  summary?: string;
}

export interface NodeChange {
  id: string;
  change: Change;
  kind?: string;
  /** For `changed`: the node fields that differ (e.g. "kind", "config.template_id"). Position never counts. */
  fields?: string[];
  /** For `changed`: each field's old and new value (every one of `fields` but a `config.conditions` said in `conditions`). */
  values?: ValueChange[];
  /** For a block whose `config.conditions` changed and is a filter node on both sides (control.if): what changed in it, as in a smart list's filters. */
  conditions?: FilterChange[];
}

export interface EdgeChange {
  id: string;
  change: Change;
  source: string;
  target: string;
  handle: string;
  fields?: string[];
  /** For `changed`: each field's old and new value. */
  values?: ValueChange[];
}

export interface AutomationDiff {
  nodes: NodeChange[];
  edges: EdgeChange[];
  /** Other document fields that differ (name, references, ...); settings by their keys (`settings.daily_send_limit`). */
  fields: string[];
  /** Each of `fields` with its old and new value (references: which were added, removed or changed). */
  values: ValueChange[];
}

/** A stage of a changed pipeline, by its key. */
export interface StageChange {
  key: string;
  change: Change;
  /** The stage's name (the new name when changed). */
  name?: string;
  /** For `changed`: the stage's fields that differ (name, stageType, probability, ...), as the service stores them. */
  fields?: string[];
  /** For `changed`: each field's old and new value. */
  values?: ValueChange[];
}

/**
 * One change in a smart list's filter tree. The tree has no keys, so a node is named by its place:
 * `path` is the child indices (0-based) from the root down to it, `[]` being the root; indices are
 * in the new filter, but a removed node's last index is in the old one (core's filterPlace says a
 * path as "root › 2 › 1"). The children of an and/or group are matched by meaning first, so
 * reordering them is `reordered` at the group (the same filter), never an added and a removed
 * child; then a condition with the same field (and operator), or a group with a group.
 */
export interface FilterChange {
  path: number[];
  /** `changed`: the node's own fields differ, or another node took its place (no `fields` then). */
  change: Change | 'reordered';
  /** The node's shape (the new one's when changed): an and/or/not group, a condition, or a shape we do not read. */
  node: 'group' | 'condition' | 'other';
  /** For `changed`: the node's fields that differ (`type` of a group, `field`, `operator`, `value` of a condition, ...); a group's children are changes of their own. */
  fields?: string[];
  /** The node in the old filter in words (core's filterText), for removed and changed. */
  before?: string;
  /** The node in the new filter in words, for added and changed. */
  after?: string;
}

/** What changed in a smart list's filters. */
export interface FilterDiff {
  /** Fields of the filter document other than `root` that differ (`version`, ...). */
  fields: string[];
  changes: FilterChange[];
}

export interface ItemChange {
  kind: ItemKind;
  key: string;
  change: Change;
  /** The item's name (new name when changed). */
  name?: string;
  /** For `changed`: the item's top-level fields that differ; a resource's data by its keys (`data.options`). */
  fields?: string[];
  /** For `changed`: the old and new value of each of `fields` that is not said in detail below (an automation's `document`, a pipeline's `stages`, a smart list's `filters`): a template's subject, its body by its lines, a resource's `data.color`. */
  values?: ValueChange[];
  /** For a changed automation: node and edge changes. */
  automation?: AutomationDiff;
  /** For a pipeline whose stages changed: each stage added, removed or changed, by key. */
  stages?: StageChange[];
  /** For a pipeline whose stages changed order (the stages both releases have): the new order of its stage keys. */
  stageOrder?: string[];
  /** For a smart list whose filters changed: the conditions and groups added, removed, changed or reordered. */
  filters?: FilterDiff;
}

export interface PackDiff {
  packIdMatches: boolean;
  oldVersion: string;
  newVersion: string;
  /** up/down/same by semver where both parse; 'unknown' otherwise (then `same` is string equality). */
  versionChange: 'up' | 'down' | 'same' | 'unknown';
  /** Top-level pack fields that differ (name, description, ...), item arrays excluded; brand by its keys (`brand.primaryColor`). */
  fields: string[];
  /** Each of `fields` with its old and new value (`name`, `description` by its lines when it has several, `brand.primaryColor`). */
  values: ValueChange[];
  items: ItemChange[];
  /**
   * Items the diff cannot pair, so says nothing else about (an invalid pack): an item that is not
   * an object or has no string `key`, and every item of a key that repeats within its kind on
   * either side (which of them would pair is a guess, so none does); and, inside a paired item
   * whose releases are compared, the same of its stages (by key) or its nodes and edges (by id),
   * with `within` set. Empty for valid packs. An
   * item whose key went bad on one side is still said added or removed on the other (the diff
   * cannot know it is that one): a caller with unpaired items says so, or refuses (the CLI does).
   */
  unpaired: UnpairedItem[];
}

/** An item diffPacks cannot pair by key: where it is (`automations[2]` of the old or new pack) and why. */
export interface UnpairedItem {
  side: 'old' | 'new';
  kind: ItemKind;
  /** Its index in the kind's list. */
  index: number;
  /**
   * `no-key`: not an object, or its `key` is missing or not a string; `duplicate-key`: its key is
   * another item's of the kind on the same side; `key-repeats-on-other-side`: its key is unique
   * here but repeats on the other side, so it has no one item to pair with.
   */
  reason: 'no-key' | 'duplicate-key' | 'key-repeats-on-other-side';
  /** The key, but for `no-key`. */
  key?: string;
  /**
   * Set when what cannot be paired is inside the item, which is paired: a pipeline's stage (by
   * `key`) or an automation's node or edge (by `id`), met while the two releases of the item are
   * compared. `reason` then says it of that stage, node or edge (`no-key`: no string key or id),
   * and `key` is still the item's.
   */
  within?: UnpairedPart;
}

/** A stage, node or edge of a paired item that diffPacks cannot pair: which list, where in it, and its key or id. */
export interface UnpairedPart {
  /** `stages` of a pipeline; `nodes` or `edges` of an automation's `document.graph`. */
  list: 'stages' | 'nodes' | 'edges';
  /** Its index in that list. */
  index: number;
  /** Its key (a stage) or id (a node, an edge), but for `no-key`. */
  key?: string;
}
