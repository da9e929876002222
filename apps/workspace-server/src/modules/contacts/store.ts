// A contact: its shape, its read by id, the rules its emails and phones follow, and its writes
// other than creation (contact-create.ts). Lists and searches are contact-list.ts's.
import type { Queryable } from '../../db/db.js';
import { iso, isoOrNull } from '../../db/db.js';
import { badRequest, invalidField, notFound } from '../../shared/errors.js';
import { NOT_BLANK_WORDS } from '../../shared/validation.js';
import { newId } from '../../shared/ids.js';
import { eventInsertSql } from '../events/store.js';
import { Params } from '../../db/sql.js';
import { AUTH_COLUMNS, authenticationGate, withAuthentication, type StatementAuth } from '../workspaces/store.js';

export interface RowInput {
  value: string;
  label: string;
  id?: string | null;
  is_primary?: boolean | null;
  position?: number | null;
}

export interface ContactInput {
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  phone?: string | null;
  emails?: RowInput[] | null;
  phones?: RowInput[] | null;
  address?: string | null;
  city?: string | null;
  state?: string | null;
  zip_code?: string | null;
  company?: string | null;
  job_title?: string | null;
  notes?: string | null;
  stage_id?: string | null;
  lead_source_id?: string | null;
  owner_id?: string | null;
  custom_fields?: Record<string, unknown> | null;
  affiliate_attribution_token?: string | null;
}

export interface ContactRow {
  id: string;
  value: string;
  label: string;
  is_primary: boolean;
  position: number;
}

export interface Contact {
  id: string;
  first_name: string;
  last_name: string;
  email: string | null;
  phone: string | null;
  emails: ContactRow[];
  phones: ContactRow[];
  address: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  company: string | null;
  job_title: string | null;
  notes: string | null;
  stage: { id: string; name: string } | null;
  lead_source: { id: string; name: string } | null;
  owner: { id: string; name: string } | null;
  tags: { id: string; name: string; color: string | null }[];
  custom_fields: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  last_activity_at: string | null;
}

export const plainFields = ['address', 'city', 'state', 'zip_code', 'company', 'job_title', 'notes'] as const;

const rowJson = (table: string) => `(SELECT COALESCE(json_agg(json_build_object('id', r.id, 'value', r.value, 'label', r.label,
    'is_primary', r.is_primary, 'position', r.position) ORDER BY r.position, r.id), '[]'::json) FROM ${table} r WHERE r.contact_id = c.id)`;

/** Rows, tags and lookup names come back as JSON columns of the same statement. */
const CONTACT_COLUMNS = `c.id, c.first_name, c.last_name, c.address, c.city, c.state, c.zip_code, c.company, c.job_title, c.notes,
    c.stage_id, c.lead_source_id, c.owner_id, c.custom_fields, c.created_at, c.updated_at, c.last_activity_at`;

/**
 * One statement reads a whole contact (named columns: search_text and the attribution token stay in
 * the database); `more` adds columns after them.
 */
const contactSelect = (more = '') => `SELECT ${CONTACT_COLUMNS}, s.name AS stage_name, l.name AS lead_source_name, m.name AS owner_name,
    ${rowJson('contact_emails')} AS emails_json,
    ${rowJson('contact_phones')} AS phones_json,
    (SELECT COALESCE(json_agg(json_build_object('id', t.id, 'name', t.name, 'color', t.color) ORDER BY t.name, t.id), '[]'::json)
       FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id) AS tags_json${more}
  FROM contacts c
  LEFT JOIN contact_stages s ON s.id = c.stage_id
  LEFT JOIN lead_sources l ON l.id = c.lead_source_id
  LEFT JOIN members m ON m.id = c.owner_id`;
const CONTACT_SELECT = contactSelect();

/** A row of CONTACT_SELECT: the contact's columns, its emails, phones and tags as JSON, and the names it shows. */
export type ContactRecord = Pick<Contact, 'id' | 'first_name' | 'last_name' | (typeof plainFields)[number]> & {
  // Each name is read only where its id is set (a LEFT JOIN's name is null only without one).
  stage_id: string | null;
  stage_name: string;
  lead_source_id: string | null;
  lead_source_name: string;
  owner_id: string | null;
  owner_name: string;
  emails_json: ContactRow[];
  phones_json: ContactRow[];
  tags_json: Contact['tags'];
  custom_fields: Record<string, unknown> | null;
  created_at: Date | string;
  updated_at: Date | string;
  last_activity_at: Date | string | null;
};

