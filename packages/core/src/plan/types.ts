// Types of the upgrade planner: what the installer reads from the workspace (snapshot, ledger),
// what it asks for (options) and what the planner answers (plan). All plain JSON data.
import type { Asset, ReferenceType } from '../types.js';
import type { WorkspaceCollection } from './contract.js';

/** The collections are the workspace-API contract's (contract.ts). */
export type { WorkspaceCollection } from './contract.js';

/** A workspace object as the catalog API returns it; fields beyond id/name depend on the collection. */
export interface WorkspaceObject {
  id: string;
  name?: string;
  [field: string]: unknown;
}

/**
 * What the installer read from the workspace before planning. A collection left out is
 * "not fetched": the planner only needs the ones `requiredCollections` names. The brand, a
 * singleton, is the `brand` collection holding zero or one object whose id is "brand".
 */
export interface WorkspaceSnapshot {
  collections: Partial<Record<WorkspaceCollection, WorkspaceObject[]>>;
  /**
   * On resume only: idempotency keys this pack's earlier runs created objects with → object id
   * (`GET /v1/idempotency-keys?prefix=`). An object made by an interrupted run before its
   * checkpoint is then recognised as the pack's own, not adopted as a stranger's.
   */
  createdByKey?: Record<string, string>;
}

/** Kinds of pack items the installer writes. Item ids are `${kind}:${key}` (brand: `brand:brand`). */
export type PlanItemKind = 'resource' | 'pipeline' | 'asset' | 'template' | 'brand' | 'smartList' | 'automation';

/** One installed item as the ledger remembers it. */
export interface LedgerItem {
  kind: PlanItemKind;
  key: string;
  collection: WorkspaceCollection;
  workspaceId: string;
  /** Content hash of the workspace copy right after the installer wrote it: drift is a different hash now. */
  hash: string;
  /** Content hash of what the installer meant to write (resolved desired content): a pack change is a different one. */
  sourceHash: string;
  /** False for a workspace object the pack adopted by name (an existing tag...): never written, never removed. */
  owned: boolean;
  /** Pipelines: stage key → workspace stage id. */
  stages?: Record<string, string>;
  /** Media: the uploaded copy's address. */
  url?: string;
}

/**
 * The install ledger of one packId in one workspace (the server stores it as opaque JSON, see
 * docs/catalog-api.md). `version` is the release last completed; while a run is in progress
 * `state` is "in_progress" and `targetVersion` the release being installed; items are
 * checkpointed as they are written, so an interrupted run resumes where it stopped.
 */
export interface InstallLedger {
  packId: string;
  packName: string;
  /** Release of the last completed install; null before the first one completes. */
  version: string | null;
  state: 'installed' | 'in_progress';
  targetVersion?: string | null;
  /** itemId → installed item. */
  items: Record<string, LedgerItem>;
  /** `${type}:${id}` (a reference as the graph writes it) → bound workspace id, for references the pack does not carry. */
  bindings: Record<string, string>;
  /** What the pack says that the workspace has no field for (description, asset roles…), for export. */
  source?: LedgerSource;
  /**
   * The run that wrote this ledger: a random id each run that starts on a ledger not in progress
   * chooses (a first install, a reinstall, an upgrade); a resumed run keeps it. Part of every
   * creation's idempotency key (idempotencyKeyFor), so keys never reach across installs.
   */
  run?: string;
  /** Server-maintained revision, bumped on every write (optimistic concurrency); 0 when new. */
  revision?: number;
  updatedAt?: string;
}

/**
 * What a pack says that the workspace has no field for, recorded in the install ledger at install
 * time (`ledger.source`), so exporting the install gives it back.
 */
