// A contact's creation: one statement, alone or with others' (docs/store.md, "Batching
// creations"), and the response's text handed to the contact text cache.
import { BATCH, batcherOf, LaneBatcher, StatementBatcher, type BatchPlan } from '../../db/batch.js';
import type { Queryable } from '../../db/db.js';
import { ACCOUNTED_SETTING, ACCOUNTED_TOKEN } from '../../db/schema.js';
import { badRequest } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { contactTextCache } from './cache.js';
import { emptyToNull, lookupGen, plainFields, rowsFromInput, searchText, type Contact, type ContactInput } from './store.js';
import { eventsInsertSql } from '../events/store.js';
import { Params } from '../../db/sql.js';
import {
  AUTH_COLUMNS,
  authenticationGate,
  BATCH_ADMITS,
  BATCH_AUTH_COLUMNS,
  BATCH_AUTH_CTES,
  BATCH_AUTH_FROM,
  batchAuthParams,
  type StatementAuth,
} from '../workspaces/store.js';
/** Contacts a write returned, with the row version and lookup generation they are the state of. */
const writtenAt = new WeakMap<Contact, { version: string; lookups: string }>();

/**
 * Puts a written contact's response text in the text cache, when the write said which row version
 * (and lookup generation) the contact is: `text` must be the Contact schema's serialisation of
 * exactly that contact (the route's reply.serialize), which is what the list writes for it.
 */
export function rememberContactText(db: Queryable, contact: Contact, text: string): void {
  const at = writtenAt.get(contact);
  const cache = contactTextCache(db);
  if (at && cache.capacity > 0) cache.written(contact.id, at.version, at.lookups, text, Date.now());
}

/** A creation computed from its input: what its statement writes, alone or in a batch. */
interface Creation {
  ws: string;
  /** The response, but for the references' names and the stored custom_fields. */
  contact: Contact;
  input: ContactInput;
  stage: string | null;
  source: string | null;
  owner: string | null;
  search: string;
  activityId: string;
  eventId: string;
}

function prepareCreation(ws: string, input: ContactInput, now: Date): Creation {
  if (!input.first_name) throw badRequest('Missing required parameter: first_name', 'first_name');
  if (!input.last_name) throw badRequest('Missing required parameter: last_name', 'last_name');
  const at = now.toISOString();
  const emails = rowsFromInput(input.emails, input.email, 'Other', []) ?? [];
  const phones = rowsFromInput(input.phones, input.phone, 'Mobile', []) ?? [];
  const contact: Contact = {
    id: newId('con'),
    first_name: input.first_name,
    last_name: input.last_name,
    email: emails.find((r) => r.is_primary)?.value ?? null,
    phone: phones.find((r) => r.is_primary)?.value ?? null,
    emails,
    phones,
    address: input.address ?? null,
    city: input.city ?? null,
    state: input.state ?? null,
    zip_code: input.zip_code ?? null,
    company: input.company ?? null,
    job_title: input.job_title ?? null,
    notes: input.notes ?? null,
    stage: null,
    lead_source: null,
    owner: null,
    tags: [],
    custom_fields: input.custom_fields ?? {},
    created_at: at,
    updated_at: at,
    last_activity_at: null,
  };
  return {
    ws,
    contact,
    input,
    stage: emptyToNull(input.stage_id) ?? null,
    source: emptyToNull(input.lead_source_id) ?? null,
    owner: emptyToNull(input.owner_id) ?? null,
    search: searchText(contact),
    activityId: newId('act'),
    eventId: newId('evt', 16),
  };
}

/**
 * The contact's columns a creation writes besides its id, workspace and times: each with its SQL
 * type and its value. The single statement sends them as parameters, a batch as the fields of
 * each creation's JSON object (named as the columns).
 */
