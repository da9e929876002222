import type { Db, Queryable } from '../../db/db.js';
import { fixedStageProbability, missingClosedStages, repeatedStageNames, type StageType, type WorkspaceCollection } from '@setup-pack/core';
import { iso } from '../../db/db.js';
import { ApiError, badRequest, notFound, type InstallLock } from '../../shared/errors.js';
import { newCollectionId, newId } from '../../shared/ids.js';
import { shownOfPipeline, shownOfStage, touchDealsOfPipeline } from '../deals/store.js';
import { decodeCursor, finishPage, keysetCondition, listByCreation, Params, type Page } from '../../db/sql.js';

/** A generic catalog object as the API returns it: id, name, its fields, timestamps. */
export type CatalogObject = { id: string; name: string; created_at: string; updated_at: string } & Record<string, unknown>;

/** A row of catalog_objects: the object's fields are its data. */
interface ObjectRow {
  id: string;
  name: string;
  data: Record<string, unknown> | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toObject = (r: ObjectRow): CatalogObject => ({
  ...r.data,
  id: r.id,
  name: r.name,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export function listObjects(db: Db, ws: string, collection: string, limit: number, cursor?: string): Promise<Page<CatalogObject>> {
  return listByCreation(db, 'catalog_objects', ws, { limit, cursor, filters: { collection } }, toObject);
}

export async function getObject(db: Queryable, ws: string, collection: string, id: string, what: string): Promise<CatalogObject> {
  const { rows } = await db.query<ObjectRow>('SELECT * FROM catalog_objects WHERE workspace_id = $1 AND collection = $2 AND id = $3', [
    ws,
    collection,
    id,
  ]);
  if (!rows[0]) throw notFound(what, 'id');
  return toObject(rows[0]);
}

export async function findObject(db: Queryable, ws: string, collection: string, id: string): Promise<CatalogObject | null> {
  const { rows } = await db.query<ObjectRow>('SELECT * FROM catalog_objects WHERE workspace_id = $1 AND collection = $2 AND id = $3', [
    ws,
    collection,
    id,
  ]);
  return rows[0] ? toObject(rows[0]) : null;
}

export async function insertObject(
  db: Queryable,
  ws: string,
  collection: WorkspaceCollection,
  name: string,
  data: Record<string, unknown>,
  now: Date,
  id = newCollectionId(collection),
): Promise<CatalogObject> {
  const at = now.toISOString();
  const { rows } = await db.query<ObjectRow>(
    'INSERT INTO catalog_objects (id, workspace_id, collection, name, data, created_at, updated_at) VALUES ($1,$2,$3,$4,$5::jsonb,$6::timestamptz,$6::timestamptz) RETURNING *',
    [id, ws, collection, name, JSON.stringify(data), at],
  );
  return toObject(rows[0]);
}

export async function updateObject(
  db: Queryable,
  ws: string,
  collection: string,
  id: string,
  name: string,
  data: Record<string, unknown>,
  now: Date,
  what: string,
): Promise<CatalogObject> {
  const { rows } = await db.query<ObjectRow>(
    'UPDATE catalog_objects SET name = $4, data = $5::jsonb, updated_at = $6::timestamptz WHERE workspace_id = $1 AND collection = $2 AND id = $3 RETURNING *',
    [ws, collection, id, name, JSON.stringify(data), now.toISOString()],
  );
  if (!rows[0]) throw notFound(what, 'id');
  return toObject(rows[0]);
}

export async function deleteObject(
  db: Queryable,
  ws: string,
  collection: string,
  id: string,
  what: string,
): Promise<{ id: string; deleted: boolean }> {
  const { rows } = await db.query('DELETE FROM catalog_objects WHERE workspace_id = $1 AND collection = $2 AND id = $3 RETURNING id', [
    ws,
    collection,
    id,
  ]);
  if (!rows[0]) throw notFound(what, 'id');
  return { id, deleted: true };
}

/**
 * Runs a creation at most once per idempotency key. The key is claimed first inside the
 * transaction, so a concurrent retry waits on the claim and then answers with the same object.
 */
export async function createOnce<T extends { id: string }>(
  db: Db,
  ws: string,
  collection: string,
  key: string | null | undefined,
  now: Date,
  create: (tx: Queryable) => Promise<T>,
  load: (tx: Queryable, id: string) => Promise<T | null>,
): Promise<{ object: T; replayed: boolean }> {
  if (!key) return { object: await db.transaction(create), replayed: false };
  return db.transaction(async (tx) => {
    const claimed = await tx.query(
      'INSERT INTO catalog_idempotency (workspace_id, key, collection, created_at) VALUES ($1,$2,$3,$4::timestamptz) ON CONFLICT DO NOTHING RETURNING key',
      [ws, key, collection, now.toISOString()],
    );
    if (!claimed.rows[0]) {
      const { rows } = await tx.query<{ collection: string; object_id: string | null }>(
        'SELECT collection, object_id FROM catalog_idempotency WHERE workspace_id = $1 AND key = $2',
        [ws, key],
      );
      if (rows[0]?.collection !== collection)
        throw badRequest('This idempotency_key was used for another kind of object', 'idempotency_key');
      const existing = rows[0].object_id ? await load(tx, rows[0].object_id) : null;
      if (existing) return { object: existing, replayed: true };
      // The object made under this key was deleted since: the key no longer stands for anything.
      const object = await create(tx);
      await tx.query('UPDATE catalog_idempotency SET object_id = $3 WHERE workspace_id = $1 AND key = $2', [ws, key, object.id]);
      return { object, replayed: false };
    }
    const object = await create(tx);
    await tx.query('UPDATE catalog_idempotency SET object_id = $3 WHERE workspace_id = $1 AND key = $2', [ws, key, object.id]);
    return { object, replayed: false };
  });
}

// --- tags, contact stages, lead sources: the tables the lookups already read -----------------

type Named = 'tags' | 'contact_stages' | 'lead_sources';

/** A row of tags, contact_stages or lead_sources: a tag has its colour, a contact stage its position. */
interface NamedRow {
  id: string;
  name: string;
  color?: string | null;
  position?: number;
  created_at: Date | string;
}

const namedRow = (table: Named, r: NamedRow) => {
  const base = { id: r.id, name: r.name, created_at: iso(r.created_at) };
  if (table === 'tags') return { ...base, color: r.color ?? null };
  if (table === 'contact_stages') return { ...base, position: Number(r.position) };
  return base;
};

export async function findNamed(db: Queryable, ws: string, table: Named, id: string) {
  const { rows } = await db.query<NamedRow>(`SELECT * FROM ${table} WHERE workspace_id = $1 AND id = $2`, [ws, id]);
  return rows[0] ? namedRow(table, rows[0]) : null;
}

export async function insertNamed(db: Queryable, ws: string, table: Named, input: { name: string; color?: string | null }, now: Date) {
  const at = now.toISOString();
  if (table === 'tags') {
    const { rows } = await db.query<NamedRow>(
      'INSERT INTO tags (id, workspace_id, name, color, created_at) VALUES ($1,$2,$3,$4,$5::timestamptz) RETURNING *',
      [newCollectionId('tags'), ws, input.name, input.color ?? null, at],
    );
    return namedRow(table, rows[0]);
  }
  if (table === 'contact_stages') {
    const { rows } = await db.query<NamedRow>(
      'INSERT INTO contact_stages (id, workspace_id, name, position, created_at) VALUES ($1,$2,$3,(SELECT coalesce(max(position),0)+1 FROM contact_stages WHERE workspace_id = $2),$4::timestamptz) RETURNING *',
      [newCollectionId('contact_stages'), ws, input.name, at],
    );
    return namedRow(table, rows[0]);
  }
  const { rows } = await db.query<NamedRow>(
    'INSERT INTO lead_sources (id, workspace_id, name, created_at) VALUES ($1,$2,$3,$4::timestamptz) RETURNING *',
    [newCollectionId('lead_sources'), ws, input.name, at],
  );
  return namedRow(table, rows[0]);
}

/**
 * What a contact shows of a tag, contact stage or lead source (modules/contacts/store.ts: a tag's name and
 * colour, a stage's or lead source's name). A stage's position is not shown.
 */
const shown = (table: Named, r: { name: string; color?: string | null }) => (table === 'tags' ? [r.name, r.color ?? null] : [r.name]);

/**
 * Updates a tag, contact stage or lead source. When what a contact shows of it changes (a new name,
 * a tag's new colour), the contacts that have it read differently, so their updated_at moves in
 * the same transaction, as a deletion's does (touchHolders), and an incremental sync
 * (`updated_after`) sees them. A PATCH that changes nothing writes nothing: no contact, and not
 * the row itself (whose update would move the workspace's lookup generation, migration 5, and so
 * write out every cached contact text again).
 */
export async function updateNamed(
  db: Db,
  ws: string,
  table: Named,
  id: string,
  input: { name?: string; color?: string | null },
  what: string,
  now: Date,
) {
  return db.transaction(async (tx) => {
    const existing = await findNamed(tx, ws, table, id);
    if (!existing) throw notFound(what, 'id');
    const next = {
      name: input.name ?? existing.name,
      color: input.color === undefined ? (existing as { color?: string | null }).color : input.color,
    };
    const before = shown(table, existing);
    const after = shown(table, next);
    if (after.every((v, i) => v === before[i])) return existing;
    await touchHolders(tx, ws, table, id, now);
    const { rows } =
      table === 'tags'
        ? await tx.query<NamedRow>('UPDATE tags SET name = $3, color = $4 WHERE workspace_id = $1 AND id = $2 RETURNING *', [
            ws,
            id,
            next.name,
            next.color ?? null,
          ])
        : await tx.query<NamedRow>(`UPDATE ${table} SET name = $3 WHERE workspace_id = $1 AND id = $2 RETURNING *`, [ws, id, next.name]);
    // Deleted by another request since it was read: the deletion touched its contacts.
    if (!rows[0]) throw notFound(what, 'id');
    return namedRow(table, rows[0]);
  });
}

/** The contacts a tag, contact stage or lead source is on, and what deleting it changes in them besides updated_at. */
const holders: Record<Named, { where: string; set: string }> = {
  tags: { where: 'id IN (SELECT contact_id FROM contact_tags WHERE tag_id = $2)', set: '' },
  contact_stages: { where: 'stage_id = $2', set: ', stage_id = NULL' },
  lead_sources: { where: 'lead_source_id = $2', set: ', lead_source_id = NULL' },
};

/**
 * The one statement of the rule for both a rename and a deletion: the contacts that have the tag,
 * contact stage or lead source change how they read, so their updated_at moves to `now` (and, for a
 * deletion, the stage or lead source is cleared: `clear`). They are locked in id order, as the
 * touch trigger does, and before the tag, stage or lead source itself, by both, so a rename and a
 * deletion of the same one never deadlock on each other. No event and no timeline entry: the
 * contact's own fields did not change (docs/events.md).
 */
async function touchHolders(tx: Queryable, ws: string, table: Named, id: string, now: Date, clear = false) {
  const h = holders[table];
  await tx.query(
    `WITH t AS (SELECT id FROM contacts WHERE workspace_id = $1 AND ${h.where} ORDER BY id FOR UPDATE)
      UPDATE contacts c SET updated_at = $3::timestamptz${clear ? h.set : ''} FROM t WHERE c.id = t.id`,
    [ws, id, now.toISOString()],
  );
}

/**
 * Deletes a tag, contact stage or lead source. The contacts that had it change (a tag fewer, no
 * stage or lead source), so their updated_at moves in the same transaction (touchHolders), and an
 * incremental sync (`updated_after`) sees them.
 */
export async function deleteNamed(db: Db, ws: string, table: Named, id: string, what: string, now: Date) {
  return db.transaction(async (tx) => {
    await touchHolders(tx, ws, table, id, now, true);
    const { rows } = await tx.query(`DELETE FROM ${table} WHERE workspace_id = $1 AND id = $2 RETURNING id`, [ws, id]);
    if (!rows[0]) throw notFound(what, 'id');
    return { id, deleted: true };
  });
}

// --- pipelines with stage details ----------------------------------------------------------

export interface StageInput {
  id?: string | null;
  name: string;
  type?: StageType;
  color?: string | null;
  probability?: number | null;
}

export interface PipelineInput {
  name?: string;
  description?: string | null;
  stages?: StageInput[];
}

/** A row of pipelines. */
interface PipelineRow {
  id: string;
  name: string;
  description: string | null;
  position: number;
  created_at: Date | string;
}

/** A row of pipeline_stages. */
interface StageRow {
  id: string;
  pipeline_id: string;
  name: string;
  type: string;
  color: string | null;
  probability: number | null;
  position: number;
}

/** Pipelines with their stages, in the order of `rows`: one query for the stages of them all. */
async function withStages(db: Queryable, rows: PipelineRow[]) {
  const stages = new Map<
    string,
    { id: string; name: string; type: string; color: string | null; probability: number | null; position: number }[]
  >(rows.map((r) => [r.id, []]));
  if (rows.length) {
    const q = new Params();
    const { rows: stageRows } = await db.query<StageRow>(
      `SELECT * FROM pipeline_stages WHERE pipeline_id IN ${q.list(rows.map((r) => r.id))} ORDER BY position, id`,
      q.values,
    );
    for (const s of stageRows) {
      stages.get(s.pipeline_id)?.push({
        id: s.id,
        name: s.name,
        type: s.type,
        color: s.color ?? null,
        probability: s.probability === null || s.probability === undefined ? null : Number(s.probability),
        position: Number(s.position),
      });
    }
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description ?? null,
    position: Number(r.position),
    stages: stages.get(r.id)!,
    created_at: iso(r.created_at),
  }));
}

export async function getPipeline(db: Queryable, ws: string, id: string) {
  const { rows } = await db.query<PipelineRow>('SELECT * FROM pipelines WHERE workspace_id = $1 AND id = $2', [ws, id]);
  return rows[0] ? (await withStages(db, rows))[0] : null;
}

/** Pipelines with stage details, newest first, one page at a time: the installer's snapshot reads these. */
export async function listPipelineDetails(db: Db, ws: string, limit: number, cursor?: string) {
  const page = await listByCreation(db, 'pipelines', ws, { limit, cursor }, (r: PipelineRow) => r);
  return { ...page, data: await withStages(db, page.data) };
}

/** The format's stage rules (core states them once): names unique as written, a won and a lost stage. */
function checkStages(stages: StageInput[]) {
  for (const [i, first] of repeatedStageNames(stages))
    throw badRequest(`Stage names must be unique: stage ${i} is named "${stages[i].name}", like stage ${first}`, `stages[${i}].name`);
  for (const t of missingClosedStages(stages, (s) => s.type ?? 'OPEN'))
    throw badRequest(`A pipeline needs at least one ${t} stage`, 'stages');
}

/** Won stages are 100 and lost stages 0 whatever is given. */
const probabilityOf = (s: StageInput) => fixedStageProbability(s.type) ?? s.probability ?? null;

export async function insertPipeline(
  tx: Queryable,
  ws: string,
  input: Required<Pick<PipelineInput, 'name' | 'stages'>> & PipelineInput,
  now: Date,
) {
  checkStages(input.stages);
  const id = newCollectionId('pipelines');
  await tx.query(
    'INSERT INTO pipelines (id, workspace_id, name, description, position, created_at) VALUES ($1,$2,$3,$4,(SELECT coalesce(max(position),0)+1 FROM pipelines WHERE workspace_id = $2),$5::timestamptz)',
    [id, ws, input.name, input.description ?? null, now.toISOString()],
  );
  for (const [i, s] of input.stages.entries()) {
    await tx.query(
      'INSERT INTO pipeline_stages (id, workspace_id, pipeline_id, name, type, color, probability, position) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
      [newId('stg'), ws, id, s.name, s.type ?? 'OPEN', s.color ?? null, probabilityOf(s), i + 1],
    );
  }
  return (await getPipeline(tx, ws, id))!;
}

/** Whether two lists of shown values are the same. */
const sameValues = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * Updates a pipeline; `stages`, when given, is the whole ordered list: stages with an id are
 * updated and moved, stages without one are added, stages left out are removed (refused while
 * deals sit in them). Only what changes is written: a PATCH that changes nothing writes no row
 * (not the pipeline, a stage or a deal). A new pipeline name, or a stage's new name or type, moves
 * the updated_at of the deals that show it, in this transaction (touchDealsOfPipeline). The
 * pipeline is locked first, so concurrent updates of one pipeline compare against what the one
 * before them wrote; its deals' creations only key-share it, and are not held up.
 */
export async function updatePipeline(tx: Queryable, ws: string, id: string, input: PipelineInput, now: Date) {
  const locked = await tx.query('SELECT id FROM pipelines WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE', [ws, id]);
  if (!locked.rows[0]) throw notFound('pipeline', 'id');
  const existing = (await getPipeline(tx, ws, id))!;
  const next = {
    name: input.name ?? existing.name,
    description: input.description === undefined ? existing.description : input.description,
  };
  if (next.name !== existing.name || next.description !== existing.description) {
    await tx.query('UPDATE pipelines SET name = $3, description = $4 WHERE workspace_id = $1 AND id = $2', [
      ws,
      id,
      next.name,
      next.description,
    ]);
  }
  const touched: string[] = [];
  if (input.stages) {
    const stages = input.stages.map((s) => ({ ...s, type: s.type ?? 'OPEN' }));
    checkStages(stages);
    const have = new Map(existing.stages.map((s) => [s.id, s]));
    const keep = new Set<string>();
    for (const [i, s] of stages.entries()) {
      if (s.id) {
        if (!have.has(s.id)) throw badRequest(`No such stage in this pipeline: ${s.id}`, `stages[${i}].id`);
        if (keep.has(s.id)) throw badRequest(`Stage ${s.id} is listed twice`, `stages[${i}].id`);
        keep.add(s.id);
      }
    }
    const dropped = existing.stages.filter((s) => !keep.has(s.id)).map((s) => s.id);
    if (dropped.length) {
      const q = new Params();
      const used = await tx.query<{ stage_id: string }>(
        `SELECT stage_id FROM deals WHERE stage_id IN ${q.list(dropped)} LIMIT 1`,
        q.values,
      );
      if (used.rows[0])
        throw new ApiError(
          409,
          'invalid_request_error',
          `Stage ${used.rows[0].stage_id} still holds deals; move them before removing it`,
          'stages',
        );
      const q2 = new Params();
      await tx.query(`DELETE FROM pipeline_stages WHERE id IN ${q2.list(dropped)}`, q2.values);
    }
    for (const [i, s] of stages.entries()) {
      const row = { name: s.name, type: s.type, color: s.color ?? null, probability: probabilityOf(s), position: i + 1 };
      const old = s.id ? have.get(s.id) : undefined;
      if (!s.id) {
        await tx.query(
          'INSERT INTO pipeline_stages (id, workspace_id, pipeline_id, name, type, color, probability, position) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
          [newId('stg'), ws, id, row.name, row.type, row.color, row.probability, row.position],
        );
      } else if (old && (Object.keys(row) as (keyof typeof row)[]).some((k) => row[k] !== old[k])) {
        await tx.query('UPDATE pipeline_stages SET name = $2, type = $3, color = $4, probability = $5, position = $6 WHERE id = $1', [
          s.id,
          row.name,
          row.type,
          row.color,
          row.probability,
          row.position,
        ]);
        if (!sameValues(shownOfStage(row), shownOfStage(old))) touched.push(s.id);
      }
    }
  }
  await touchDealsOfPipeline(
    tx,
    ws,
    id,
    { pipeline: !sameValues(shownOfPipeline(next), shownOfPipeline(existing)), stageIds: touched },
    now,
  );
  return (await getPipeline(tx, ws, id))!;
}

export async function deletePipeline(tx: Queryable, ws: string, id: string) {
  const used = await tx.query('SELECT id FROM deals WHERE workspace_id = $1 AND pipeline_id = $2 LIMIT 1', [ws, id]);
  if (used.rows[0]) throw new ApiError(409, 'invalid_request_error', 'The pipeline still holds deals; move or delete them first', 'id');
  const { rows } = await tx.query('DELETE FROM pipelines WHERE workspace_id = $1 AND id = $2 RETURNING id', [ws, id]);
  if (!rows[0]) throw notFound('pipeline', 'id');
  return { id, deleted: true };
}

// --- install ledgers --------------------------------------------------------------------------

export interface LedgerRow {
  pack_id: string;
  revision: number;
  ledger: unknown;
  lock: InstallLock | null;
  created_at: string;
  updated_at: string;
}

/** A row of install_ledgers. A lock's holder and expiry are set with its token. */
interface LedgerRecord {
  pack_id: string;
  revision: number | string;
  ledger: unknown;
  lock_token: string | null;
  lock_holder: string;
  lock_expires_at: Date | string;
  created_at: Date | string;
  updated_at: Date | string;
}

/** Whether a row's lock is held now: taken, and not expired (an expired lock is nobody's). */
const lockLive = (r: LedgerRecord, now: Date): boolean => Boolean(r.lock_token) && new Date(r.lock_expires_at).getTime() > now.getTime();

/**
 * The rows GET and the list show: a pack with a ledger, or one whose lock a run took before its
 * first checkpoint (killed in between: without this its lock, and whom to unlock, showed nowhere).
 * lockLive in SQL, over the alias `t`.
 */
const shownRow = (q: Params, now: Date) =>
  `(t.ledger IS NOT NULL OR (t.lock_token IS NOT NULL AND t.lock_expires_at > ${q.p(now.toISOString())}::timestamptz))`;

const toLedger = (r: LedgerRecord, now: Date): LedgerRow => ({
  pack_id: r.pack_id,
  revision: Number(r.revision),
  ledger: r.ledger ?? null,
  lock: lockLive(r, now) ? { holder: r.lock_holder, expires_at: iso(r.lock_expires_at) } : null,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export async function listLedgers(db: Db, ws: string, limit: number, cursor: string | undefined, now: Date): Promise<Page<LedgerRow>> {
  const q = new Params();
  const where = [`t.workspace_id = ${q.p(ws)}`, shownRow(q, now)];
  const countParams = [...q.values];
  const countWhere = where.join(' AND ');
  // The ledger's key is (workspace, pack_id): the keyset runs over (created_at, pack_id).
  const k = keysetCondition(q, cursor, 't', 'install_ledgers', 'pack_id');
  if (k) where.push(k);
  const [page, count] = await Promise.all([
    db.query<LedgerRecord & { id: string }>(
      `SELECT *, pack_id AS id FROM install_ledgers t WHERE ${where.join(' AND ')} ORDER BY t.created_at DESC, t.pack_id DESC LIMIT ${q.p(limit + 1)}`,
      q.values,
    ),
    db.query<{ n: string }>(`SELECT count(*)::text AS n FROM install_ledgers t WHERE ${countWhere}`, countParams),
  ]);
  return finishPage(
    page.rows,
    limit,
    Number(count.rows[0].n),
    (r) => toLedger(r, now),
    (r) => iso(r.created_at),
    'install_ledgers',
  );
}

export async function getLedger(db: Queryable, ws: string, packId: string, now: Date): Promise<LedgerRow | null> {
  const q = new Params();
  const { rows } = await db.query<LedgerRecord>(
    `SELECT * FROM install_ledgers t WHERE t.workspace_id = ${q.p(ws)} AND t.pack_id = ${q.p(packId)} AND ${shownRow(q, now)}`,
    q.values,
  );
  return rows[0] ? toLedger(rows[0], now) : null;
}

/** The refusal while another holder has the lock: who and until when as data (error.lock), and in words. */
const lockConflict = (r: LedgerRecord) => {
  const lock: InstallLock = { holder: r.lock_holder, expires_at: iso(r.lock_expires_at) };
  return new ApiError(
    409,
    'invalid_request_error',
    `Another install of this pack holds the lock (${lock.holder}) until ${lock.expires_at}`,
    'lock',
    {},
    { lock },
  );
};

/** Takes the pack's lock unless another holder has it and it has not expired. */
export async function acquireLock(db: Db, ws: string, packId: string, holder: string, ttlSeconds: number, now: Date) {
  return db.transaction(async (tx) => {
    await tx.query(
      'INSERT INTO install_ledgers (workspace_id, pack_id, created_at, updated_at) VALUES ($1,$2,$3::timestamptz,$3::timestamptz) ON CONFLICT DO NOTHING',
      [ws, packId, now.toISOString()],
    );
    const { rows } = await tx.query<LedgerRecord>('SELECT * FROM install_ledgers WHERE workspace_id = $1 AND pack_id = $2 FOR UPDATE', [
      ws,
      packId,
    ]);
    const r = rows[0];
    const live = lockLive(r, now);
    if (live && r.lock_holder !== holder) throw lockConflict(r);
    // The same holder asking again (a retry whose answer was lost) gets the same token back.
    const token = live ? (r.lock_token as string) : newId('lck', 16);
    const expires = new Date(now.getTime() + ttlSeconds * 1000);
    await tx.query(
      'UPDATE install_ledgers SET lock_token = $3, lock_holder = $4, lock_expires_at = $5::timestamptz WHERE workspace_id = $1 AND pack_id = $2',
      [ws, packId, token, holder, expires.toISOString()],
    );
    return { pack_id: packId, token, holder, expires_at: expires.toISOString(), revision: Number(r.revision) };
  });
}

/** The lock is the caller's when its token matches and nobody took it over after expiry. */
async function heldRow(tx: Queryable, ws: string, packId: string, token: string) {
  const { rows } = await tx.query<LedgerRecord>('SELECT * FROM install_ledgers WHERE workspace_id = $1 AND pack_id = $2 FOR UPDATE', [
    ws,
    packId,
  ]);
  const r = rows[0];
  if (!r) throw notFound('install ledger', 'pack_id');
  if (r.lock_token !== token) {
    if (r.lock_token) throw lockConflict(r);
    throw new ApiError(
      409,
      'invalid_request_error',
      'The lock is not held; take it with POST /v1/install-ledgers/{pack_id}/lock',
      'lock_token',
    );
  }
  return r;
}

export async function writeLedger(db: Db, ws: string, packId: string, token: string, ledger: unknown, ttlSeconds: number, now: Date) {
  return db.transaction(async (tx) => {
    await heldRow(tx, ws, packId, token);
    const expires = new Date(now.getTime() + ttlSeconds * 1000);
    const { rows } = await tx.query<LedgerRecord>(
      'UPDATE install_ledgers SET ledger = $3::jsonb, revision = revision + 1, lock_expires_at = $4::timestamptz, updated_at = $5::timestamptz WHERE workspace_id = $1 AND pack_id = $2 RETURNING *',
      [ws, packId, JSON.stringify(ledger), expires.toISOString(), now.toISOString()],
    );
    return toLedger(rows[0], now);
  });
}

export async function releaseLock(db: Db, ws: string, packId: string, token: string) {
  return db.transaction(async (tx) => {
    await heldRow(tx, ws, packId, token);
    await tx.query(
      'UPDATE install_ledgers SET lock_token = NULL, lock_holder = NULL, lock_expires_at = NULL WHERE workspace_id = $1 AND pack_id = $2',
      [ws, packId],
    );
    return { pack_id: packId, released: true };
  });
}

/**
 * Breaks the lock by naming its holder (`setup-pack unlock`): a run that crashed or was killed
 * left it, and its token died with it. Released only when that holder holds it now (or held it
 * last and nobody took it since, as its token would): another holder's live lock is a 409 naming
 * it and its expiry, so a run in progress is never broken by a name it does not carry.
 */
export async function releaseLockOf(db: Db, ws: string, packId: string, holder: string, now: Date) {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<LedgerRecord>('SELECT * FROM install_ledgers WHERE workspace_id = $1 AND pack_id = $2 FOR UPDATE', [
      ws,
      packId,
    ]);
    const r = rows[0];
    if (!r) throw notFound('install ledger', 'pack_id');
    if (lockLive(r, now) && r.lock_holder !== holder) throw lockConflict(r);
    if (!r.lock_token || r.lock_holder !== holder) {
      throw new ApiError(409, 'invalid_request_error', `The lock is not held by ${holder}: nothing to release`, 'holder');
    }
    await tx.query(
      'UPDATE install_ledgers SET lock_token = NULL, lock_holder = NULL, lock_expires_at = NULL WHERE workspace_id = $1 AND pack_id = $2',
      [ws, packId],
    );
    return { pack_id: packId, released: true };
  });
}

export async function deleteLedger(db: Db, ws: string, packId: string, token: string) {
  return db.transaction(async (tx) => {
    await heldRow(tx, ws, packId, token);
    await tx.query('DELETE FROM install_ledgers WHERE workspace_id = $1 AND pack_id = $2', [ws, packId]);
    return { pack_id: packId, deleted: true };
  });
}

/** A creation's idempotency key (its id too, for the page's cursor), what it created and when. */
interface IdempotencyRow {
  id: string;
  key: string;
  collection: string;
  object_id: string;
  created_at: Date | string;
}

/** Creations made with an idempotency key (optionally under a prefix), newest first: an installer resuming a run reads its own. */
export async function listIdempotencyKeys(db: Db, ws: string, prefix: string | undefined, limit: number, cursor?: string) {
  const q = new Params();
  const where = [`t.workspace_id = ${q.p(ws)}`, 't.object_id IS NOT NULL'];
  if (prefix) where.push(`starts_with(t.key, ${q.p(prefix)})`);
  const countParams = [...q.values];
  const countWhere = where.join(' AND ');
  if (cursor) {
    const c = decodeCursor(cursor, 'catalog_idempotency');
    where.push(`(t.created_at, t.key) < (${q.p(c.createdAt)}::timestamptz, ${q.p(c.id)})`);
  }
  const [page, count] = await Promise.all([
    db.query<IdempotencyRow>(
      `SELECT t.key AS id, t.key, t.collection, t.object_id, t.created_at FROM catalog_idempotency t WHERE ${where.join(' AND ')} ORDER BY t.created_at DESC, t.key DESC LIMIT ${q.p(limit + 1)}`,
      q.values,
    ),
    db.query<{ n: string }>(`SELECT count(*)::text AS n FROM catalog_idempotency t WHERE ${countWhere}`, countParams),
  ]);
  return finishPage(
    page.rows,
    limit,
    Number(count.rows[0].n),
    (r) => ({ key: r.key, collection: r.collection, object_id: r.object_id, created_at: iso(r.created_at) }),
    (r) => iso(r.created_at),
    'catalog_idempotency',
  );
}
