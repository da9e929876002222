// Install, upgrade and uninstall: fetch state, call the planner, execute the plan. The planner
// decides every change; this file only sends the requests it lists, in its order, and keeps the
// ledger (checkpoints under a lock with an expiry) so an interrupted run resumes cleanly.
import {
  blocksUse,
  COLLECTION_PATH,
  itemBindings,
  LEDGER_LOCK,
  ledgerItemAfterWrite,
  ledgerSourceOf,
  plan as planPack,
  planUninstall,
  plural,
  requiredCollections,
  resolveStep,
  validatePack,
  type Diagnostic,
  type InstallLedger,
  type LedgerItem,
  type Pack,
  type PlanOptions,
  type PlanResult,
  type PlanStep,
  type WorkspaceCollection,
  type WorkspaceObject,
  type WorkspaceSnapshot,
} from '@setup-pack/core';
import { WorkspaceApiError, type WorkspaceClient } from './client.js';
import { stepLabel } from './render.js';
import { fetchSnapshot, LedgerLock, ledgerIn, listLedgers, LockTakenError, readLedger, type ListedLedger } from './workspace.js';

/**
 * A write of a run that the workspace refused, or that could not be made, after the run started:
 * the API's error, with the item it was writing named in its message, and how far the run got
 * (its ledger says `in_progress` and holds what was written, so running it again resumes).
 */
export class InstallStepError extends WorkspaceApiError {
  constructor(
    cause: WorkspaceApiError,
    readonly step: PlanStep,
    /** Item writes made before the one that failed. */
    readonly written: number,
    /** Item writes the plan listed. */
    readonly total: number,
    /** The run: an install (or upgrade), or an uninstall. */
    readonly run: 'install' | 'uninstall' = 'install',
  ) {
    super(
      cause.status,
      cause.type,
      `${VERB[step.action] ?? 'writing'} ${stepLabel(step)}: ${cause.message}`,
      cause.param,
      cause.method,
      cause.path,
      cause.fields,
    );
    this.name = 'InstallStepError';
  }

  /**
   * The holder of the pack's lock when this run could not release it (the workspace no longer
   * accepted its key, or could not be reached): a next run is refused until it expires, unless
   * it is broken first (`setup-pack unlock <packId> <holder>`, breakLock).
   */
  lockLeft: { packId: string; holder: string } | null = null;
}

const VERB: Partial<Record<PlanStep['action'], string>> = {
  create: 'creating',
  update: 'updating',
  conflict: 'overwriting',
  remove: 'removing',
};

/**
 * The scope a write into each collection needs (`write_<collection>`, docs/catalog-api.md);
 * `full_access` grants every one, and the ledger needs `write_install_ledgers`.
 */
const writeScope = (c: WorkspaceCollection) => `write_${c}`;

/**
 * Checks, before the first write, that the key may make every write the plan lists: a key
 * without `write_automations` would otherwise create the resources, templates and lists and then
 * be refused at the first automation, leaving the install half done. Reads the key's scopes from
 * `GET /v1/me`; a workspace without that endpoint (404) is not checked.
 */
export async function checkWriteScopes(client: WorkspaceClient, steps: readonly PlanStep[]): Promise<void> {
  let scopes: string[];
  try {
    const me = await client.get<{ api_key?: { scopes?: unknown } }>('/v1/me');
    if (!Array.isArray(me?.api_key?.scopes)) return;
    scopes = me.api_key.scopes.filter((s): s is string => typeof s === 'string').map((s) => s.toLowerCase());
  } catch (e) {
    if (e instanceof WorkspaceApiError && e.isNotFound) return;
    throw e;
  }
  if (scopes.includes('full_access')) return;
  const missing = new Map<string, PlanStep[]>();
  const need = (scope: string, step?: PlanStep) => {
    if (scopes.includes(scope)) return;
    const list = missing.get(scope) ?? [];
    if (step) list.push(step);
    missing.set(scope, list);
  };
  for (const step of steps) if (step.write) need(writeScope(step.collection), step);
  need('write_install_ledgers');
  if (!missing.size) return;
  const what = [...missing].map(([scope, s]) => {
    if (!s.length) return `${scope} (for the install ledger)`;
    const shown = s.slice(0, 3).map(stepLabel).join(', ');
    return `${scope} (to write ${shown}${s.length > 3 ? ` and ${s.length - 3} more` : ''})`;
  });
  const scopesNeeded = missing.size > 1 ? `${missing.size} scopes this run needs: ` : 'a scope this run needs: ';
  throw new WorkspaceApiError(
    403,
    'permission_error',
    `This API key lacks ${scopesNeeded}${what.join(', ')}; nothing was written: use a key with ${missing.size > 1 ? 'them' : 'it'} or full_access`,
    'scopes',
    'GET',
    '/v1/me',
  );
}

