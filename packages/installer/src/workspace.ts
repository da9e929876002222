// Reading workspace state for the planner: the snapshot of the collections it needs, and the
// install ledger with its lock. Paths are core's COLLECTION_PATH (docs/catalog-api.md).
import {
  COLLECTION_PATH,
  idempotencyPrefix,
  LIST_PATH,
  type InstallLedger,
  type WorkspaceCollection,
  type WorkspaceObject,
  type WorkspaceSnapshot,
} from '@setup-pack/core';
import { installLockOf, WorkspaceApiError, type InstallLock, type WorkspaceClient } from './client.js';

/**
 * Reads each collection completely (every cursor page). Pipelines are read with their details
 * (description, stage colors and probabilities), which the content hash covers.
 */
export async function fetchSnapshot(
  client: WorkspaceClient,
  collections: WorkspaceCollection[],
  resumeOf?: string,
): Promise<WorkspaceSnapshot> {
  const snapshot: WorkspaceSnapshot = { collections: {} };
  if (resumeOf !== undefined) {
    // Resuming an interrupted run: what did it create before its last checkpoint?
    const keys = await client.listAll<{ key: string; object_id: string }>(
      `/v1/idempotency-keys?prefix=${encodeURIComponent(idempotencyPrefix(resumeOf))}`,
    );
    snapshot.createdByKey = Object.fromEntries(keys.map((k) => [k.key, k.object_id]));
  }
  // A key that may not read some collections is told all of them at once, not one per run.
  const refused: WorkspaceApiError[] = [];
  for (const c of collections) {
    try {
      await readCollection(client, snapshot, c);
    } catch (e) {
      if (e instanceof WorkspaceApiError && e.status === 403) refused.push(e);
      else throw e;
    }
  }
  if (refused.length === 1) throw refused[0];
  if (refused.length) {
    const what = refused.map((e) => `${e.method} ${e.path} (${e.message})`).join('; ');
    throw new WorkspaceApiError(
      403,
      'permission_error',
      `This API key may not read ${refused.length} of the collections the plan needs: ${what}; nothing was written: use a key with those scopes or full_access`,
      'scopes',
      refused[0].method,
      refused[0].path,
    );
  }
  return snapshot;
}

async function readCollection(client: WorkspaceClient, snapshot: WorkspaceSnapshot, c: WorkspaceCollection): Promise<void> {
  if (c === 'brand') {
    const brand = await client.get<WorkspaceObject>(COLLECTION_PATH.brand);
    if (brand !== null && typeof brand !== 'object') throw client.malformed('GET', COLLECTION_PATH.brand, 'a brand object');
    snapshot.collections.brand = brand && brand.fields ? [brand] : [];
    return;
  }
  snapshot.collections[c] = await client.listAll<WorkspaceObject>(LIST_PATH[c] ?? COLLECTION_PATH[c]);
}

export interface LedgerRecord {
  pack_id: string;
  revision: number;
  ledger: InstallLedger;
  lock: InstallLock | null;
  created_at: string;
  updated_at: string;
}

/**
 * A record of the ledger list: a pack's ledger, or, for a pack whose lock a run took and which it
 * never wrote a ledger for (killed before its first checkpoint), `ledger: null` beside that lock.
 */
export type ListedLedger = LedgerRecord | (Omit<LedgerRecord, 'ledger'> & { ledger: null });

const ledgerPath = (packId: string) => `/v1/install-ledgers/${encodeURIComponent(packId)}`;

/** The pack's ledger; null when it has none (never installed, or a run has the lock and wrote none yet). */
export async function readLedger(client: WorkspaceClient, packId: string): Promise<LedgerRecord | null> {
  try {
    const r = await client.get<ListedLedger>(ledgerPath(packId));
    // Locked by a run that has not written its first checkpoint: nothing is installed yet.
    if (r && typeof r === 'object' && r.ledger === null) return null;
    if (!r || typeof r !== 'object' || !r.ledger || typeof r.ledger !== 'object' || !r.ledger.items || typeof r.ledger.items !== 'object') {
      throw client.malformed('GET', ledgerPath(packId), 'an install ledger ({"ledger": {"items": ...}, "revision": ...})');
    }
    return { ...r, ledger: { ...r.ledger, revision: r.revision } };
  } catch (e) {
    if (e instanceof WorkspaceApiError && e.isNotFound) return null;
    throw e;
  }
}

/** Every ledger of the workspace, and every pack a run has locked before writing its ledger. */
export async function listLedgers(client: WorkspaceClient): Promise<ListedLedger[]> {
  return client.listAll<ListedLedger>('/v1/install-ledgers');
}

/**
 * The pack's ledger in a ledger list (listLedgers), with its revision; null when the list has none
 * for it. The list answers 200 whatever is installed, where a pack's own address answers 404 for
 * one not installed, which a browser logs as an error.
 */
