import type { Db, Queryable } from '../../db/db.js';
import { iso } from '../../db/db.js';
import { notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { eventInsertSql } from '../events/store.js';
import { keysetPage, Params, type Page } from '../../db/sql.js';
import { AUTH_COLUMNS, authenticationGate, type StatementAuth } from '../workspaces/store.js';

export interface Activity {
  id: string;
  type: string;
  title: string;
  description: string | null;
  metadata: Record<string, unknown> | null;
  actor_name: string | null;
  created_at: string;
}

export const PRIVATE_EMAIL_TITLE = 'Private email exchange';

/** A row of ACTIVITY_SELECT: the activity's columns, its actor's name and its mailbox's privacy. */
export type ActivityRow = Omit<Activity, 'created_at'> & {
  mailbox_private?: boolean | null;
  mailbox_owner?: string | null;
  created_at: Date | string;
};

/**
 * A private mailbox's emails are masked unless the key's creator owns the mailbox: the row is
 * kept (the timeline shows something happened) but says nothing about it.
 */
export function toActivity(r: ActivityRow, viewerMemberId: string | null): Activity {
  const masked = r.mailbox_private === true && r.mailbox_owner !== viewerMemberId;
  if (masked) {
    return {
      id: r.id,
      type: r.type,
      title: PRIVATE_EMAIL_TITLE,
      description: null,
      metadata: null,
      actor_name: null,
      created_at: iso(r.created_at),
    };
  }
  return {
    id: r.id,
    type: r.type,
    title: r.title,
    description: r.description ?? null,
    metadata: r.metadata ?? null,
    actor_name: r.actor_name ?? null,
    created_at: iso(r.created_at),
  };
}

const ACTIVITY_SELECT = `SELECT a.*, m.name AS actor_name, mb.is_private AS mailbox_private, mb.owner_member_id AS mailbox_owner
  FROM activities a
  LEFT JOIN members m ON m.id = a.actor_member_id
  LEFT JOIN mailboxes mb ON mb.id = a.mailbox_id`;

async function requireContact(db: Db, ws: string, contactId: string) {
  const { rows } = await db.query('SELECT 1 FROM contacts WHERE workspace_id = $1 AND id = $2', [ws, contactId]);
  if (!rows.length) throw notFound('contact', 'contact_id');
}

export async function listActivities(
  db: Db,
  ws: string,
  contactId: string,
  opts: { limit: number; cursor?: string; viewerMemberId: string | null },
): Promise<Page<Activity>> {
  await requireContact(db, ws, contactId);
  const q = new Params();
  // Private notes never leave the service through the API.
  const where = [`a.contact_id = ${q.p(contactId)}`, `a.workspace_id = ${q.p(ws)}`, 'a.is_private = false'];
  return keysetPage(
    db,
    { from: 'activities a', alias: 'a', select: ACTIVITY_SELECT, q, where, limit: opts.limit, cursor: opts.cursor },
    (r: ActivityRow) => toActivity(r, opts.viewerMemberId),
  );
}

/**
 * Adds a note in one statement: last_activity_at (and so updated_at, as the contact reads
 * differently) is moved on the contact (which also finds and
 * locks it), and the timeline row and the note.created outbox row are inserted from that update,
 * so a missing contact writes nothing. The response is built from the values written. When the
 * route defers the request's authentication (`auth`), it rides in front of the update, which
 * requires it: a refused request writes nothing, and its 401, 429 or 403 comes before a 404.
 */
export async function addNote(
  db: Queryable,
  ws: string,
  contactId: string,
  body: string,
  now: Date,
  auth?: StatementAuth,
): Promise<Activity> {
  const id = newId('act');
  const activity = toActivity(
    { id, type: 'note', title: 'Note', description: body, metadata: null, actor_name: null, created_at: now },
    null,
  );
  const q = new Params();
  const [wsP, contactP, atP] = [ws, contactId, now.toISOString()].map((v) => q.p(v));
  // With the request's authentication in front when the route defers it to here (as
  // deleteContact): nothing is written unless it admits the request (ok).
  const gate = auth ? `${authenticationGate(q, wsP, auth.params, auth.scopes)},` : '';
  const sql = `WITH ${gate} c AS (UPDATE contacts SET last_activity_at = ${atP}::timestamptz, updated_at = ${atP}::timestamptz
      WHERE workspace_id = ${wsP} AND id = ${contactP}${auth ? ' AND EXISTS (SELECT 1 FROM ok)' : ''} RETURNING id, workspace_id),
    a AS (
      INSERT INTO activities (id, workspace_id, contact_id, type, title, description, is_private, created_at)
      SELECT ${q.p(id)}, c.workspace_id, c.id, 'note', 'Note', ${q.p(body)}, false, ${atP}::timestamptz FROM c),
    ev AS (${eventInsertSql(q, ws, 'note.created', `${q.p(JSON.stringify({ ...activity, contact_id: contactId }))}::jsonb`, now, 'c')})
    SELECT (SELECT count(*) FROM c)::int AS found${auth ? ', a.*' : ''} FROM (SELECT 1) one${auth ? ` LEFT JOIN (SELECT ${AUTH_COLUMNS} FROM k) a ON true` : ''}`;
  const { rows } = await db.query<{ found: number }>(sql, q.values);
  auth?.admit(rows[0]);
  if (rows[0].found === 0) throw notFound('contact', 'contact_id');
  return activity;
}
