import type { Queryable } from '../db/db.js';
import { newId } from '../ids.js';

/**
 * The single hook every write calls inside its database transaction: the outbox row commits or
 * rolls back with the change. Webhook delivery (issue 5) reads from `events`.
 */
export async function recordEvent(
  tx: Queryable,
  workspaceId: string,
  type: string,
  data: unknown,
  at: Date,
  changedFields?: string[],
): Promise<string> {
  const id = newId('evt', 16);
  await tx.query(
    'INSERT INTO events (id, workspace_id, type, data, changed_fields, created_at) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::timestamptz)',
    [id, workspaceId, type, JSON.stringify(data), changedFields ? JSON.stringify(changedFields) : null, at.toISOString()],
  );
  return id;
}