export class PlanFailedError extends Error {
  constructor(readonly plan: PlanResult) {
    super(`The plan failed:\n${plan.errors.map((e) => `  - ${e.message}`).join('\n')}`);
    this.name = 'PlanFailedError';
  }
}

export interface ProgressEvent {
  done: number;
  total: number;
  step: PlanStep;
}

export interface InstallOptions extends PlanInstallOptions {
  /** Plan only; write nothing. */
  dryRun?: boolean;
  /** Lock holder name (shown to a second install that finds the lock taken). */
  holder?: string;
  /** Lock expiry; every checkpoint renews it. */
  lockTtlSeconds?: number;
  /** Checkpoint the ledger after this many writes (default 25; and at the end). */
  checkpointEvery?: number;
  onProgress?: (e: ProgressEvent) => void;
}

export interface InstallResult {
  plan: PlanResult;
  /** Item writes made. */
  written: number;
  ledger: InstallLedger | null;
}

/**
 * A pack with validation errors, given to planInstall or install: refused before any request. The
 * planner reads a pack as the format states it; given anything else it failed with a TypeError, or
 * (`{}`) planned a ledger for the packId `undefined`.
 */
export class InvalidPackError extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    const first = diagnostics[0];
    super(
      `The pack is not valid (${plural(diagnostics.length, 'error')}; first: ${first.message} at ${first.pointer || '/'}); validate it with setup-pack validate`,
    );
    this.name = 'InvalidPackError';
  }
}

export interface PlanInstallOptions extends PlanOptions {
  /** The caller has validated the pack (the CLI's readPack): not validated again. */
  validated?: boolean;
  /**
   * The workspace's ledger list, when the caller has just read it (listLedgers): the pack's ledger
   * and the others' are taken from it rather than read again. The list answers 200 whatever is
   * installed, where a pack's own address answers 404 for one not installed, which a browser logs.
   */
  ledgers?: readonly ListedLedger[];
}

/**
 * The ledgers of the packs installed in the workspace other than `packId`: what they hold of its
 * items stays (core's plan option `others`, read when planning with prune; the editor's plan
 * preview reads them with this too).
 */
export async function otherLedgers(client: WorkspaceClient, packId: string): Promise<InstallLedger[]> {
  return otherLedgersIn(await listLedgers(client), packId);
}

/** The other packs' ledgers in a ledger list (listLedgers). */
export const otherLedgersIn = (records: readonly ListedLedger[], packId: string): InstallLedger[] =>
  records.flatMap((r) => (r.ledger && r.pack_id !== packId ? [r.ledger] : []));

/**
 * Another pack's run holds its lock in the workspace this run wanted to write: refused, nothing
 * written. A LockTakenError whose packId, holder and expiry are that run's (its lock is the one to
 * break if it crashed); `packId` of this run is `blocked`.
 */
export class WorkspaceBusyError extends LockTakenError {
  constructor(
    readonly blocked: string,
    other: ListedLedger & { lock: NonNullable<ListedLedger['lock']> },
  ) {
    const name = other.ledger?.packName;
    super(
      new WorkspaceApiError(
        409,
        'invalid_request_error',
        `Another install is in progress in this workspace: pack ${other.pack_id}${name ? ` (${JSON.stringify(name)})` : ''} is locked by ${other.lock.holder} until ${other.lock.expires_at}; installs into one workspace run one at a time, as packs may share objects; nothing was written: run this one again when it finishes`,
        'lock',
        'POST',
        `/v1/install-ledgers/${encodeURIComponent(blocked)}/lock`,
        { lock: other.lock },
      ),
      other.pack_id,
      other.lock.holder,
      other.lock.expires_at,
    );
    this.name = 'WorkspaceBusyError';
  }
}

