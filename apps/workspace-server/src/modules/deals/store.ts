import { Decimal } from 'decimal.js';
import type { Db, Queryable } from '../../db/db.js';
import { iso, isoOrNull } from '../../db/db.js';
import { badRequest, invalidField } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { recordEvent } from '../events/store.js';
import { parseDealValue } from '../../shared/money.js';
import { storedInstant, storedProblem } from '../../shared/timestamps.js';
import { keysetPage, Params, timeConditions, type Page, type TimeFilters } from '../../db/sql.js';

export interface Deal {
  id: string;
  name: string;
  value: string | null;
  status: string;
  pipeline: { id: string; name: string };
  stage: { id: string; name: string; type: string };
  contact_id: string | null;
  listing_label: string | null;
  expected_close_date: string | null;
  closed_at: string | null;
  lost_reason: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export const statusForStageType: Record<string, string> = { OPEN: 'open', CLOSED_WON: 'won', CLOSED_LOST: 'lost' };
/** statusForStageType as SQL over a stage type column. */
const statusOfType = (type: string) =>
  `CASE ${type} ${Object.entries(statusForStageType)
    .map(([t, s]) => `WHEN '${t}' THEN '${s}'`)
    .join(' ')} ELSE 'open' END`;

/** What a deal shows of its pipeline and its stage (toDeal): their names and the stage's type, which decides its status. */
export const shownOfPipeline = (p: { name: string }) => [p.name];
export const shownOfStage = (s: { name: string; type: string }) => [s.name, s.type];

/**
 * The one statement of what a change of a pipeline does to its deals (PATCH /v1/pipelines/{id}):
 * the deals that show what changed (every deal of a renamed pipeline, the deals in each stage in
 * `stageIds`, renamed or of a new type) read differently, so their updated_at moves to `now`, in
 * the transaction that changed the pipeline, and an incremental sync (`updated_after`) sees them.
 * Their status follows their stage's type, as a move into that stage would set it: closing sets
 * `closed_at`, reopening clears it and `lost_reason`. The caller has written the pipeline and its
 * stages first; the deals are locked in id order. No event: deal.created is a deal's only event
 * (docs/events.md), as a contact's lookups moving its updated_at are none of its own.
 */
export async function touchDealsOfPipeline(
  tx: Queryable,
  ws: string,
  pipelineId: string,
  changed: { pipeline: boolean; stageIds: string[] },
  now: Date,
): Promise<void> {
  if (!changed.pipeline && !changed.stageIds.length) return;
  const q = new Params();
  const [w, p, at] = [q.p(ws), q.p(pipelineId), q.p(now.toISOString())];
  const which = changed.pipeline ? 'true' : `d.stage_id IN ${q.list(changed.stageIds)}`;
  await tx.query(
    `WITH t AS (SELECT d.id FROM deals d WHERE d.workspace_id = ${w} AND d.pipeline_id = ${p} AND ${which} ORDER BY d.id FOR UPDATE),
      st AS (SELECT id, ${statusOfType('type')} AS status FROM pipeline_stages WHERE workspace_id = ${w} AND pipeline_id = ${p})
      UPDATE deals d SET status = st.status,
        closed_at = CASE WHEN st.status = 'open' THEN NULL WHEN d.status = 'open' THEN ${at}::timestamptz ELSE d.closed_at END,
        lost_reason = CASE WHEN st.status = 'open' THEN NULL ELSE d.lost_reason END,
        updated_at = ${at}::timestamptz
      FROM t, st WHERE d.id = t.id AND st.id = d.stage_id`,
    q.values,
  );
}

const DEAL_SELECT = `SELECT d.*, p.name AS pipeline_name, s.name AS stage_name, s.type AS stage_type
  FROM deals d JOIN pipelines p ON p.id = d.pipeline_id JOIN pipeline_stages s ON s.id = d.stage_id`;

/** A row of DEAL_SELECT: the deal's columns, its pipeline's and stage's names and its stage's type. */
interface DealRow {
  id: string;
  name: string;
  /** numeric, as the driver reads it: text. */
  value: string | null;
  status: string;
  pipeline_id: string;
  pipeline_name: string;
  stage_id: string;
  stage_name: string;
  stage_type: string;
  contact_id: string | null;
  listing_label: string | null;
  expected_close_date: Date | string | null;
  closed_at: Date | string | null;
  lost_reason: string | null;
  notes: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const toDeal = (r: DealRow): Deal => ({
  id: r.id,
  name: r.name,
  value: r.value === null || r.value === undefined ? null : new Decimal(r.value).toFixed(2),
  status: r.status,
  pipeline: { id: r.pipeline_id, name: r.pipeline_name },
  stage: { id: r.stage_id, name: r.stage_name, type: r.stage_type },
  contact_id: r.contact_id ?? null,
  listing_label: r.listing_label ?? null,
  expected_close_date: isoOrNull(r.expected_close_date),
  closed_at: isoOrNull(r.closed_at),
  lost_reason: r.lost_reason ?? null,
  notes: r.notes ?? null,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
});

export async function getDealRow(db: Queryable, ws: string, id: string): Promise<Deal | null> {
  const { rows } = await db.query<DealRow>(`${DEAL_SELECT} WHERE d.workspace_id = $1 AND d.id = $2`, [ws, id]);
  return rows[0] ? toDeal(rows[0]) : null;
}

export interface DealFilters extends TimeFilters {
  limit: number;
  cursor?: string;
  pipeline_id?: string;
  stage_id?: string;
  contact_id?: string;
  status?: string;
}

export async function listDeals(db: Db, ws: string, f: DealFilters): Promise<Page<Deal>> {
  const q = new Params();
  const where = [`d.workspace_id = ${q.p(ws)}`];
  if (f.pipeline_id) where.push(`d.pipeline_id = ${q.p(f.pipeline_id)}`);
  if (f.stage_id) where.push(`d.stage_id = ${q.p(f.stage_id)}`);
  if (f.contact_id) where.push(`d.contact_id = ${q.p(f.contact_id)}`);
  if (f.status) where.push(`d.status = ${q.p(f.status)}`);
  where.push(...timeConditions(q, 'd', f));
  return keysetPage(db, { from: 'deals d', alias: 'd', select: DEAL_SELECT, q, where, limit: f.limit, cursor: f.cursor }, toDeal);
}

export interface DealInput {
  name: string;
  stage_id: string;
  value?: string | null;
  contact_id?: string | null;
  expected_close_date?: string | null;
  notes?: string | null;
}

/** YYYY-MM-DD means midnight UTC of that day; anything else must be an RFC 3339 timestamp (shared/timestamps.ts). */
export function parseCloseDate(v: string): string {
  const at = storedInstant(v);
  if (!at) throw invalidField('expected_close_date', storedProblem('date-or-date-time', v)!);
  return at;
}

export async function createDeal(db: Db, ws: string, input: DealInput, now: Date): Promise<Deal> {
  const value = input.value === undefined || input.value === null ? null : parseDealValue(input.value, 'value');
  const expected = input.expected_close_date ? parseCloseDate(input.expected_close_date) : null;
  return db.transaction(async (tx) => {
    // Locked for share: a concurrent change of the stage's type (touchDealsOfPipeline) waits for this
    // deal, or this deal reads the type it committed.
    const st = await tx.query<{ id: string; pipeline_id: string; type: string }>(
      'SELECT id, pipeline_id, type FROM pipeline_stages WHERE workspace_id = $1 AND id = $2 FOR SHARE',
      [ws, input.stage_id],
    );
    if (!st.rows.length) throw badRequest(`No such stage: ${input.stage_id}`, 'stage_id');
    // "" is no contact (the API's "empty string when unset"; a transaction shows none as ""): it was
    // inserted as the id "" and refused by the foreign key as 'No such contact: contact_id ""'.
    if (input.contact_id) {
      const c = await tx.query('SELECT 1 FROM contacts WHERE workspace_id = $1 AND id = $2', [ws, input.contact_id]);
      if (!c.rows.length) throw badRequest(`No such contact: ${input.contact_id}`, 'contact_id');
    }
    const stage = st.rows[0];
    const status = statusForStageType[stage.type] ?? 'open';
    const id = newId('deal');
    const at = now.toISOString();
    await tx.query(
      `INSERT INTO deals (id, workspace_id, name, value, pipeline_id, stage_id, status, contact_id, expected_close_date, closed_at, notes, created_at, updated_at)
       VALUES ($1,$2,$3,$4::numeric,$5,$6,$7,$8,$9::timestamptz,$10::timestamptz,$11,$12::timestamptz,$12::timestamptz)`,
      [
        id,
        ws,
        input.name,
        value,
        stage.pipeline_id,
        stage.id,
        status,
        input.contact_id || null,
        expected,
        status === 'open' ? null : at,
        input.notes ?? null,
        at,
      ],
    );
    const deal = (await getDealRow(tx, ws, id))!;
    await recordEvent(tx, ws, 'deal.created', deal, now);
    return deal;
  });
}