const CREATION_FIELDS: readonly (readonly [column: string, type: 'text' | 'jsonb', value: (c: Creation) => unknown])[] = [
  ['first_name', 'text', (c) => c.contact.first_name],
  ['last_name', 'text', (c) => c.contact.last_name],
  ...plainFields.map((f) => [f, 'text', (c: Creation) => c.contact[f]] as const),
  ['stage_id', 'text', (c) => c.stage],
  ['lead_source_id', 'text', (c) => c.source],
  ['owner_id', 'text', (c) => c.owner],
  ['custom_fields', 'jsonb', (c) => c.contact.custom_fields],
  ['affiliate_attribution_token', 'text', (c) => c.input.affiliate_attribution_token ?? null],
  ['search_text', 'text', (c) => c.search],
];
/** The contact's columns a creation writes: its id and workspace, CREATION_FIELDS, its times. */
const CREATION_COLUMNS = `id, workspace_id, ${CREATION_FIELDS.map(([column]) => column).join(', ')}, created_at, updated_at`;
/** The lookups of a creation's references in its workspace: a row `r` of their names (null: none, or no such one). */
const creationRefs = (
  ws: string,
  stage: string,
  source: string,
  owner: string,
) => `(SELECT name FROM contact_stages WHERE workspace_id = ${ws} AND id = ${stage}) AS stage_name,
        (SELECT name FROM lead_sources WHERE workspace_id = ${ws} AND id = ${source}) AS lead_source_name,
        (SELECT name FROM members WHERE workspace_id = ${ws} AND id = ${owner}) AS owner_name,
        set_config('${ACCOUNTED_SETTING}', ${ACCOUNTED_TOKEN}, true) AS accounted`;
/** Every reference a creation names exists (`r` holds their names). */
const creationRefsExist = (stage: string, source: string, owner: string) =>
  `(${stage} IS NULL OR r.stage_name IS NOT NULL) AND (${source} IS NULL OR r.lead_source_name IS NOT NULL) AND (${owner} IS NULL OR r.owner_name IS NOT NULL)`;
/** A reference in an event's data: {id, name}, or null. */
const idName = (id: string, name: string) =>
  `CASE WHEN ${name} IS NULL THEN 'null'::jsonb ELSE jsonb_build_object('id', ${id}, 'name', ${name}) END`;
/** The contact.created event's data: the response (`contact`, jsonb) with the references' names from `r`. */
const creationEventData = (contact: string, stage: string, source: string, owner: string) =>
  `${contact} || jsonb_build_object('stage', ${idName(stage, 'r.stage_name')}, 'lead_source', ${idName(source, 'r.lead_source_name')}, 'owner', ${idName(owner, 'r.owner_name')})`;
/** Inserts a creation's emails or phones (`rows`, a jsonb array) for the contact of `ins`. */
const creationRowsInsert = (table: string, rows: string, from: string) =>
  `INSERT INTO ${table} (id, workspace_id, contact_id, value, label, is_primary, position)
     SELECT x.id, ins.workspace_id, ins.id, x.value, x.label, x.is_primary, x.position
       FROM ${from}, jsonb_to_recordset(${rows}) AS x(id text, value text, label text, is_primary boolean, position integer)`;
/**
 * The contacts' counter shard a creation's statement upserts itself, one per transaction (txid mod
 * 16), as the count trigger would: one row per workspace, counting its contacts of `ins`, in the
 * workspaces' order (as the windows are locked).
 */
const CREATION_COUNT = `INSERT INTO contact_counts (workspace_id, shard, n, writes)
      SELECT ins.workspace_id, (txid_current() % 16)::int, count(*), count(*) FROM ins GROUP BY ins.workspace_id ORDER BY ins.workspace_id
      ON CONFLICT (workspace_id, shard) DO UPDATE SET n = contact_counts.n + excluded.n, writes = contact_counts.writes + excluded.writes`;
/** The values of CREATION_FIELDS as parameters. */
const creationValues = (q: Params, c: Creation) =>
  CREATION_FIELDS.map(([, type, value]) => (type === 'jsonb' ? `${q.p(JSON.stringify(value(c)))}::jsonb` : q.p(value(c)))).join(', ');

/**
 * A creation's statement alone (data-modifying CTEs, atomic as any statement): the references
 * are looked up in the workspace, and only when each one given exists are the contact, its emails
 * and phones, the timeline entry and the outbox event inserted (the counter is the statement's
 * own). Its text depends only on whether there are emails and phones (four texts, eight with the
 * authentication): an insert of no rows would still cost its statement trigger (migration 5).
 */