export interface LedgerSource {
  $schema?: string;
  description?: string;
  author?: string;
  schemaVersion?: 1 | 2;
  /**
   * The pack has a brand. The ledger has no brand item when the install did not set it (the
   * workspace kept its own: a conflict kept); export then leaves the pack's brand images out too.
   */
  brand?: true;
  /** Every asset of the pack without its bytes: role, sourceUrl, url… (the media library keeps the file only). */
  assets?: Record<string, Omit<Asset, 'key' | 'data'>>;
  /** Resource `data` as the pack wrote it (the workspace keeps only a tag's color, a field's or template's data). */
  resourceData?: Record<string, Record<string, unknown>>;
  /**
   * Each automation's references as the pack wrote them (by automation key). The stored document's
   * references carry the workspace ids its graph now writes; these give back the pack's ids, even
   * when two of them were bound to one workspace object.
   */
  references?: Record<string, { type: ReferenceType; id: string }[]>;
  /**
   * Where each automation's graph writes a reference id, by automation key: the node, the place
   * in its config (an RFC 6901 pointer under `config`) and the id the pack wrote there. Kept only
   * for the ids of a reference type the automation has two or more of (the only way two of its
   * references can be bound to one workspace object, and so be written as one id): export gives
   * each place back the id the pack wrote there while the workspace id there is still the one it
   * was bound to. Absent from ledgers written before it existed.
   */
  referencePlaces?: Record<string, ReferencePlace[]>;
}

/** A place in an automation's graph where the pack wrote a reference id (LedgerSource.referencePlaces). */
export interface ReferencePlace {
  /** The node's id. */
  node: string;
  /** RFC 6901 pointer into the node's config (`/tag_id`, `/automation_ids/0`). */
  path: string;
  /** The reference id the pack wrote there. */
  id: string;
}

export interface PlanOptions {
  /** Replace workspace copies the user edited (conflicts). Default: keep them. */
  overwrite?: boolean;
  /** Remove items gone from the new release, if unedited. Default: keep them. */
  prune?: boolean;
  /**
   * The ledgers of the workspace's other installed packs: an item one of them adopted or bound a
   * reference to is kept even with prune (removing it would break that pack).
   */
  others?: readonly InstallLedger[];
  /** Allow installing a lower version than the ledger's. */
  allowDowngrade?: boolean;
  /** Explicit bindings: `${type}:${id}` → workspace id (from `--bind type:id=workspaceId` or a bindings file). */
  bindings?: Record<string, string>;
}

/** Where a reference or rewrite points: a known workspace object, or a pack item (id known once it exists). */
export type BindingTarget = { workspaceId: string } | { itemId: string; stageKey?: string };

export type BindingSource = 'pack' | 'option' | 'ledger' | 'name' | 'create';

export interface ReferenceBinding {
  type: ReferenceType;
  /** The id exactly as the graph writes it. */
  id: string;
  name?: string;
  source: BindingSource;
  target: BindingTarget;
}

/**
 * A change of strings applied to a step's content once the ids it needs exist (apply time):
 * - `reference`: in automation node configs and smart-list filter values, a string equal to `from` becomes the target's workspace id;
 * - `url`: in template and brand strings, every occurrence of `from` becomes the uploaded copy's address (or a fixed url).
 */
export type Rewrite =
  /** `refType`: an automation reference's type; a block config field the catalog types as that reference type takes this rewrite before any other of the same string. */
  | {
      kind: 'reference';
      from: string;
      target: BindingTarget;
      refType?: ReferenceType;
      /**
       * A pack key a block's reference field of `refType` writes without the automation listing it:
       * only such fields are rewritten (a string equal to it elsewhere in a config, or in the
       * references, is not a reference to it).
       */
      unlisted?: true;
    }
  | { kind: 'url'; from: string; target: { itemId: string } | { url: string } };

export type StepAction = 'create' | 'update' | 'unchanged' | 'adopt' | 'conflict' | 'orphan' | 'remove';

export interface PlanStep {
  itemId: string;
  kind: PlanItemKind;
  key: string;
  /** Display name (new name for items in the pack). */
  name: string;
  collection: WorkspaceCollection;
  action: StepAction;
  /** For conflicts: keep the user's copy or overwrite it (--overwrite). */
  resolution?: 'keep' | 'overwrite';
  /** True when the installer sends a write request for this step. */
  write: boolean;
  /** Dependency phase: 1 resources, 2 pipelines, 3 media, 4 templates and brand, 5 smart lists, 6 automations; removals run in reverse. */
  phase: number;
  /** Existing workspace object (update, conflict, orphan, remove, unchanged, adopt). */
  workspaceId?: string;
  /** Why this action, in a few words (e.g. "content changed", "edited in the workspace"). */
  reason: string;
  /** The item's content as the workspace stores it, before rewrites (absent for removals/orphans). */
  content?: Record<string, unknown>;
  rewrites: Rewrite[];
  /** Request fields that are not content: an asset's base64 bytes (`data`). */
  extra?: Record<string, unknown>;
  /** Item ids whose workspace ids this step needs. */
  dependsOn: string[];
  /** Pipelines: stage keys in order, aligned with content.stages. */
  stageKeys?: string[];
  /** After an unchanged step: the ledger entry should be refreshed (the copy already matches). */
  refreshLedger?: boolean;
  /** Owned by the pack (false for adopted objects). */
  owned: boolean;
  /** The key the ledger held this item's object under: the release renamed it (the object is carried across, not replaced). */
  renamedFrom?: string;
}