/**
 * A row of UPDATE_READ: the contact as it is, its row version, and the names (null: no such
 * object) and custom fields the update asks for.
 */
type UpdateReadRow = ContactRecord & {
  version: string;
  new_stage_name: string | null;
  new_lead_source_name: string | null;
  new_owner_name: string | null;
  new_custom_fields: Record<string, unknown>;
};

function toContact(r: ContactRecord): Contact {
  const toRow = (x: ContactRow): ContactRow => ({
    id: x.id,
    value: x.value,
    label: x.label,
    is_primary: x.is_primary,
    position: Number(x.position),
  });
  const em = r.emails_json.map(toRow);
  const ph = r.phones_json.map(toRow);
  return {
    id: r.id,
    first_name: r.first_name,
    last_name: r.last_name,
    email: em.find((x) => x.is_primary)?.value ?? null,
    phone: ph.find((x) => x.is_primary)?.value ?? null,
    emails: em,
    phones: ph,
    address: r.address,
    city: r.city,
    state: r.state,
    zip_code: r.zip_code,
    company: r.company,
    job_title: r.job_title,
    notes: r.notes,
    stage: r.stage_id ? { id: r.stage_id, name: r.stage_name } : null,
    lead_source: r.lead_source_id ? { id: r.lead_source_id, name: r.lead_source_name } : null,
    owner: r.owner_id ? { id: r.owner_id, name: r.owner_name } : null,
    tags: r.tags_json.map((t) => ({ id: t.id, name: t.name, color: t.color ?? null })),
    custom_fields: r.custom_fields ?? {},
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    last_activity_at: isoOrNull(r.last_activity_at),
  };
}

/**
 * A contact by id. With `auth` (a key this process admitted before) the read carries the request's
 * authentication (withAuthentication), so the request is one statement: refused, `admit` throws;
 * admitted, the row's contact columns are null when there is no such contact.
 */
export async function getContact(db: Queryable, ws: string, id: string, auth?: StatementAuth): Promise<Contact> {
  const sql = `${CONTACT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`;
  let row: ContactRecord | undefined;
  if (auth) {
    const gated = withAuthentication(sql, [ws, id], auth);
    row = (await db.query<ContactRecord>(gated.sql, gated.params)).rows[0];
    auth.admit(row);
    if (row?.id === null) row = undefined;
  } else {
    row = (await db.query<ContactRecord>(sql, [ws, id])).rows[0];
  }
  if (!row) throw notFound('contact', 'contact_id');
  return toContact(row);
}

/** The workspace's lookup generation (migration 5): moves whenever a name a contact shows may have. */
export const lookupGen = (wsParam = '$1') => `COALESCE((SELECT gen FROM contact_lookup_gens WHERE workspace_id = ${wsParam}), 0)::text`;

/** Orders rows by position (then list order), renumbers them and makes exactly one primary. */
function normaliseRows(input: RowInput[], keep: Map<string, ContactRow>): ContactRow[] {
  const sorted = input
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.position ?? a.i) - (b.r.position ?? b.i) || a.i - b.i)
    .map((x) => x.r);
  const primaryIndex = Math.max(
    0,
    sorted.findIndex((r) => r.is_primary === true),
  );
  // An existing row's id is kept once; a second row naming the same id is a new row.
  const used = new Set<string>();
  const keepId = (rid: string | null | undefined) => !!rid && keep.has(rid) && !used.has(rid) && !!used.add(rid);
  return sorted.map((r, i) => ({
    id: keepId(r.id) ? (r.id as string) : newId('row', 8),
    value: r.value,
    label: r.label,
    is_primary: i === primaryIndex,
    position: i,
  }));
}

export function rowsFromInput(
  list: RowInput[] | null | undefined,
  shortcut: string | null | undefined,
  defaultLabel: string,
  existing: ContactRow[],
): ContactRow[] | undefined {
  const keep = new Map(existing.map((r) => [r.id, r]));
  if (list !== undefined && list !== null) return normaliseRows(list, keep);
  // A null list with a shortcut behaves like an omitted list; a bare null list empties it.
  if (shortcut === undefined) return list === null ? [] : undefined;
  if (shortcut === null || shortcut === '') return [];
  // The shortcut becomes the sole primary row; an existing row with the same value keeps its id and label.
  const same = existing.find((r) => r.value === shortcut);
  return [{ id: same?.id ?? newId('row', 8), value: shortcut, label: same?.label ?? defaultLabel, is_primary: true, position: 0 }];
}