function creationStatement(c: Creation, auth?: StatementAuth): { sql: string; params: unknown[] } {
  const q = new Params();
  const { contact } = c;
  const [wsP, idP, atP, stageP, sourceP, ownerP] = [c.ws, contact.id, contact.created_at, c.stage, c.source, c.owner].map((v) => q.p(v));
  // With the request's authentication in front when the route defers it to here: nothing is
  // written unless it admits the request (ok), and the key's columns come back with the row.
  const gate = auth ? `${authenticationGate(q, wsP, auth.params, auth.scopes)},` : '';
  // r also marks the statement as keeping its own count and row versions (ACCOUNTED_SETTING), before
  // ins reads it: the count and touch triggers are then not queued for it.
  const sql = `WITH ${gate} r AS (
      SELECT ${creationRefs(wsP, `${stageP}::text`, `${sourceP}::text`, `${ownerP}::text`)}),
    ins AS (
      INSERT INTO contacts (${CREATION_COLUMNS})
      SELECT ${idP}, ${wsP}, ${creationValues(q, c)}, ${atP}::timestamptz, ${atP}::timestamptz
        FROM r
       WHERE ${creationRefsExist(`${stageP}::text`, `${sourceP}::text`, `${ownerP}::text`)}${auth ? ' AND EXISTS (SELECT 1 FROM ok)' : ''}
      RETURNING id, workspace_id, custom_fields, xmin::text AS version),${
        contact.emails.length
          ? `
    em AS (${creationRowsInsert('contact_emails', `${q.p(JSON.stringify(contact.emails))}::jsonb`, 'ins')}),`
          : ''
      }${
        contact.phones.length
          ? `
    ph AS (${creationRowsInsert('contact_phones', `${q.p(JSON.stringify(contact.phones))}::jsonb`, 'ins')}),`
          : ''
      }
    act AS (
      INSERT INTO activities (id, workspace_id, contact_id, type, title, is_private, created_at)
      SELECT ${q.p(c.activityId)}, ins.workspace_id, ins.id, 'contact_created', 'Contact created', false, ${atP}::timestamptz FROM ins),
    cnt AS (${CREATION_COUNT}),
    ev AS (${eventsInsertSql(
      {
        id: q.p(c.eventId),
        workspace: 'ins.workspace_id',
        type: "'contact.created'",
        data: creationEventData(`${q.p(JSON.stringify(contact))}::jsonb`, `${stageP}::text`, `${sourceP}::text`, `${ownerP}::text`),
        changed: 'NULL',
        at: `${atP}::timestamptz`,
      },
      'ins, r',
    )})
    SELECT r.stage_name, r.lead_source_name, r.owner_name, ins.custom_fields, ins.version, ${lookupGen(wsP)} AS lookups${auth ? ', a.*' : ''} FROM r LEFT JOIN ins ON true${
      auth ? ` LEFT JOIN (SELECT ${AUTH_COLUMNS} FROM k) a ON true` : ''
    }`;
  return { sql, params: q.values };
}

/**
 * Several creations in one statement (db/batch.ts), as each one's statement alone would write it:
 * with `scopes`, each with its request's authentication, the requests authenticated and counted as
 * withAuthenticationBatch does ($1–$5) and a creation written only when its request is admitted;
 * without, requests already counted (`t`: each creation's workspace by its number, from the
 * creations). The creations ($6, or $1, a jsonb array) are joined to them by their number in the batch; each is written only
 * when the references it names exist. One row per creation, in their order, as creationStatement
 * returns it.
 */
function creationBatchStatement(items: readonly CreationItem[], scopes?: readonly string[]): { sql: string; params: unknown[] } {
  const creations = items.map(({ c }, i) => {
    const row: Record<string, unknown> = {};
    for (const [column, , value] of CREATION_FIELDS) row[column] = value(c);
    Object.assign(row, {
      ord: i + 1,
      ws: c.ws,
      id: c.contact.id,
      at: c.contact.created_at,
      act_id: c.activityId,
      evt_id: c.eventId,
      emails: c.contact.emails,
      phones: c.contact.phones,
      data: c.contact,
    });
    return row;
  });
  const auths = scopes && items.map((i) => i.auth!);
  return {
    sql: creationBatchSql(!!auths),
    params: auths ? [...batchAuthParams(auths, scopes), JSON.stringify(creations)] : [JSON.stringify(creations)],
  };
}