/** The other packs' ledgers by revision (a lock-only record: -1): what a run compares once it has its lock. */
const othersState = (records: readonly ListedLedger[], packId: string) =>
  JSON.stringify(
    records
      .filter((r) => r.pack_id !== packId)
      .map((r) => [r.pack_id, r.ledger ? r.revision : -1])
      .sort(),
  );

/**
 * Runs into one workspace go one at a time, whatever their pack: two packs that carry a tag of
 * one name would each plan to create it (neither sees the other's yet), or one would adopt an
 * object the other is removing. Each run takes its own pack's lock and then, under it, reads the
 * workspace's ledgers: another pack's lock held refuses this run (WorkspaceBusyError; it writes
 * nothing), so of two runs that overlap at least the later one to look stops. When no lock is
 * held but another pack's ledger moved since `before` (read before this run planned: that pack's
 * run finished in between), the plan is stale: the answer is true, and the caller plans again.
 */
async function othersMoved(
  client: WorkspaceClient,
  packId: string,
  before: readonly ListedLedger[],
): Promise<{ moved: boolean; now: ListedLedger[] }> {
  const now = await listLedgers(client);
  const busy = now.find((r): r is ListedLedger & { lock: NonNullable<ListedLedger['lock']> } => r.pack_id !== packId && !!r.lock);
  if (busy) throw new WorkspaceBusyError(packId, busy);
  return { moved: othersState(now, packId) !== othersState(before, packId), now };
}

/** InvalidPackError when the pack has validation errors. */
function assertValid(pack: Pack): void {
  const errors = validatePack(pack).diagnostics.filter(blocksUse);
  if (errors.length) throw new InvalidPackError(errors);
}

/** Reads the ledger and the snapshot the planner needs, and plans. The pack is validated first (InvalidPackError). */
export async function planInstall(
  client: WorkspaceClient,
  pack: Pack,
  options: PlanInstallOptions = {},
): Promise<{ plan: PlanResult; ledger: InstallLedger | null }> {
  if (!options.validated) assertValid(pack);
  const listed = options.ledgers;
  const ledger = listed ? ledgerIn(listed, pack.packId) : ((await readLedger(client, pack.packId))?.ledger ?? null);
  const snapshot = await fetchSnapshot(
    client,
    requiredCollections(pack, ledger),
    ledger?.state === 'in_progress' ? pack.packId : undefined,
  );
  // With prune, what the workspace's other installed packs hold of this one's items stays.
  const others =
    options.prune && ledger ? (listed ? otherLedgersIn(listed, pack.packId) : await otherLedgers(client, pack.packId)) : options.others;
  return { plan: planPack(pack, ledger, snapshot, { ...options, others }), ledger };
}

/** What a run's creations are keyed by (InstallLedger's packId and run). */
type RunKeys = Pick<InstallLedger, 'packId' | 'run'>;

/**
 * A creation the workspace answered with an object made before this run asked for it (an earlier
 * request with the same idempotency key): the plan said the item was new, so the object is not the
 * pack's to record, update or remove later. The run stops instead of taking it over.
 */
export class ReplayedCreationError extends WorkspaceApiError {
  constructor(
    readonly objectId: string,
    path: string,
  ) {
    super(
      409,
      'invalid_request_error',
      `the workspace answered with ${objectId}, an object an earlier request made under the same idempotency key, where the plan said the item is new; it is not recorded as the pack's. Plan again to see the workspace as it is now`,
      'idempotency_key',
      'POST',
      path,
    );
    this.name = 'ReplayedCreationError';
  }
}