export type PlanErrorCode =
  | 'plan/pack-id-mismatch'
  | 'plan/downgrade'
  | 'plan/unresolved-reference'
  | 'plan/ambiguous-reference'
  | 'plan/unknown-binding'
  | 'plan/ambiguous-resource'
  /** The workspace API refuses something the format allows (see WORKSPACE_LIMITS). */
  | 'plan/api-limit'
  /** A block's reference field holds an id that is neither a pack key of its type nor listed in the automation's references. */
  | 'plan/unresolved-id';

export interface PlanError {
  code: PlanErrorCode;
  message: string;
  reference?: { type: ReferenceType; id: string; name?: string; usedBy: string[] };
  /**
   * Candidate workspace objects: the objects a name matches (`plan/ambiguous-reference`,
   * `plan/ambiguous-resource`), or, for `plan/unresolved-reference` and `plan/unknown-binding`, every object of the type
   * when the workspace has at most ten (by name), so the id to bind is at hand.
   */
  candidates?: { id: string; name?: string }[];
}

/**
 * Something the user should be told about a plan that goes through: the plan is not refused for
 * it (the exit code stays 0), but it does not do, or cannot do, all the user may expect.
 * - `plan/missing-stage`: an automation the plan leaves as it is (unchanged) names a pipeline stage
 *   the kept copy of that pipeline no longer has (removed by hand): it stays pointing at no stage.
 *   (An automation the plan would write naming such a stage is an error, `plan/unresolved-reference`.)
 * - `plan/prune-kept`: with prune, an item gone from the release is kept: another installed pack or
 *   a reference of this release uses it, or it was edited in the workspace.
 * - `plan/adopted-differs`: an item bound to a workspace object it adopted (by name, or as an exact
 *   twin in an earlier install) whose content differs from the pack's; the pack never writes it.
 */
export type PlanWarningCode = 'plan/missing-stage' | 'plan/prune-kept' | 'plan/adopted-differs';

export interface PlanWarning {
  code: PlanWarningCode;
  /** The item it is about, as its plan step names it (every warning's item has a step in the plan). */
  item: { itemId: string; kind: PlanItemKind; key: string; name: string };
  /** One sentence in the words of the plan's other messages: what is kept and why, and what would change it. */
  message: string;
  /** `plan/missing-stage`: the stage reference the automation names. */
  reference?: { type: ReferenceType; id: string };
  /** `plan/adopted-differs`: the content fields (as the workspace stores them) that differ, sorted. */
  fields?: string[];
}

export interface PlanSummary {
  create: number;
  update: number;
  remove: number;
  conflict: number;
  orphan: number;
  unchanged: number;
  adopt: number;
}

export interface Plan {
  ok: boolean;
  errors: PlanError[];
  /** What the user should know about a plan that goes through (see PlanWarning); empty when the plan failed (`ok` false). */
  warnings: PlanWarning[];
  packId: string;
  packName: string;
  fromVersion: string | null;
  toVersion: string;
  /** `uninstall`: the plan of an uninstall (planUninstall), which removes the release it names. */
  versionChange: 'install' | 'upgrade' | 'same' | 'downgrade' | 'unknown' | 'uninstall';
  /** Ordered: creates/updates by phase, then removals in reverse phase order. Includes non-writing steps for reporting. */
  steps: PlanStep[];
  bindings: ReferenceBinding[];
  summary: PlanSummary;
  /** Something to write: an item, or only the ledger (new version, refreshed hashes, new bindings). */
  hasChanges: boolean;
  /** Number of item write requests the plan needs (ledger writes not counted). */
  writes: number;
}
