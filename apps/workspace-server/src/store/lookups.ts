import type { Db } from '../db/db.js';
import { iso } from '../db/db.js';
import { newId } from '../ids.js';
import { finishPage, keysetCondition, Params, type Page, type Row } from './sql.js';

/** The lookup tables share one shape of listing: newest first, cursor, total_count. */
async function listTable<T>(db: Db, table: string, ws: string, limit: number, cursor: string | undefined, map: (r: Row) => T): Promise<Page<T>> {
  const q = new Params();
  const where = [`t.workspace_id = ${q.p(ws)}`];
  const countParams = [...q.values];
  const k = keysetCondition(q, cursor, 't');
  if (k) where.push(k);
  const [page, count] = await Promise.all([
    db.query(`SELECT * FROM ${table} t WHERE ${where.join(' AND ')} ORDER BY t.created_at DESC, t.id DESC LIMIT ${q.p(limit + 1)}`, q.values),
    db.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table} t WHERE t.workspace_id = $1`, countParams),
  ]);
  return finishPage(page.rows, limit, Number(count.rows[0].n), map, (r) => iso(r.created_at));
}

export const listTags = (db: Db, ws: string, limit: number, cursor?: string) =>
  listTable(db, 'tags', ws, limit, cursor, (r) => ({ id: r.id as string, name: r.name as string, color: (r.color ?? null) as string | null, created_at: iso(r.created_at) }));

export const listContactStages = (db: Db, ws: string, limit: number, cursor?: string) =>
  listTable(db, 'contact_stages', ws, limit, cursor, (r) => ({ id: r.id as string, name: r.name as string, position: Number(r.position), created_at: iso(r.created_at) }));

export const listLeadSources = (db: Db, ws: string, limit: number, cursor?: string) =>
  listTable(db, 'lead_sources', ws, limit, cursor, (r) => ({ id: r.id as string, name: r.name as string, created_at: iso(r.created_at) }));

export const listMembers = (db: Db, ws: string, limit: number, cursor?: string) =>
  listTable(db, 'members', ws, limit, cursor, (r) => ({ id: r.id as string, name: r.name as string, email: r.email as string, created_at: iso(r.created_at) }));

export interface PipelineStage {
  id: string;
  name: string;
  type: string;
  position: number;
}

export async function listPipelines(db: Db, ws: string, limit: number, cursor?: string) {
  const page = await listTable(db, 'pipelines', ws, limit, cursor, (r) => ({
    id: r.id as string,
    name: r.name as string,
    position: Number(r.position),
    stages: [] as PipelineStage[],
    created_at: iso(r.created_at),
  }));
  if (page.data.length) {
    const q = new Params();
    const { rows } = await db.query(`SELECT * FROM pipeline_stages WHERE pipeline_id IN ${q.list(page.data.map((p) => p.id))} ORDER BY position, id`, q.values);
    const byPipeline = new Map(page.data.map((p) => [p.id, p]));
    for (const r of rows) byPipeline.get(r.pipeline_id)?.stages.push({ id: r.id, name: r.name, type: r.type, position: Number(r.position) });
  }
  return page;
}

/** Tags are created by the demo seed and tests here; the catalog endpoints (issue 6) will add an API. */
export async function createTag(db: Db, ws: string, name: string, color: string | null, now: Date) {
  const { rows } = await db.query('INSERT INTO tags (id, workspace_id, name, color, created_at) VALUES ($1,$2,$3,$4,$5::timestamptz) RETURNING *', [
    newId('tag'), ws, name, color, now.toISOString(),
  ]);
  return { id: rows[0].id as string, name, color };
}
