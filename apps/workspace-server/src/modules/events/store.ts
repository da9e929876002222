import type { Queryable } from '../../db/db.js';
import { newId } from '../../shared/ids.js';
import type { Params } from '../../db/sql.js';

/**
 * The single hook every write calls inside its database transaction: the outbox row commits or
 * rolls back with the change. Webhook delivery reads from `events`.
 */
/** The outbox columns, in the order recordEvent and eventInsertSql write them. */
const EVENT_INSERT = 'INSERT INTO events (id, workspace_id, type, data, changed_fields, created_at)';

/**
 * recordEvent for a write that is one statement (a data-modifying CTE): the same outbox row, its
 * data given as a SQL jsonb expression, inserted once per row of `from` (none when the change
 * wrote nothing; `from` may end in a WHERE). Parameters are added to `q`.
 */
export function eventInsertSql(
  q: Params,
  workspaceId: string,
  type: string,
  dataSql: string,
  at: Date,
  from: string,
  changedFields?: string[],
): string {
  const changed = changedFields ? `${q.p(JSON.stringify(changedFields))}::jsonb` : 'NULL';
  return eventsInsertSql(
    {
      id: q.p(newId('evt', 16)),
      workspace: q.p(workspaceId),
      type: q.p(type),
      data: dataSql,
      changed,
      at: `${q.p(at.toISOString())}::timestamptz`,
    },
    from,
  );
}

/**
 * The outbox rows of a statement that writes several changes: one row per row of `from`, each
 * column a SQL expression over it (the event's id, workspace, type, data as jsonb, changed fields
 * as jsonb or NULL, and time as timestamptz).
 */
export function eventsInsertSql(
  e: { id: string; workspace: string; type: string; data: string; changed: string; at: string },
  from: string,
): string {
  return `${EVENT_INSERT} SELECT ${e.id}, ${e.workspace}, ${e.type}, ${e.data}, ${e.changed}, ${e.at} FROM ${from}`;
}

export async function recordEvent(
  tx: Queryable,
  workspaceId: string,
  type: string,
  data: unknown,
  at: Date,
  changedFields?: string[],
): Promise<string> {
  const id = newId('evt', 16);
  await tx.query(`${EVENT_INSERT} VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::timestamptz)`, [
    id,
    workspaceId,
    type,
    JSON.stringify(data),
    changedFields ? JSON.stringify(changedFields) : null,
    at.toISOString(),
  ]);
  return id;
}