export function ledgerIn(records: readonly ListedLedger[], packId: string): InstallLedger | null {
  const r = records.find((x) => x.pack_id === packId);
  return r?.ledger ? { ...r.ledger, revision: r.revision } : null;
}

/**
 * The lock request of an install or uninstall refused (409): another run holds the pack's lock.
 * Who holds it and until when, when known, so the caller can say how to break it if that run is
 * dead (breakLock, `setup-pack unlock <packId> <holder>`).
 */
export class LockTakenError extends WorkspaceApiError {
  constructor(
    cause: WorkspaceApiError,
    readonly packId: string,
    readonly holder: string | null,
    readonly expiresAt: string | null,
  ) {
    super(cause.status, cause.type, cause.message, cause.param, cause.method, cause.path, cause.fields);
    this.name = 'LockTakenError';
  }
}

/**
 * Who holds the lock a 409 was about: the error's `lock` field (docs/api.md, Conventions). Its message
 * is for people and is never parsed. The GET below is kept for a server that answers the 409
 * without the field (an implementation of docs/catalog-api.md from before it had one): its ledger
 * record has always shown the lock, and reading it there, one request and only on such a refusal,
 * is what lets the refusal name whom to unlock rather than say only that the pack is locked.
 */
async function lockHeld(client: WorkspaceClient, packId: string, e: WorkspaceApiError): Promise<InstallLock | null> {
  if (e.fields.lock) return e.fields.lock;
  try {
    return installLockOf((await client.get<{ lock?: unknown } | null>(ledgerPath(packId)))?.lock) ?? null;
  } catch {
    return null;
  }
}

/** What breakLock did: released the lock, or not, because another holder has it or nobody does. */
export type BreakLockResult =
  | { packId: string; released: true }
  | { packId: string; released: false; reason: 'held'; holder: string | null; expiresAt: string | null }
  | { packId: string; released: false; reason: 'not-held' };

/**
 * Breaks the pack's lock that `holder` holds: the way out when a run crashed or was killed and
 * left its lock until it expires. Naming the holder (as the refused install or status showed it),
 * not taking any lock: a run in progress under another holder is never broken by accident.
 */
export async function breakLock(client: WorkspaceClient, packId: string, holder: string): Promise<BreakLockResult> {
  try {
    const r = await client.post<{ released?: boolean }>(`${ledgerPath(packId)}/unlock`, { holder });
    if (r?.released === true) return { packId, released: true };
    return { packId, released: false, reason: 'not-held' };
  } catch (e) {
    if (!(e instanceof WorkspaceApiError)) throw e;
    // Never locked (404), or not held by that holder now (409 on `holder`).
    if (e.isNotFound || (e.isConflict && e.param === 'holder')) return { packId, released: false, reason: 'not-held' };
    if (e.isConflict) {
      const lock = await lockHeld(client, packId, e);
      return { packId, released: false, reason: 'held', holder: lock?.holder ?? null, expiresAt: lock?.expires_at ?? null };
    }
    throw e;
  }
}

/** The ledger lock of one install run: renewed by every checkpoint, released at the end. */
export class LedgerLock {
  private constructor(
    private readonly client: WorkspaceClient,
    readonly packId: string,
    readonly token: string,
    readonly ttlSeconds: number,
  ) {}

  static async acquire(client: WorkspaceClient, packId: string, holder: string, ttlSeconds: number): Promise<LedgerLock> {
    let r: { token: string };
    try {
      r = await client.post<{ token: string }>(`${ledgerPath(packId)}/lock`, { holder, ttl_seconds: ttlSeconds });
    } catch (e) {
      if (!(e instanceof WorkspaceApiError && e.isConflict)) throw e;
      const lock = await lockHeld(client, packId, e);
      throw new LockTakenError(e, packId, lock?.holder ?? null, lock?.expires_at ?? null);
    }
    if (typeof r?.token !== 'string') throw client.malformed('POST', `${ledgerPath(packId)}/lock`, 'a lock ({"token": ...})');
    return new LedgerLock(client, packId, r.token, ttlSeconds);
  }

  async write(ledger: InstallLedger): Promise<number> {
    const { revision: _revision, ...doc } = ledger;
    const r = await this.client.put<{ revision: number }>(ledgerPath(this.packId), {
      lock_token: this.token,
      ledger: doc,
      ttl_seconds: this.ttlSeconds,
    });
    return r.revision;
  }

  async release(): Promise<void> {
    try {
      await this.client.post(`${ledgerPath(this.packId)}/unlock`, { lock_token: this.token });
    } catch (e) {
      // A retried unlock whose first attempt succeeded finds the lock already free.
      if (!(e instanceof WorkspaceApiError && (e.isConflict || e.isNotFound))) throw e;
    }
  }

  async deleteLedger(): Promise<void> {
    try {
      await this.client.post(`${ledgerPath(this.packId)}/delete`, { lock_token: this.token });
    } catch (e) {
      if (!(e instanceof WorkspaceApiError && (e.isConflict || e.isNotFound))) throw e;
    }
  }
}