/** creationBatchStatement's text, with its requests' authentication or without: two texts, written once each. */
function creationBatchSql(authenticated: boolean): string {
  const known = creationBatchTexts[Number(authenticated)];
  if (known !== undefined) return known;
  const creationsParam = authenticated ? '$6' : '$1';
  const sql = `WITH c AS (
      SELECT * FROM jsonb_to_recordset(${creationsParam}::jsonb) AS c(ord bigint, ws text, id text, ${CREATION_FIELDS.map(([column, type]) => `${column} ${type}`).join(', ')},
        at timestamptz, act_id text, evt_id text, emails jsonb, phones jsonb, data jsonb)),
    ${
      authenticated
        ? `${BATCH_AUTH_CTES},
    ok AS (SELECT t.ord FROM ${BATCH_AUTH_FROM} WHERE ${BATCH_ADMITS}),`
        : 't AS (SELECT ord, ws FROM c),'
    }
    r AS (
      SELECT c.ord, ${creationRefs('t.ws', 'c.stage_id', 'c.lead_source_id', 'c.owner_id')} FROM c JOIN t ON t.ord = c.ord),
    ins AS (
      INSERT INTO contacts (${CREATION_COLUMNS})
      SELECT c.id, t.ws, ${CREATION_FIELDS.map(([column]) => `c.${column}`).join(', ')}, c.at, c.at
        FROM c JOIN t ON t.ord = c.ord JOIN r ON r.ord = c.ord
       WHERE ${creationRefsExist('c.stage_id', 'c.lead_source_id', 'c.owner_id')}${authenticated ? ' AND c.ord IN (SELECT ord FROM ok)' : ''}
       ORDER BY t.ws
      RETURNING id, workspace_id, custom_fields, xmin::text AS version),
    em AS (${creationRowsInsert('contact_emails', 'c.emails', 'ins JOIN c ON c.id = ins.id')}),
    ph AS (${creationRowsInsert('contact_phones', 'c.phones', 'ins JOIN c ON c.id = ins.id')}),
    act AS (
      INSERT INTO activities (id, workspace_id, contact_id, type, title, is_private, created_at)
      SELECT c.act_id, ins.workspace_id, ins.id, 'contact_created', 'Contact created', false, c.at FROM ins JOIN c ON c.id = ins.id),
    cnt AS (${CREATION_COUNT}),
    ev AS (${eventsInsertSql(
      {
        id: 'c.evt_id',
        workspace: 'ins.workspace_id',
        type: "'contact.created'",
        data: creationEventData('c.data', 'c.stage_id', 'c.lead_source_id', 'c.owner_id'),
        changed: 'NULL',
        at: 'c.at',
      },
      'ins JOIN c ON c.id = ins.id JOIN r ON r.ord = c.ord',
    )})
    SELECT t.ord, ${authenticated ? `${BATCH_AUTH_COLUMNS}, ` : ''}r.stage_name, r.lead_source_name, r.owner_name, ins.custom_fields, ins.version, ${lookupGen('t.ws')} AS lookups
      FROM ${authenticated ? BATCH_AUTH_FROM : 't'} JOIN r ON r.ord = t.ord JOIN c ON c.ord = t.ord LEFT JOIN ins ON ins.id = c.id
     ORDER BY t.ord`;
  creationBatchTexts[Number(authenticated)] = sql;
  return sql;
}
const creationBatchTexts: (string | undefined)[] = [];

/**
 * A row of a creation statement: the references' names (null: no such object), the stored
 * custom_fields (null: nothing written), the row version and lookup generation written at, beside
 * the authentication columns when the statement carries them.
 */
type CreationRow = {
  stage_name: string | null;
  lead_source_name: string | null;
  owner_name: string | null;
  custom_fields: Record<string, unknown> | null;
  version: string;
  lookups: string;
};