/** POSTs a creation; an answer replayed from before this run is refused (ReplayedCreationError). */
async function createOnce(client: WorkspaceClient, step: PlanStep, body: Record<string, unknown>): Promise<WorkspaceObject> {
  const path = COLLECTION_PATH[step.collection];
  const { object, replayed } = await client.create<WorkspaceObject>(path, body);
  if (replayed) throw new ReplayedCreationError(typeof object?.id === 'string' ? object.id : '(no id)', path);
  return object;
}

const idPath = (step: PlanStep) => `${COLLECTION_PATH[step.collection]}/${encodeURIComponent(step.workspaceId ?? '')}`;

/**
 * The request a writing step makes. `beforePut`, when given, is called with the ledger entry the
 * brand will have, before its PUT (which carries no idempotency key) is sent.
 */
async function writeStep(
  client: WorkspaceClient,
  run: RunKeys,
  step: PlanStep,
  items: Record<string, LedgerItem>,
  beforePut?: (pending: LedgerItem) => Promise<void>,
): Promise<LedgerItem | null> {
  if (step.action === 'remove') {
    try {
      if (step.collection === 'brand') await client.delete(COLLECTION_PATH.brand);
      else await client.delete(idPath(step));
    } catch (e) {
      // Already gone (a retried delete whose answer was lost, or removed by hand): the goal holds.
      if (!(e instanceof WorkspaceApiError && e.isNotFound)) throw e;
    }
    return null;
  }
  // A step completing an item written earlier in this run (an automation in a cycle) addresses it by the id that write got.
  if (step.action !== 'create' && !step.workspaceId && items[step.itemId]) step = { ...step, workspaceId: items[step.itemId].workspaceId };
  const resolved = resolveStep(
    run.packId,
    step,
    (id) => items[id] && { workspaceId: items[id].workspaceId, url: items[id].url, stages: items[id].stages },
    run.run,
  );
  if (!resolved) throw new Error(`Internal error: ${step.itemId} needs an item that was not written before it`);
  let written: WorkspaceObject;
  if (step.collection === 'brand') {
    if (beforePut) {
      // The brand's id (one per workspace) is the store's, also before one is set.
      const id = step.workspaceId ?? (await client.get<WorkspaceObject | null>(COLLECTION_PATH.brand))?.id;
      if (typeof id !== 'string') throw client.malformed('GET', COLLECTION_PATH.brand, 'a brand object (with its "id")');
      await beforePut(ledgerItemAfterWrite(step, resolved, { ...resolved.body, id }));
    }
    written = await client.put(COLLECTION_PATH.brand, resolved.body);
  } else if (step.action === 'create')
    written = await createOnce(client, step, { ...resolved.body, idempotency_key: resolved.idempotencyKey });
  else if (step.collection === 'media') written = await client.put(idPath(step), resolved.body);
  else written = await client.patch(idPath(step), resolved.body);
  // The object as written is what the ledger records (its id above all): an answer without one
  // would record an item no later run can find.
  if (!written || typeof written !== 'object' || typeof written.id !== 'string') {
    throw client.malformed(
      step.collection === 'brand' ? 'PUT' : step.action === 'create' ? 'POST' : step.collection === 'media' ? 'PUT' : 'PATCH',
      step.collection === 'brand' || step.action === 'create' ? COLLECTION_PATH[step.collection] : idPath(step),
      'the object written (with its "id")',
    );
  }
  return ledgerItemAfterWrite(step, resolved, written);
}

/** A new run's id (InstallLedger.run): random, so no two installs' idempotency keys meet. */
const newRunId = () => globalThis.crypto.randomUUID();

function ledgerFrom(prev: InstallLedger | null, pack: Pack, p: PlanResult): InstallLedger {
  const items: Record<string, LedgerItem> = { ...(prev?.items ?? {}) };
  for (const [id, item] of Object.entries(p.ledgerUpdates)) {
    if (item) items[id] = item;
    else delete items[id];
  }
  // A resumed run keeps its run (its creations' idempotency keys); any other run is a new one.
  const run = prev?.state === 'in_progress' ? prev.run : newRunId();
  return {
    packId: pack.packId,
    packName: pack.name,
    version: prev?.version ?? null,
    state: 'in_progress',
    targetVersion: pack.version,
    items,
    bindings: { ...p.ledgerBindings },
    ...(run === undefined ? {} : { run }),
    // What the workspace has no field for (description, asset roles…), so export gives it back.
    source: ledgerSourceOf(pack),
  };
}