/** What `q` searches: names, company, every email, every phone as written and as digits. */
export function searchText(c: {
  first_name: string;
  last_name: string;
  company: string | null;
  emails: ContactRow[];
  phones: ContactRow[];
}): string {
  return [
    c.first_name,
    c.last_name,
    c.company ?? '',
    ...c.emails.map((e) => e.value),
    ...c.phones.map((p) => p.value),
    ...c.phones.map((p) => p.value.replace(/\D/g, '')),
  ]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** Empty string means "none" for the id references the spec lets clients clear. */
export const emptyToNull = (v: string | null | undefined) => (v === '' ? null : v);

export async function addActivity(
  tx: Queryable,
  ws: string,
  contactId: string,
  a: {
    type: string;
    title: string;
    description?: string | null;
    metadata?: unknown;
    actor_member_id?: string | null;
    is_private?: boolean;
    mailbox_id?: string | null;
  },
  at: Date,
): Promise<{ id: string }> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO activities (id, workspace_id, contact_id, type, title, description, metadata, actor_member_id, is_private, mailbox_id, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7::jsonb,$8,$9,$10,$11::timestamptz) RETURNING *`,
    [
      newId('act'),
      ws,
      contactId,
      a.type,
      a.title,
      a.description ?? null,
      a.metadata === undefined || a.metadata === null ? null : JSON.stringify(a.metadata),
      a.actor_member_id ?? null,
      a.is_private ?? false,
      a.mailbox_id ?? null,
      at.toISOString(),
    ],
  );
  return rows[0];
}

/** Field names as the API spells them, compared before/after to say what an update changed. */
const comparable = (c: Contact): Record<string, unknown> => ({
  first_name: c.first_name,
  last_name: c.last_name,
  emails: c.emails.map((r) => [r.value, r.label, r.is_primary]),
  phones: c.phones.map((r) => [r.value, r.label, r.is_primary]),
  address: c.address,
  city: c.city,
  state: c.state,
  zip_code: c.zip_code,
  company: c.company,
  job_title: c.job_title,
  notes: c.notes,
  stage_id: c.stage?.id ?? null,
  lead_source_id: c.lead_source?.id ?? null,
  owner_id: c.owner?.id ?? null,
  custom_fields: c.custom_fields,
});

/**
 * The read of a PATCH: the contact as GET reads it, its row version (xmin, which every write to the
 * contact's row changes), whether the references the input names exist in the workspace (their
 * names), and the input's custom_fields as jsonb (its key order and number forms) to compare with.
 */
const UPDATE_READ = `${contactSelect(`, c.xmin::text AS version,
    (SELECT name FROM contact_stages WHERE workspace_id = $1 AND id = $3::text) AS new_stage_name,
    (SELECT name FROM lead_sources WHERE workspace_id = $1 AND id = $4::text) AS new_lead_source_name,
    (SELECT name FROM members WHERE workspace_id = $1 AND id = $5::text) AS new_owner_name,
    $6::jsonb AS new_custom_fields`)}
  WHERE c.workspace_id = $1 AND c.id = $2`;

/**
 * The write of a PATCH, one statement: the contact row is written whole (the state the server
 * computed) only if its version is still the one read and the references still exist; its emails
 * and phones (rows not kept deleted, kept ones updated in place, new ones inserted), the timeline
 * entries and the contact.updated outbox row are written from that update, so they happen with it
 * or not at all. The text varies only with which parts are present (the token, each row list, each
 * reference, the event, the transactions touched): at most 256 prepared texts. A change of the
 * names moves the transactions that show them through the store's trigger (migration 13), at the
 * contact's new updated_at; a new primary email, which the trigger cannot see, moves them here.
 */
function updateWrite(
  ws: string,
  id: string,
  version: string,
  after: Contact,
  extra: {
    search: string;
    token: string | null | undefined;
    emails?: ContactRow[];
    phones?: ContactRow[];
    activities: { id: string; type: string; title: string; metadata: unknown }[];
    changed: string[];
    event: boolean;
    now: Date;
    /** The primary email changed: the contact's transactions show it (contact_email), so they move too. */
    touchTransactions: boolean;
  },
): { sql: string; params: unknown[] } {
  const q = new Params();
  const [wsP, idP, versionP] = [ws, id, version].map((v) => q.p(v));
  const refs = { stage_id: after.stage?.id ?? null, lead_source_id: after.lead_source?.id ?? null, owner_id: after.owner?.id ?? null };
  const sets = [
    ...(['first_name', 'last_name', ...plainFields] as const).map((f) => `${f} = ${q.p(after[f])}`),
    ...Object.entries(refs).map(([f, v]) => `${f} = ${q.p(v)}`),
    `custom_fields = ${q.p(JSON.stringify(after.custom_fields))}::jsonb`,
    `updated_at = ${q.p(after.updated_at)}::timestamptz`,
    `search_text = ${q.p(extra.search)}`,
  ];
  if (extra.token !== undefined) sets.push(`affiliate_attribution_token = ${q.p(extra.token)}`);
  const exists = (table: string, v: string | null) =>
    v === null ? 'true' : `EXISTS (SELECT 1 FROM ${table} WHERE workspace_id = ${wsP} AND id = ${q.p(v)})`;
  const rowsUpsert = (table: string, rows: ContactRow[] | undefined) =>
    rows === undefined
      ? ''
      : `, del_${table} AS (
      DELETE FROM ${table} WHERE contact_id IN (SELECT id FROM upd) AND NOT (id = ANY(${q.p(rows.map((r) => r.id))}::text[]))),
    put_${table} AS (
      INSERT INTO ${table} (id, workspace_id, contact_id, value, label, is_primary, position)
      SELECT x.id, upd.workspace_id, upd.id, x.value, x.label, x.is_primary, x.position
        FROM upd, jsonb_to_recordset(${q.p(JSON.stringify(rows))}::jsonb) AS x(id text, value text, label text, is_primary boolean, position integer)
      ON CONFLICT (id) DO UPDATE SET value = excluded.value, label = excluded.label, is_primary = excluded.is_primary, position = excluded.position)`;
  const at = q.p(extra.now.toISOString());
  const sql = `WITH upd AS (
      UPDATE contacts SET ${sets.join(', ')}
      WHERE workspace_id = ${wsP} AND id = ${idP} AND xmin::text = ${versionP}
        AND ${exists('contact_stages', refs.stage_id)} AND ${exists('lead_sources', refs.lead_source_id)} AND ${exists('members', refs.owner_id)}
      RETURNING id, workspace_id)${rowsUpsert('contact_emails', extra.emails)}${rowsUpsert('contact_phones', extra.phones)},
    act AS (
      INSERT INTO activities (id, workspace_id, contact_id, type, title, metadata, is_private, created_at)
      SELECT x.id, upd.workspace_id, upd.id, x.type, x.title, x.metadata, false, ${at}::timestamptz
        FROM upd, jsonb_to_recordset(${q.p(JSON.stringify(extra.activities))}::jsonb) AS x(id text, type text, title text, metadata jsonb))
    ${extra.event ? `, ev AS (${eventInsertSql(q, ws, 'contact.updated', `${q.p(JSON.stringify(after))}::jsonb`, extra.now, 'upd', extra.changed)})` : ''}
    ${extra.touchTransactions ? `, txn AS (UPDATE transactions SET updated_at = ${at}::timestamptz WHERE workspace_id = ${wsP} AND contact_id IN (SELECT id FROM upd))` : ''}
    SELECT id FROM upd`;
  return { sql, params: q.values };
}

/**
 * Updates a contact in two round trips without a transaction: one read (the contact, its row
 * version, the named references), the new state computed here, and one write that applies only if
 * the row is still at the version read (optimistic: a concurrent writer makes it write nothing, and
 * the update is read and computed again). A PATCH that changes nothing writes nothing (unless it
 * sets the attribution token, which is no field of the response). When the route defers the
 * request's authentication (`auth`), the read carries it (withAuthentication): 401, 429 and 403
 * come from that row before a 404 or a 400 of the input's references, and nothing is written.
 */
export async function updateContact(
  db: Queryable,
  ws: string,
  id: string,
  input: ContactInput,
  now: Date,
  auth?: StatementAuth,
): Promise<Contact> {
  // Every PATCH field is nullable (the spec): a name cannot be cleared, so null leaves it as it is.
  if (input.first_name === '') throw invalidField('first_name', NOT_BLANK_WORDS);
  if (input.last_name === '') throw invalidField('last_name', NOT_BLANK_WORDS);
  const stageIn = input.stage_id === undefined ? undefined : (emptyToNull(input.stage_id) ?? null);
  const sourceIn = input.lead_source_id === undefined ? undefined : (emptyToNull(input.lead_source_id) ?? null);
  const ownerIn = input.owner_id === undefined ? undefined : (emptyToNull(input.owner_id) ?? null);
  const cfIn = input.custom_fields === undefined ? null : JSON.stringify(input.custom_fields ?? {});
  // The request's authentication, while no statement has carried it yet (the route defers it here).
  let pending = auth;
  for (let attempt = 0; attempt < 100; attempt++) {
    const params = [ws, id, stageIn ?? null, sourceIn ?? null, ownerIn ?? null, cfIn];
    // The first read carries the authentication when the route defers it: a refused request is
    // answered from its row (and the contact is not even read), before anything is written.
    const read = pending ? withAuthentication(UPDATE_READ, params, pending) : { sql: UPDATE_READ, params };
    const { rows } = await db.query<UpdateReadRow>(read.sql, read.params);
    pending?.admit(rows[0]);
    pending = undefined;
    if (!rows.length || rows[0].id === null) throw notFound('contact', 'contact_id');
    const r = rows[0];
    const before = toContact(r);
    if (stageIn && r.new_stage_name === null) throw badRequest(`No such contact stage: ${stageIn}`, 'stage_id');
    if (sourceIn && r.new_lead_source_name === null) throw badRequest(`No such lead source: ${sourceIn}`, 'lead_source_id');
    if (ownerIn && r.new_owner_name === null) throw badRequest(`No such member: ${ownerIn}`, 'owner_id');
    // A name is null only for an id asked for that names nothing, refused just above.
    const ref = (given: string | null | undefined, name: string | null, old: Contact['stage']) =>
      given === undefined ? old : given === null || name === null ? null : { id: given, name };
    const emails = rowsFromInput(input.emails, input.email, 'Other', before.emails);
    const phones = rowsFromInput(input.phones, input.phone, 'Mobile', before.phones);
    const after: Contact = { ...before };
    for (const f of ['first_name', 'last_name'] as const) if (input[f] != null) after[f] = input[f];
    for (const f of plainFields) if (input[f] !== undefined) after[f] = input[f] ?? null;
    after.stage = ref(stageIn, r.new_stage_name, before.stage);
    after.lead_source = ref(sourceIn, r.new_lead_source_name, before.lead_source);
    after.owner = ref(ownerIn, r.new_owner_name, before.owner);
    if (cfIn !== null) after.custom_fields = r.new_custom_fields;
    if (emails) Object.assign(after, { emails, email: emails.find((x) => x.is_primary)?.value ?? null });
    if (phones) Object.assign(after, { phones, phone: phones.find((x) => x.is_primary)?.value ?? null });
    const a = comparable(before);
    const b = comparable(after);
    const changed = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    if (!changed.length) {
      if (input.affiliate_attribution_token !== undefined) {
        await db.query('UPDATE contacts SET affiliate_attribution_token = $3 WHERE workspace_id = $1 AND id = $2', [
          ws,
          id,
          input.affiliate_attribution_token,
        ]);
      }
      return before;
    }
    after.updated_at = now.toISOString();
    const activities: { id: string; type: string; title: string; metadata: unknown }[] = [
      { id: newId('act'), type: 'contact_updated', title: 'Contact updated', metadata: { changed_fields: changed } },
    ];
    if (changed.includes('stage_id')) {
      activities.push({
        id: newId('act'),
        type: 'stage_changed',
        title: after.stage ? `Stage changed to ${after.stage.name}` : 'Stage cleared',
        metadata: { from: before.stage, to: after.stage },
      });
    }
    if (changed.includes('owner_id')) {
      activities.push({
        id: newId('act'),
        type: 'owner_changed',
        title: after.owner ? `Assigned to ${after.owner.name}` : 'Unassigned',
        metadata: { from: before.owner, to: after.owner },
      });
    }
    // The spec fires contact.updated on a stage change; the changed fields travel with the event.
    const write = updateWrite(ws, id, r.version, after, {
      search: searchText(after),
      token: input.affiliate_attribution_token,
      emails,
      phones,
      activities,
      changed,
      event: changed.includes('stage_id'),
      now,
      touchTransactions: (before.email ?? null) !== (after.email ?? null),
    });
    const written = await db.query(write.sql, write.params);
    if (written.rows.length) return after;
    // The contact changed (or went, or a reference went) since the read: read and compute again.
  }
  throw new Error(`contact ${id} changed under 100 consecutive updates`);
}

/**
 * Deletes a contact and records contact.deleted in one statement (the outbox row is inserted from
 * the deleted row, so it commits with the deletion or not at all; no transaction round trips).
 */
export async function deleteContact(
  db: Queryable,
  ws: string,
  id: string,
  now: Date,
  auth?: StatementAuth,
): Promise<{ id: string; deleted: boolean }> {
  // Timeline, rows, tags and communications cascade; opt_outs are keyed by address and stay. The
  // deals it was the contact of are unlinked here rather than by the foreign key's SET NULL, so that
  // their updated_at moves with their contact_id (GET /v1/deals?updated_after= sees the change).
  const q = new Params();
  const wsP = q.p(ws);
  // With the request's authentication in front when the route defers it to here: nothing is
  // deleted unless it admits the request (ok), and the key's columns come back with the count.
  const gate = auth ? `${authenticationGate(q, wsP, auth.params, auth.scopes)},` : '';
  const sql = `WITH ${gate} d AS (DELETE FROM contacts WHERE workspace_id = ${wsP} AND id = ${q.p(id)}${auth ? ' AND EXISTS (SELECT 1 FROM ok)' : ''} RETURNING id),
    un AS (UPDATE deals SET contact_id = NULL, updated_at = ${q.p(now.toISOString())}::timestamptz WHERE workspace_id = ${wsP} AND contact_id IN (SELECT id FROM d)),
    unt AS (UPDATE transactions SET contact_id = NULL, updated_at = ${q.p(now.toISOString())}::timestamptz WHERE workspace_id = ${wsP} AND contact_id IN (SELECT id FROM d)),
    ev AS (${eventInsertSql(q, ws, 'contact.deleted', "jsonb_build_object('id', d.id)", now, 'd')} RETURNING 1)
    SELECT (SELECT count(*) FROM ev)::int AS deleted${auth ? ', a.*' : ''} FROM (SELECT 1) one${auth ? ` LEFT JOIN (SELECT ${AUTH_COLUMNS} FROM k) a ON true` : ''}`;
  const { rows } = await db.query<{ deleted: number }>(sql, q.values);
  auth?.admit(rows[0]);
  if (rows[0].deleted === 0) throw notFound('contact', 'contact_id');
  return { id, deleted: true };
}

/**
 * Adds or removes a contact's tag in one statement (the contact locked as before, the tag looked up
 * in the workspace, the link inserted or deleted, updated_at moved only when it changed), then
 * reads the contact back: two round trips and no transaction held across them.
 */
export async function setContactTag(
  db: Queryable,
  ws: string,
  contactId: string,
  tagId: string,
  present: boolean,
  now: Date,
): Promise<Contact> {
  const change = present
    ? `INSERT INTO contact_tags (contact_id, tag_id, workspace_id, created_at) SELECT c.id, t.id, c.workspace_id, $4::timestamptz FROM c, t
        ON CONFLICT DO NOTHING RETURNING contact_id`
    : 'DELETE FROM contact_tags WHERE contact_id IN (SELECT id FROM c) AND tag_id = $3 RETURNING contact_id';
  const { rows } = await db.query<{ contact: boolean; tag: boolean }>(
    `WITH c AS (SELECT id, workspace_id FROM contacts WHERE workspace_id = $1 AND id = $2 FOR UPDATE),
      t AS (SELECT id FROM tags WHERE workspace_id = $1 AND id = $3),
      ch AS (${change}),
      u AS (UPDATE contacts SET updated_at = $4::timestamptz WHERE id IN (SELECT contact_id FROM ch))
    SELECT EXISTS (SELECT 1 FROM c) AS contact, EXISTS (SELECT 1 FROM t) AS tag`,
    [ws, contactId, tagId, now.toISOString()],
  );
  if (!rows[0].contact) throw notFound('contact', 'contact_id');
  if (present && !rows[0].tag) throw notFound('tag', 'tag_id');
  return getContact(db, ws, contactId);
}

/** Records an opt-out by address; it outlives the contact (see deleteContact). */
export async function optOut(db: Queryable, ws: string, channel: 'email' | 'sms', value: string, now: Date): Promise<void> {
  await db.query(
    'INSERT INTO opt_outs (workspace_id, channel, value, created_at) VALUES ($1,$2,lower($3),$4::timestamptz) ON CONFLICT DO NOTHING',
    [ws, channel, value, now.toISOString()],
  );
}

export async function isOptedOut(db: Queryable, ws: string, channel: 'email' | 'sms', value: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM opt_outs WHERE workspace_id = $1 AND channel = $2 AND value = lower($3)', [
    ws,
    channel,
    value,
  ]);
  return rows.length > 0;
}