/** The created contact from its statement's row: the references' names, the stored custom_fields. */
function createdContact(c: Creation, r: CreationRow, auth?: StatementAuth): Contact {
  // An unknown key leaves the key's columns null (the LEFT JOIN): admitted() answers it with the 401.
  auth?.admit(r);
  const { contact, stage, source, owner } = c;
  if (r.custom_fields === null) {
    // In the order the fields are listed: the first reference that does not exist is named.
    if (stage && r.stage_name === null) throw badRequest(`No such contact stage: ${stage}`, 'stage_id');
    if (source && r.lead_source_name === null) throw badRequest(`No such lead source: ${source}`, 'lead_source_id');
    if (owner && r.owner_name === null) throw badRequest(`No such member: ${owner}`, 'owner_id');
    throw new Error('contact insert wrote nothing although every reference exists');
  }
  contact.custom_fields = r.custom_fields;
  // Each name asked for is set here: a reference that named nothing was refused above.
  if (stage) contact.stage = { id: stage, name: r.stage_name! };
  if (source) contact.lead_source = { id: source, name: r.lead_source_name! };
  if (owner) contact.owner = { id: owner, name: r.owner_name! };
  writtenAt.set(contact, { version: r.version, lookups: r.lookups });
  return contact;
}

/**
 * Creates a contact in one statement (creationStatement). The response is built from the input,
 * the looked-up names and the stored custom_fields (jsonb's key order), so nothing is read back.
 * The contact's row version and the workspace's lookup generation come back with it, for the
 * route to put the response's text in the contact text cache. While the pool's connections are
 * all busy, a creation waits for one statement with other creations, its own workspace's too
 * (creationBatchStatement; docs/store.md, "Batching"): with those whose requests the
 * statement authenticates when `auth` is given, else with those counted before.
 */
export async function createContact(db: Queryable, ws: string, input: ContactInput, now: Date, auth?: StatementAuth): Promise<Contact> {
  const c = prepareCreation(ws, input, now);
  const lane = auth?.busy ? busyCreations(db, auth.scopes) : undefined;
  const batcher = lane ? undefined : creationBatcher(db, auth?.scopes);
  let row: CreationRow;
  if (lane) row = await lane.run(auth!.workspaceId, { c, auth });
  else if (batcher) row = await batcher.run({ c, auth });
  else {
    const { sql, params } = creationStatement(c, auth);
    row = (await db.query<CreationRow>(sql, params)).rows[0];
  }
  return createdContact(c, row, auth);
}

/** A creation a batcher carries, with its deferred authentication, or none when its request was counted before. */
interface CreationItem {
  c: Creation;
  auth?: StatementAuth;
}

/**
 * The batcher of creations for a store with a pool and batching on, or undefined: with `scopes`
 * (the route's), of creations that carry their request's authentication; without, of creations
 * whose request was authenticated and counted before (a key's first request, a busy workspace's
 * write counted apart: docs/store.md, "One busy workspace").
 */
function creationBatcher(db: Queryable, scopes: readonly string[] | undefined): StatementBatcher<CreationItem, CreationRow> | undefined {
  // No key: creations of one workspace may share a statement, as its window counts each in its
  // place (BATCH_AUTH_CTES) and its counter shard takes them all in one row (CREATION_COUNT).
  return batcherOf(
    db,
    scopes ? `create ${scopes.join(' ')}` : 'create counted',
    (store) => new StatementBatcher(store, { ...BATCH, ...creationPlan(scopes) }),
  );
}

/**
 * The lanes of busy workspaces' creations (`scopes`: the route's), or undefined when the store
 * does not batch: a workspace's creations at most two statements at a time, what gathers behind
 * them as one (db/batch.ts LaneBatcher; docs/store.md, "A busy workspace's creations in one
 * statement"). Two, not one: the next statement is on its way while the one before commits.
 */
function busyCreations(db: Queryable, scopes: readonly string[]): LaneBatcher<CreationItem, CreationRow> | undefined {
  return batcherOf(
    db,
    `busy ${scopes.join(' ')}`,
    (store) => new LaneBatcher(store, { min: 2, max: BATCH.max, inFlight: 2, ...creationPlan(scopes) }),
  );
}

/** How creations are sent alone and together: with their requests' authentication when `scopes` is given, else counted before. */
function creationPlan(scopes: readonly string[] | undefined): Pick<BatchPlan<CreationItem, CreationRow>, 'one' | 'many'> {
  return {
    one: async (conn, i) => {
      const { sql, params } = creationStatement(i.c, i.auth);
      return (await conn.query<CreationRow>(sql, params)).rows[0];
    },
    many: async (conn, items) => {
      const { sql, params } = creationBatchStatement(items, scopes);
      return (await conn.query<CreationRow>(sql, params)).rows;
    },
  };
}