/**
 * Installs or upgrades `pack`. Plans without the lock first, so a workspace already up to date
 * costs reads only; otherwise takes the lock, re-plans if the ledger moved meanwhile, and applies.
 */
export async function install(client: WorkspaceClient, pack: Pack, options: InstallOptions = {}): Promise<InstallResult> {
  // The workspace's installs before this one plans, to tell once locked whether another pack's run came in between.
  if (!options.validated) assertValid(pack);
  const before = await listLedgers(client);
  let { plan, ledger } = await planInstall(client, pack, { ...options, validated: true, ledgers: before });
  if (!plan.ok) throw new PlanFailedError(plan);
  if (options.dryRun || !plan.hasChanges) return { plan, written: 0, ledger };
  await checkWriteScopes(client, plan.steps);

  const holder = options.holder ?? `setup-pack-${Math.random().toString(36).slice(2, 10)}`;
  const lock = await LedgerLock.acquire(client, pack.packId, holder, options.lockTtlSeconds ?? LEDGER_LOCK.ttlSeconds.default);
  let finished = false;
  let failure: unknown;
  let current: InstallLedger | null = null;
  let written = 0;
  try {
    const { moved, now } = await othersMoved(client, pack.packId, before);
    if (moved || (ledgerIn(now, pack.packId)?.revision ?? 0) !== (ledger?.revision ?? 0)) {
      // Another run changed the workspace between our plan and our lock: plan again on fresh state.
      ({ plan, ledger } = await planInstall(client, pack, { ...options, validated: true, ledgers: now }));
      if (!plan.ok) throw new PlanFailedError(plan);
    }
    current = ledgerFrom(ledger, pack, plan);
    // Record the run before its first write: status shows it in progress, and what it adopted.
    await lock.write(current);
    const total = plan.writes;
    const every = Math.max(1, options.checkpointEvery ?? 25);
    let sinceCheckpoint = 0;
    for (const step of plan.steps) {
      if (!step.write) continue;
      let item: LedgerItem | null;
      const ledgerNow = current;
      // The brand is written with PUT, which carries no idempotency key: a run killed after the
      // workspace took it and before the ledger recorded it would leave a brand the next run
      // cannot tell from the user's (it would adopt it, and never update or remove it). So a
      // brand the ledger does not hold yet is recorded as the pack's before its PUT is sent (a
      // run killed before the PUT leaves a ledger entry whose brand is missing: the next run
      // creates it, or finds the user's there and reports a conflict).
      const recordFirst =
        step.collection === 'brand' && !ledgerNow.items[step.itemId]
          ? async (pending: LedgerItem) => {
              ledgerNow.items[step.itemId] = pending;
              await lock.write(ledgerNow);
              sinceCheckpoint = 0;
            }
          : undefined;
      try {
        item = await writeStep(client, current, step, current.items, recordFirst);
      } catch (e) {
        if (recordFirst && ledgerNow.items[step.itemId] && e instanceof WorkspaceApiError && !e.retryable) {
          // The workspace refused the brand (it answered; nothing was set): it is not the pack's.
          delete ledgerNow.items[step.itemId];
          await lock.write(ledgerNow).catch(() => {});
        }
        if (e instanceof WorkspaceApiError) throw new InstallStepError(e, step, written, total);
        throw e;
      }
      if (item) current.items[step.itemId] = item;
      else delete current.items[step.itemId];
      written++;
      options.onProgress?.({ done: written, total, step });
      if (++sinceCheckpoint >= every && written < total) {
        await lock.write(current);
        sinceCheckpoint = 0;
      }
    }
    // Bindings to items this run created, now that they have workspace ids (core's itemBindings).
    const items = current.items;
    current = {
      ...current,
      version: pack.version,
      state: 'installed',
      targetVersion: null,
      bindings: { ...current.bindings, ...itemBindings(plan.bindings, (id) => items[id]) },
    };
    await lock.write(current);
    finished = true;
    return { plan, written, ledger: current };
  } catch (e) {
    failure = e;
    throw e;
  } finally {
    // Best effort on failure: record what was written so a rerun resumes, then free the lock.
    if (!finished && current && written > 0) await lock.write(current).catch(() => {});
    const released = await lock.release().then(
      () => true,
      () => false,
    );
    if (!released && failure instanceof InstallStepError) failure.lockLeft = { packId: pack.packId, holder };
  }
}

