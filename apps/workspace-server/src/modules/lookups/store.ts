import type { Db } from '../../db/db.js';
import { iso } from '../../db/db.js';
import { newCollectionId } from '../../shared/ids.js';
import { listByCreation, Params } from '../../db/sql.js';

/** The columns every lookup row has. */
interface NamedRow {
  id: string;
  name: string;
  created_at: Date | string;
}

export const listTags = (db: Db, ws: string, limit: number, cursor?: string) =>
  listByCreation(db, 'tags', ws, { limit, cursor }, (r: NamedRow & { color: string | null }) => ({
    id: r.id,
    name: r.name,
    color: r.color ?? null,
    created_at: iso(r.created_at),
  }));

export const listContactStages = (db: Db, ws: string, limit: number, cursor?: string) =>
  listByCreation(db, 'contact_stages', ws, { limit, cursor }, (r: NamedRow & { position: number | string }) => ({
    id: r.id,
    name: r.name,
    position: Number(r.position),
    created_at: iso(r.created_at),
  }));

export const listLeadSources = (db: Db, ws: string, limit: number, cursor?: string) =>
  listByCreation(db, 'lead_sources', ws, { limit, cursor }, (r: NamedRow) => ({
    id: r.id,
    name: r.name,
    created_at: iso(r.created_at),
  }));

export const listMembers = (db: Db, ws: string, limit: number, cursor?: string) =>
  listByCreation(db, 'members', ws, { limit, cursor }, (r: NamedRow & { email: string }) => ({
    id: r.id,
    name: r.name,
    email: r.email,
    created_at: iso(r.created_at),
  }));

export interface PipelineStage {
  id: string;
  name: string;
  type: string;
  position: number;
}

export async function listPipelines(db: Db, ws: string, limit: number, cursor?: string) {
  const page = await listByCreation(db, 'pipelines', ws, { limit, cursor }, (r: NamedRow & { position: number | string }) => ({
    id: r.id,
    name: r.name,
    position: Number(r.position),
    stages: [] as PipelineStage[],
    created_at: iso(r.created_at),
  }));
  if (page.data.length) {
    const q = new Params();
    const { rows } = await db.query<PipelineStage & { pipeline_id: string }>(
      `SELECT * FROM pipeline_stages WHERE pipeline_id IN ${q.list(page.data.map((p) => p.id))} ORDER BY position, id`,
      q.values,
    );
    const byPipeline = new Map(page.data.map((p) => [p.id, p]));
    for (const r of rows)
      byPipeline.get(r.pipeline_id)?.stages.push({ id: r.id, name: r.name, type: r.type, position: Number(r.position) });
  }
  return page;
}

/** Tags made by the demo seed and tests; the API creates them through the catalog routes. */
export async function createTag(db: Db, ws: string, name: string, color: string | null, now: Date) {
  const { rows } = await db.query<{ id: string }>(
    'INSERT INTO tags (id, workspace_id, name, color, created_at) VALUES ($1,$2,$3,$4,$5::timestamptz) RETURNING *',
    [newCollectionId('tags'), ws, name, color, now.toISOString()],
  );
  return { id: rows[0].id, name, color };
}
