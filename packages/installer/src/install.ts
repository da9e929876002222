// Install, upgrade and uninstall: fetch state, call the planner, execute the plan. The planner
// decides every change; this file only sends the requests it lists, in its order, and keeps the
// ledger (checkpoints under a lock with an expiry) so an interrupted run resumes cleanly.
import {
  ledgerItemAfterWrite, ledgerSourceOf, plan as planPack, planUninstall, requiredCollections, resolveStep,
  type InstallLedger, type LedgerItem, type Pack, type PlanOptions, type PlanResult, type PlanStep, type WorkspaceObject,
} from '@setup-pack/core';
import { WorkspaceApiError, type WorkspaceClient } from './client.js';
import { COLLECTION_PATH, fetchSnapshot, LedgerLock, readLedger } from './workspace.js';

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

export interface InstallOptions extends PlanOptions {
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

/** Reads the ledger and the snapshot the planner needs, and plans. */
export async function planInstall(client: WorkspaceClient, pack: Pack, options: PlanOptions = {}): Promise<{ plan: PlanResult; ledger: InstallLedger | null }> {
  const record = await readLedger(client, pack.packId);
  const ledger = record?.ledger ?? null;
  const snapshot = await fetchSnapshot(client, requiredCollections(pack, ledger), ledger?.state === 'in_progress' ? pack.packId : undefined);
  return { plan: planPack(pack, ledger, snapshot, options), ledger };
}

const idPath = (step: PlanStep) => `${COLLECTION_PATH[step.collection]}/${encodeURIComponent(step.workspaceId ?? '')}`;

/** The request a writing step makes. */
async function writeStep(client: WorkspaceClient, packId: string, step: PlanStep, items: Record<string, LedgerItem>): Promise<LedgerItem | null> {
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
  const resolved = resolveStep(packId, step, (id) => items[id] && { workspaceId: items[id].workspaceId, url: items[id].url, stages: items[id].stages });
  if (!resolved) throw new Error(`Internal error: ${step.itemId} needs an item that was not written before it`);
  let written: WorkspaceObject;
  if (step.collection === 'brand') written = await client.put(COLLECTION_PATH.brand, resolved.body);
  else if (step.action === 'create') written = await client.post(COLLECTION_PATH[step.collection], { ...resolved.body, idempotency_key: resolved.idempotencyKey });
  else if (step.collection === 'media') written = await client.put(idPath(step), resolved.body);
  else written = await client.patch(idPath(step), resolved.body);
  return ledgerItemAfterWrite(step, resolved, written);
}

function ledgerFrom(prev: InstallLedger | null, pack: Pack, p: PlanResult): InstallLedger {
  const items: Record<string, LedgerItem> = { ...(prev?.items ?? {}) };
  for (const [id, item] of Object.entries(p.ledgerUpdates)) {
    if (item) items[id] = item;
    else delete items[id];
  }
  return {
    packId: pack.packId, packName: pack.name, version: prev?.version ?? null, state: 'in_progress', targetVersion: pack.version, items, bindings: { ...p.ledgerBindings },
    // What the workspace has no field for (description, asset roles…), so export gives it back.
    source: ledgerSourceOf(pack),
  };
}

/**
 * Installs or upgrades `pack`. Plans without the lock first, so a workspace already up to date
 * costs reads only; otherwise takes the lock, re-plans if the ledger moved meanwhile, and applies.
 */
export async function install(client: WorkspaceClient, pack: Pack, options: InstallOptions = {}): Promise<InstallResult> {
  let { plan, ledger } = await planInstall(client, pack, options);
  if (!plan.ok) throw new PlanFailedError(plan);
  if (options.dryRun || !plan.hasChanges) return { plan, written: 0, ledger };

  const holder = options.holder ?? `setup-pack-${Math.random().toString(36).slice(2, 10)}`;
  const lock = await LedgerLock.acquire(client, pack.packId, holder, options.lockTtlSeconds ?? 300);
  let finished = false;
  let current: InstallLedger | null = null;
  let written = 0;
  try {
    const record = await readLedger(client, pack.packId);
    if ((record?.revision ?? 0) !== (ledger?.revision ?? 0)) {
      // Another run changed the ledger between our plan and our lock: plan again on fresh state.
      ({ plan, ledger } = await planInstall(client, pack, options));
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
      const item = await writeStep(client, pack.packId, step, current.items);
      if (item) current.items[step.itemId] = item;
      else delete current.items[step.itemId];
      written++;
      options.onProgress?.({ done: written, total, step });
      if (++sinceCheckpoint >= every && written < total) {
        await lock.write(current);
        sinceCheckpoint = 0;
      }
    }
    current = { ...current, version: pack.version, state: 'installed', targetVersion: null };
    await lock.write(current);
    finished = true;
    return { plan, written, ledger: current };
  } finally {
    // Best effort on failure: record what was written so a rerun resumes, then free the lock.
    if (!finished && current && written > 0) await lock.write(current).catch(() => {});
    await lock.release().catch(() => {});
  }
}

export interface UninstallResult {
  plan: PlanResult;
  removed: number;
  /** Items kept: edited by the user (they now belong to the workspace), and media such a kept item shows. */
  kept: PlanStep[];
}

/** Removes what the pack owns and the user did not edit, then the ledger. */
export async function uninstall(client: WorkspaceClient, packId: string, options: { holder?: string; lockTtlSeconds?: number; dryRun?: boolean } = {}): Promise<UninstallResult> {
  const record = await readLedger(client, packId);
  if (!record) throw new WorkspaceApiError(404, 'invalid_request_error', `Pack ${packId} is not installed in this workspace`, 'pack_id');
  const collections = [...new Set(Object.values(record.ledger.items).map((i) => i.collection))].sort();
  const snapshot = await fetchSnapshot(client, collections);
  const plan = planUninstall(record.ledger, snapshot);
  const kept = plan.steps.filter((s) => s.action === 'conflict' || s.action === 'orphan');
  if (options.dryRun) return { plan, removed: 0, kept };
  const lock = await LedgerLock.acquire(client, packId, options.holder ?? `setup-pack-uninstall-${Math.random().toString(36).slice(2, 10)}`, options.lockTtlSeconds ?? 300);
  let removed = 0;
  let done = false;
  const items = { ...record.ledger.items };
  try {
    for (const step of plan.steps) {
      if (!step.write) continue;
      await writeStep(client, packId, step, items);
      delete items[step.itemId];
      removed++;
    }
    await lock.deleteLedger();
    done = true;
    return { plan, removed, kept };
  } finally {
    if (!done) {
      await lock.write({ ...record.ledger, items }).catch(() => {});
      await lock.release().catch(() => {});
    }
  }
}