export interface UninstallResult {
  plan: PlanResult;
  removed: number;
  /** Items kept: edited by the user (they now belong to the workspace), and media such a kept item shows. */
  kept: PlanStep[];
}

/** Removes what the pack owns and the user did not edit, then the ledger. */
export async function uninstall(
  client: WorkspaceClient,
  packId: string,
  options: { holder?: string; lockTtlSeconds?: number; dryRun?: boolean } = {},
): Promise<UninstallResult> {
  const notInstalled = () =>
    new WorkspaceApiError(404, 'invalid_request_error', `Pack ${packId} is not installed in this workspace`, 'pack_id');
  let record = await readLedger(client, packId);
  if (!record) throw notInstalled();
  const collectionsOf = (ledger: InstallLedger) => [...new Set(Object.values(ledger.items).map((i) => i.collection))].sort();
  const before = await listLedgers(client);
  // The other packs installed here: what they adopted from this one, or bound to, stays.
  const planned = (ledger: InstallLedger, snap: WorkspaceSnapshot, records: readonly ListedLedger[]) =>
    planUninstall(
      ledger,
      snap,
      records.flatMap((r) => (r.ledger && r.pack_id !== packId ? [r.ledger] : [])),
    );
  let plan = planned(record.ledger, await fetchSnapshot(client, collectionsOf(record.ledger)), before);
  const keptOf = (p: PlanResult) => p.steps.filter((s) => s.action === 'conflict' || s.action === 'orphan');
  if (options.dryRun) return { plan, removed: 0, kept: keptOf(plan) };
  await checkWriteScopes(client, plan.steps);
  const holder = options.holder ?? `setup-pack-uninstall-${Math.random().toString(36).slice(2, 10)}`;
  const lock = await LedgerLock.acquire(client, packId, holder, options.lockTtlSeconds ?? LEDGER_LOCK.ttlSeconds.default);
  let failure: unknown;
  let removed = 0;
  let done = false;
  let items: Record<string, LedgerItem> = {};
  try {
    // Another pack's run in progress refuses this one; one that finished since the plan may have adopted what it removes.
    const moved = await othersMoved(client, packId, before);
    // This pack's ledger as it is under the lock: a run of this pack that finished since it was read
    // (an upgrade that created items, another uninstall) changed what there is to remove.
    const now = await readLedger(client, packId);
    if (!now) throw notInstalled();
    if (moved || now.revision !== record.revision) {
      record = now;
      plan = planned(now.ledger, await fetchSnapshot(client, collectionsOf(now.ledger)), await listLedgers(client));
      await checkWriteScopes(client, plan.steps);
    }
    items = { ...record.ledger.items };
    const kept = keptOf(plan);
    for (const step of plan.steps) {
      if (!step.write) continue;
      try {
        await writeStep(client, { packId }, step, items);
      } catch (e) {
        if (e instanceof WorkspaceApiError) throw new InstallStepError(e, step, removed, plan.writes, 'uninstall');
        throw e;
      }
      delete items[step.itemId];
      removed++;
    }
    await lock.deleteLedger();
    done = true;
    return { plan, removed, kept };
  } catch (e) {
    failure = e;
    throw e;
  } finally {
    if (!done) {
      if (removed > 0) await lock.write({ ...record.ledger, items }).catch(() => {});
      const released = await lock.release().then(
        () => true,
        () => false,
      );
      if (!released && failure instanceof InstallStepError) failure.lockLeft = { packId, holder };
    }
  }
}
