import { setBounded } from '../bounded.js';
import { LaneBatcher, StatementBatcher, type BatchCounts, type BatchPlan } from '../db/batch.js';
import type { Db, Queryable } from '../db/db.js';
import { iso, isoOrNull } from '../db/db.js';
import { badRequest, invalidField, notFound } from '../errors.js';
import { NOT_BLANK_WORDS } from '../validation.js';
import { newId } from '../ids.js';
import { ACCOUNTED_SETTING, ACCOUNTED_TOKEN } from '../db/migrations.js';
import { contactPageCache, contactTextCache, type ContactTextCache } from './contact-cache.js';
import { eventInsertSql, eventsInsertSql } from './events.js';
import { encodeCursor, forWorkspace, keysetCondition, limitClause, Params, timeConditions, type Row, type TimeFilters } from './sql.js';
import {
  AUTH_COLUMNS, authenticationGate, BATCH_ADMITS, BATCH_AUTH_COLUMNS, BATCH_AUTH_CTES, BATCH_AUTH_FROM, batchAuthParams, withAuthentication,
  BATCH_PER_REQUEST, withAuthenticationBatch, type StatementAuth,
} from './workspaces.js';

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

const plainFields = ['address', 'city', 'state', 'zip_code', 'company', 'job_title', 'notes'] as const;

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

function toContact(r: Row): Contact {
  const toRow = (x: Row): ContactRow => ({ id: x.id, value: x.value, label: x.label, is_primary: x.is_primary, position: Number(x.position) });
  const em = (r.emails_json as Row[]).map(toRow);
  const ph = (r.phones_json as Row[]).map(toRow);
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
    tags: (r.tags_json as Row[]).map((t) => ({ id: t.id as string, name: t.name as string, color: (t.color ?? null) as string | null })),
    custom_fields: (r.custom_fields ?? {}) as Record<string, unknown>,
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
  let row: Row | undefined;
  if (auth) {
    const gated = withAuthentication(sql, [ws, id], auth);
    row = (await db.query(gated.sql, gated.params)).rows[0];
    auth.admit(row);
    if (row?.id === null) row = undefined;
  } else {
    row = (await db.query(sql, [ws, id])).rows[0];
  }
  if (!row) throw notFound('contact', 'contact_id');
  return toContact(row);
}

export interface ContactFilters extends TimeFilters {
  limit: number;
  cursor?: string;
  q?: string;
  stage_id?: string;
  lead_source_id?: string;
  owner_id?: string;
  tag_id?: string;
  email?: string;
}

/** Escapes LIKE metacharacters so user text matches literally. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

/** A value as JSON text, `null` for SQL NULL (PostgreSQL escapes strings as JSON.stringify does). */
const jsonText = (expr: string) => `COALESCE(to_json(${expr})::text, 'null')`;
/** A timestamp as JSON text in the form Date.prototype.toISOString writes (UTC, milliseconds, Z). */
const isoText = (expr: string) => `COALESCE('"' || to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`;
/** {"id":…,"name":…} of a looked-up row, or null when the reference is empty. */
const idNameText = (idExpr: string, nameExpr: string) =>
  `CASE WHEN ${idExpr} IS NULL THEN 'null' ELSE '{"id":' || to_json(${idExpr})::text || ',"name":' || ${jsonText(nameExpr)} || '}' END`;
/** A contact's emails or phones as a JSON array (row_to_json is compact) and its primary value. */
const rowsText = (table: string, alias: string) => `LEFT JOIN LATERAL (
    SELECT '[' || COALESCE(string_agg(row_to_json(x)::text, ',' ORDER BY x.position, x.id), '') || ']' AS arr,
           (array_agg(x.value ORDER BY x.position, x.id) FILTER (WHERE x.is_primary))[1] AS prim
      FROM (SELECT r.id, r.value, r.label, r.is_primary, r.position FROM ${table} r WHERE r.contact_id = c.id) x) ${alias} ON true`;

/** A contact's created_at as its cursor writes it. */
const CURSOR_AT = `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
/** The workspace's lookup generation (migration 5): moves whenever a name a contact shows may have. */
const lookupGen = (wsParam = '$1') => `COALESCE((SELECT gen FROM contact_lookup_gens WHERE workspace_id = ${wsParam}), 0)::text`;

/**
 * A contact as the JSON text the Contact schema serialises, written by PostgreSQL: `head` runs to
 * `"custom_fields":`, `tail` from `,"created_at"` on; custom_fields comes back as jsonb text for
 * the server to write as JSON.stringify does (jsonb's own text has spaces). Keys follow the schema's
 * order; the byte-for-byte equality with GET /v1/contacts/:id is a test (contacts-json.test.ts).
 */
const contactTextSelect = (page: string) => `SELECT c.id, c.version, c.created_at, ${CURSOR_AT} AS cursor_at,
    '{"id":' || to_json(c.id)::text || ',"first_name":' || to_json(c.first_name)::text || ',"last_name":' || to_json(c.last_name)::text
    || ',"email":' || ${jsonText('e.prim')} || ',"phone":' || ${jsonText('ph.prim')} || ',"emails":' || e.arr || ',"phones":' || ph.arr
    ${plainFields.map((f) => `|| ',"${f}":' || ${jsonText(`c.${f}`)}`).join(' ')}
    || ',"stage":' || ${idNameText('c.stage_id', 's.name')} || ',"lead_source":' || ${idNameText('c.lead_source_id', 'l.name')}
    || ',"owner":' || ${idNameText('c.owner_id', 'm.name')}
    || ',"tags":' || tg.arr || ',"custom_fields":' AS head,
    c.custom_fields::text AS custom_fields,
    ',"created_at":' || ${isoText('c.created_at')} || ',"updated_at":' || ${isoText('c.updated_at')}
    || ',"last_activity_at":' || ${isoText('c.last_activity_at')} || '}' AS tail
  FROM (${page}) c
  LEFT JOIN contact_stages s ON s.id = c.stage_id
  LEFT JOIN lead_sources l ON l.id = c.lead_source_id
  LEFT JOIN members m ON m.id = c.owner_id
  ${rowsText('contact_emails', 'e')}
  ${rowsText('contact_phones', 'ph')}
  LEFT JOIN LATERAL (
    SELECT '[' || COALESCE(string_agg(row_to_json(x)::text, ',' ORDER BY x.name, x.id), '') || ']' AS arr
      FROM (SELECT t.id, t.name, t.color FROM contact_tags ct JOIN tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id) x) tg ON true`;

/** Characters a phone number is written with besides its digits: `+1 (555) 010-2030`, `555.010.2030`, `555/010 2030`. */
const PHONE_TERM = /^[\d\s+\-.()/]*\d[\d\s+\-.()/]*$/;

/**
 * What `q` matches: a substring of the search text (searchText) as written, and, when the term
 * reads as a phone number in some format (digits and phone punctuation only), its digits alone,
 * which match the digits-only form of every phone the search text holds: `555-010-2030` and
 * `(555) 010` find `+1 (555) 010-2030`.
 *
 * One condition, written three ways for the plan it leaves PostgreSQL (docs/store.md, "A search's
 * plan"):
 * - `planned`: LIKE on the term itself, in a statement planned for its values: PostgreSQL
 *   estimates the term from the trigram statistics and picks the plan.
 * - `matches`: LIKE on `(SELECT $n)`, a value no plan can estimate. The trigram index serves it
 *   (for a phone, a BitmapOr of two scans of `contacts_ws_search`), and a generic plan costs what
 *   a custom one does, so a prepared statement settles on one plan.
 * - `walk`: strpos, which the trigram index cannot serve, so the page is read newest first along
 *   (workspace_id, created_at, id) until it is full: the plan for a common term.
 */
type SearchForm = 'planned' | 'matches' | 'walk';
function searchCondition(q: Params, term: string, form: SearchForm): string {
  const lower = term.toLowerCase();
  const digits = term.replace(/\D/g, '');
  const terms = !PHONE_TERM.test(term) || digits === term ? [lower] : [lower, digits];
  const one = (t: string) =>
    form === 'walk' ? `strpos(c.search_text, ${q.p(t)}) > 0`
    : form === 'matches' ? `c.search_text LIKE (SELECT ${q.p(`%${likeEscape(t)}%`)}::text)`
    : `c.search_text LIKE ${q.p(`%${likeEscape(t)}%`)}`;
  return terms.length === 1 ? one(terms[0]) : `(${terms.map(one).join(' OR ')})`;
}

/**
 * Contacts a newest-first walk may read for less than the trigram index costs before it finds a
 * single match: its posting lists are the whole table's, so a term whose trigrams are common
 * anywhere costs milliseconds (docs/store.md, "A search's plan"), while a walk of a thousand
 * contacts costs about one.
 */
const WALK_FREE = 1000;

/**
 * Which plan a search's page of `rows` takes, from its last count: `total` matches among the
 * workspace's `size` contacts. Read newest first, the page visits about rows × size ÷ total
 * contacts (at most the workspace); read by the trigram index, every match is visited, then
 * sorted. The walk is chosen when it visits no more than that, or no more than WALK_FREE. With no
 * count (the term not yet searched in this process, or forgotten), a workspace known to hold at
 * most WALK_FREE contacts (`size`, from its last list) is walked whatever the term, and any other
 * search is planned for its values.
 */
export function searchPlan(count: { total: string; size?: string } | undefined, rows: number, size?: number): 'matches' | 'walk' | undefined {
  if (!count?.size) return size !== undefined && size <= WALK_FREE ? 'walk' : undefined;
  const total = Number(count.total);
  const contacts = Number(count.size);
  const walked = total > 0 ? Math.min(contacts, (rows * contacts) / total) : contacts;
  return walked <= Math.max(total, WALK_FREE) ? 'walk' : 'matches';
}

/**
 * How a search with a chosen plan counts its matches: every contact of a workspace of at most
 * WALK_FREE (its last count's `size`, else `size` from its last list) is read for less than the
 * trigram index's posting lists cost, which are the whole table's; a larger one's matches are
 * read by the index.
 */
function countForm(count: { size?: string } | undefined, size: number | undefined): 'matches' | 'walk' {
  const contacts = count?.size ? Number(count.size) : size;
  return contacts !== undefined && contacts <= WALK_FREE ? 'walk' : 'matches';
}

/**
 * The one statement of a contact listing (exported so the benchmark can EXPLAIN it): the total
 * (one row, whatever the page) left-joined to the page of limit + 1 contacts as JSON text.
 *
 * `known` (the 'versions' statement only) makes the page conditional (docs/store.md, "A page
 * that did not change"): given the page's key (`pageKey`, below), it returns the workspace's write
 * generation at which this process holds the page, or null; a raw SQL expression instead (a batch:
 * each request's own). The statement then leaves the page out (`page` null) when the generation
 * is still that one. `pageKey` is null for a list whose generation says nothing of its page (a
 * filter by tag or email, which its count cache leaves out too).
 */
export function contactListQuery(
  ws: string,
  f: ContactFilters,
  cache?: Map<string, CachedCount>,
  page: 'text' | 'ordered text' | 'versions' = 'text',
  known?: ((pageKey: string) => string | null) | { sql: string },
  size?: number,
): { sql: string; params: unknown[]; cacheKey: string | null; filtered: boolean; planned: boolean; pageKey: string | null } {
  const q = new Params();
  const where = [`c.workspace_id = ${q.p(ws)}`];
  if (f.stage_id) where.push(`c.stage_id = ${q.p(f.stage_id)}`);
  if (f.lead_source_id) where.push(`c.lead_source_id = ${q.p(f.lead_source_id)}`);
  if (f.owner_id) where.push(`c.owner_id = ${q.p(f.owner_id)}`);
  if (f.tag_id) where.push(`EXISTS (SELECT 1 FROM contact_tags ct WHERE ct.contact_id = c.id AND ct.tag_id = ${q.p(f.tag_id)})`);
  if (f.email)
    where.push(
      `EXISTS (SELECT 1 FROM contact_emails ce WHERE ce.contact_id = c.id AND ce.workspace_id = c.workspace_id AND lower(ce.value) = lower(${q.p(f.email)}))`,
    );
  where.push(...timeConditions(q, 'c', f));
  // Unfiltered, the count is kept in contact_counts by a trigger (migration 4): O(1). Filtered on
  // contacts' own columns, a count is cached at the workspace's write generation (migration 4):
  // PostgreSQL counts again only when the generation it reads differs from the cached one. The
  // cache's key is the filter: its other conditions with their values, and the term as asked.
  const filtered = where.length > 1 || !!f.q;
  const cacheKey = filtered && !f.tag_id && !f.email ? JSON.stringify([where, q.values, f.q ?? null]) : null;
  const hit = cacheKey ? cache?.get(cacheKey) : undefined;
  // A search is planned for its term until its count (or its workspace's small `size`) is known,
  // then takes one of two prepared plans (searchPlan); its count reads every match, by the index
  // or, in a small workspace, by reading every contact (countForm).
  const plan = f.q ? searchPlan(hit, f.limit + 1, size) : undefined;
  const pageWhere = [...where];
  if (f.q) {
    const counting = plan ? countForm(hit, size) : 'planned';
    const matching = searchCondition(q, f.q, counting);
    where.push(matching);
    pageWhere.push(plan && plan !== counting ? searchCondition(q, f.q, plan) : matching);
  }
  let countSql: string;
  if (!filtered) {
    countSql = 'SELECT COALESCE(sum(n), 0)::bigint AS total, COALESCE(sum(writes), 0)::text AS gen, NULL::text AS size FROM contact_counts WHERE workspace_id = $1';
  } else if (cacheKey) {
    countSql = `SELECT CASE WHEN g.gen = ${q.p(hit?.gen ?? '-1')}::bigint THEN ${q.p(hit?.total ?? '0')}::bigint
        ELSE (SELECT count(*) FROM contacts c WHERE ${where.join(' AND ')}) END AS total, g.gen::text AS gen, g.size::text AS size
      FROM (SELECT COALESCE(sum(writes), 0)::bigint AS gen, COALESCE(sum(n), 0)::bigint AS size FROM contact_counts WHERE workspace_id = $1) g`;
  } else {
    countSql = `SELECT count(*) AS total, NULL::text AS gen, NULL::text AS size FROM contacts c WHERE ${where.join(' AND ')}`;
  }
  // Unfiltered, one generic plan fits every workspace; filtered by values, planned for them
  // (limitClause); a search whose plan is chosen keeps that plan, so its limit is in the text too.
  const limit = filtered && !plan ? `LIMIT ${q.p(f.limit + 1)}` : limitClause(f.limit + 1);
  // A page is the same while the workspace's write generation is: every write to its contacts,
  // whoever makes it, moves the generation in its transaction (migration 4), so a statement that
  // reads the generation it was held at reads the same ids, row versions and total.
  const pageKey = !filtered ? pageKeyOf(ws, f.limit, f.cursor) : cacheKey ? `${cacheKey} ${f.limit} ${f.cursor ?? ''}` : null;
  const heldAt = page === 'versions' && pageKey && known ? ('sql' in known ? known.sql : `${q.p(known(pageKey))}::text`) : undefined;
  const k = keysetCondition(q, f.cursor, 'c', 'contacts');
  if (k) pageWhere.push(k);
  // The page's rows are chosen first (an index scan that stops at limit + 1), then written out:
  // joined the other way round, PostgreSQL would build the text of every match before the limit.
  // A search by its matches reads them all, then orders them: in a subquery (OFFSET 0, never
  // pulled up), it leaves the plan no walk along the (workspace_id, created_at, id) index.
  const rows = `SELECT c.*, c.xmin::text AS version FROM contacts c WHERE ${pageWhere.join(' AND ')}`;
  const chosen = `${plan === 'matches' ? `SELECT * FROM (${rows} OFFSET 0) c` : rows} ORDER BY c.created_at DESC, c.id DESC ${limit}`;
  const pageSql = page !== 'versions' ? contactTextSelect(chosen) : `SELECT c.id, c.version, c.created_at, ${CURSOR_AT} AS cursor_at FROM (${chosen}) c`;
  // The page's versions as one text, in a subquery of its own: PostgreSQL runs it only when asked
  // for its value, so a CASE that does not ask leaves the page unread.
  const versions = `SELECT string_agg(p.id || ' ' || p.version || ' ' || p.cursor_at, ' ' ORDER BY p.created_at DESC, p.id DESC) FROM (${pageSql}) p`;
  // The count is a subquery PostgreSQL must not pull up (OFFSET 0): it is computed once, whatever
  // the page (pulled up into a statement that grouped by it, a search once counted its matches twice).
  // Text columns only: no timestamp is parsed into a Date per row (the cursor's comes as text).
  // The versions come as one row, the page as one text of "id version cursor_at" triples (none of
  // them holds a space): one row for the driver to parse instead of limit + 1.
  // 'ordered text' numbers the rows in that order (`ord`), for a statement that wraps this one
  // (withAuthentication) to order by.
  const sql = page !== 'versions'
    ? `SELECT n.total::text AS total, n.gen, n.size, ${lookupGen()} AS lookups, p.id, p.version, p.cursor_at, p.head, p.custom_fields, p.tail${
      page === 'ordered text' ? ', row_number() OVER (ORDER BY p.created_at DESC, p.id DESC) AS ord' : ''}
    FROM (${countSql} OFFSET 0) n LEFT JOIN LATERAL (${pageSql}) p ON true ORDER BY p.created_at DESC, p.id DESC`
    : `SELECT n.total::text AS total, n.gen, n.size, ${lookupGen()} AS lookups, ${heldAt ? `CASE WHEN n.gen IS DISTINCT FROM ${heldAt} THEN (${versions}) END` : `(${versions})`} AS page
    FROM (${countSql} OFFSET 0) n`;
  return { sql, params: q.values, cacheKey, filtered, planned: !!f.q && !plan, pageKey };
}

/**
 * A filtered list's count at the workspace's write generation it was counted at, and the
 * workspace's contacts then (`size`): a search's plan is chosen from both (searchPlan).
 */
interface CachedCount {
  gen: string;
  total: string;
  size: string;
}
/** Per store: counts of filtered lists by filter (contactListQuery's cacheKey). */
const countCaches = new WeakMap<object, Map<string, CachedCount>>();
/** Per store: the unfiltered pages (workspace, limit and cursor) this process has served, at most SERVED_PAGES. */
const servedPages = new WeakMap<object, Map<string, true>>();
const SERVED_PAGES = 100_000;
const COUNT_CACHE_SIZE = 10_000;

/** Notes a page as served, newest last; past SERVED_PAGES the oldest is forgotten. */
function markServed(served: Map<string, true>, pageKey: string): void {
  setBounded(served, pageKey, true, SERVED_PAGES);
}

/**
 * Per store: each workspace's contacts as its last list read them (an unfiltered list's total, a
 * filtered one's `size`), for at most COUNT_CACHE_SIZE workspaces: a search in a workspace this
 * process knows to be small is walked from its first request (searchPlan). Only a plan's choice
 * rests on it, never an answer.
 */
const workspaceSizes = new WeakMap<object, Map<string, number>>();

function rememberSize(sizes: Map<string, number>, ws: string, row: Row, filtered: boolean): void {
  const size = filtered ? row.size : row.total;
  if (size !== null && size !== undefined) setBounded(sizes, ws, Number(size), COUNT_CACHE_SIZE);
}

function rememberCount(cache: Map<string, CachedCount>, key: string, row: Row): void {
  if (cache.get(key)?.gen !== row.gen) setBounded(cache, key, { gen: row.gen, total: row.total, size: row.size }, COUNT_CACHE_SIZE);
}

/** custom_fields as the response serialiser writes it: JSON.stringify of the parsed jsonb. */
const customFieldsText = (t: string) => (t === '{}' ? t : JSON.stringify(JSON.parse(t)));
/** A contact's JSON text from a row of contactTextSelect. */
const contactText = (r: Row): string => r.head + customFieldsText(r.custom_fields) + r.tail;

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
  if (at && cache.capacity > 0) cache.set(contact.id, at.version, at.lookups, text, Date.now());
}

/**
 * The statement writing out the contacts of a page by id, at the versions the page read (see
 * listContactsJson), for `n` ids: one parameter per id (`IN ($2, $3, ...)`), so the statement
 * for each count keeps one generic plan. With one array parameter (`= ANY($2)`) the generic plan
 * must guess the array's length, costs more than a plan for the actual one or two ids, and
 * PostgreSQL planned every execution again (docs/store.md, "One plan per statement").
 */
function contactsTextById(n: number): string {
  let sql = textByIdStatements[n];
  if (sql === undefined) {
    const ids = Array.from({ length: n }, (_, i) => `$${i + 2}`).join(', ');
    sql = textByIdStatements[n] = `SELECT p.id, p.version, ${lookupGen()} AS lookups, p.head, p.custom_fields, p.tail FROM (${contactTextSelect(
      `SELECT c.*, c.xmin::text AS version FROM contacts c WHERE c.workspace_id = $1 AND c.id IN (${ids})`,
    )}) p`;
  }
  return sql;
}
const textByIdStatements: string[] = [];

/**
 * A page of contacts as the response body's JSON text. With the text cache on (the default), a
 * page this process served before is read as its ids and row versions (and the total); contacts
 * whose text is cached at those versions are not written again, the rest are written by
 * PostgreSQL in a second statement that must return each at the version the first read.
 * Otherwise (a page not served before, a text changed under the second statement, the cache off)
 * the page is read in one statement that writes every contact's text.
 */
export async function listContactsJson(db: Queryable, ws: string, f: ContactFilters, auth?: StatementAuth): Promise<string> {
  let counts = countCaches.get(db);
  if (!counts) countCaches.set(db, (counts = new Map()));
  let sizes = workspaceSizes.get(db);
  if (!sizes) workspaceSizes.set(db, (sizes = new Map()));
  const size = sizes.get(ws);
  const texts = contactTextCache(db);
  const pages = contactPageCache(db);
  const now = Date.now();
  let served = servedPages.get(db);
  if (!served) servedPages.set(db, (served = new Map()));
  const pageKey = pageKeyOf(ws, f.limit, f.cursor);
  // The request's authentication, while no statement has carried it yet (the route defers it here).
  let pending = auth;
  // The page as this process last wrote it, if it holds it: the statement leaves the page out
  // while the workspace's write generation is still the one it was read at.
  let held: { version: string; lookups: string } | undefined;
  const list = texts.capacity > 0 ? contactListQuery(ws, f, counts, 'versions', (key) => (held = pages.held(key, now))?.version ?? null, size) : undefined;
  // A page of the workspace's list this process has not served (its first page after a start, a
  // cursor read for the first time) is written by PostgreSQL in the page's own statement: its
  // contacts' texts are most likely not cached, and asking for the versions first would cost a
  // second statement. A page served before, and every filtered or searched page (their contacts
  // are mostly those of the list, cached; a search's first statement is planned for its term, and
  // the texts' joins would make that plan far costlier), asks for the versions and writes only
  // what is not cached.
  if (list && (list.filtered || served.has(pageKey))) {
    const { cacheKey } = list;
    const batcher = pending && !list.filtered && !f.cursor ? listBatcher(db, f.limit, pending.scopes) : undefined;
    let row: Row | undefined;
    if (batcher) {
      // A first page of the workspace's list: sent with other workspaces' when connections are short.
      row = await batcher.run({ auth: pending!, single: withAuthentication(list.sql, list.params, pending!), known: held?.version ?? null });
    } else {
      const { sql, params } = pending ? withAuthentication(list.sql, list.params, pending) : list;
      row = (await db.query(sql, params, { prepare: !list.planned })).rows[0];
    }
    pending?.admit(row);
    pending = undefined;
    const first = row!;
    if (cacheKey) rememberCount(counts, cacheKey, first);
    rememberSize(sizes, ws, first, list.filtered);
    const lookups = first.lookups as string;
    // Unchanged since this process wrote it: its body as it was, unless a name its contacts show
    // may have changed (the lookup generation moved), when the page is read again below.
    const unchanged = held !== undefined && first.gen === held.version;
    const body = unchanged ? pages.get(list.pageKey!, held!.version, lookups, now) : undefined;
    if (body !== undefined) return body;
    const words = first.page === null ? [] : (first.page as string).split(' ');
    const page: Row[] = [];
    for (let i = 0; i < words.length; i += 3) page.push({ id: words[i], version: words[i + 1], cursor_at: words[i + 2] });
    const shown = page.slice(0, f.limit);
    const out: string[] = new Array(shown.length);
    const missing: string[] = [];
    for (let i = 0; i < shown.length; i++) {
      const t = texts.get(shown[i].id, shown[i].version, lookups, now);
      if (t === undefined) missing.push(shown[i].id);
      else out[i] = t;
    }
    let complete = true;
    if (missing.length) {
      const written = await db.query(contactsTextById(missing.length), [ws, ...missing]);
      const byId = new Map<string, { version: string; lookups: string; text: string }>();
      for (const r of written.rows) {
        const w = { version: r.version as string, lookups: r.lookups as string, text: contactText(r) };
        texts.set(r.id, w.version, w.lookups, w.text, now);
        byId.set(r.id, w);
      }
      for (let i = 0; i < shown.length && complete; i++) {
        if (out[i] !== undefined) continue;
        const w = byId.get(shown[i].id);
        // Changed, or gone, since the page was read: this page is read again in one statement.
        if (!w || w.version !== shown[i].version || w.lookups !== lookups) complete = false;
        else out[i] = w.text;
      }
    }
    if (complete && !unchanged) return keepPage(pages, list.pageKey, first.gen, lookups, pageJson(out, page, f.limit, first.total), now);
  }
  const whole = contactListQuery(ws, f, counts, pending ? 'ordered text' : 'text', undefined, size);
  const { cacheKey } = whole;
  const { sql, params } = pending ? withAuthentication(whole.sql, whole.params, pending, 'ord') : whole;
  const { rows } = await db.query(sql, params, { prepare: !whole.planned });
  pending?.admit(rows[0]);
  if (cacheKey) rememberCount(counts, cacheKey, rows[0]);
  rememberSize(sizes, ws, rows[0], whole.filtered);
  if (texts.capacity > 0 && !whole.filtered) markServed(served, pageKey);
  return keepPage(pages, whole.pageKey, rows[0].gen, rows[0].lookups, writtenPage(rows, f.limit, texts, now), now);
}

/**
 * The body of a page read in one statement that wrote its contacts' texts (`rows`: at most
 * limit + 1, or one row of nulls for none), each shown contact's text put in the text cache (not
 * that of the row read for has_more).
 */
function writtenPage(rows: Row[], limit: number, texts: ContactTextCache, now: number): string {
  const page = rows[0].id === null ? [] : rows;
  const out = page.slice(0, limit).map((r) => {
    const text = contactText(r);
    if (texts.capacity > 0) texts.set(r.id, r.version, r.lookups, text, now);
    return text;
  });
  return pageJson(out, page, limit, rows[0].total);
}

/** Holds a page's body at the generations its statement read (when its list has a page key), and returns it. */
function keepPage(pages: ContactTextCache, key: string | null, gen: string | null, lookups: string, body: string, now: number): string {
  if (key !== null && gen !== null) pages.set(key, gen, lookups, body, now);
  return body;
}

/** The served-pages key of a page of a workspace's unfiltered list. */
const pageKeyOf = (ws: string, limit: number, cursor?: string) => `${ws} ${limit} ${cursor ?? ''}`;
/** Workspaces whose first pages one warming statement reads. */
const WARM_BATCH = 50;

/**
 * Reads the first pages (`limit`, the API's default 20) of `workspaces`' lists, in order, into
 * the store's contact text cache and marks them served, as each workspace's first list would,
 * so that a restarted server's first lists are the one cheap statement that can be batched
 * rather than each writing its contacts' texts at once (docs/store.md, "Warming a restart").
 * Stops at `deadline` (a Date.now() time) or once the cache is three-quarters full. Sends
 * `connections` statements at a time (by default as many as the store's pool has connections; 1
 * without a pool), up to fifty workspaces each and spread so that each of them gets one: every
 * pooled connection then has opened its backend and served a page's statement before the first
 * request, rather than under the first requests' load. Returns the workspaces read.
 */
export async function warmContactPages(db: Queryable, workspaces: readonly string[], o: { deadline: number; limit?: number; connections?: number }): Promise<number> {
  const texts = contactTextCache(db);
  if (texts.capacity === 0) return 0;
  const pages = contactPageCache(db);
  const limit = o.limit ?? 20;
  let served = servedPages.get(db);
  if (!served) servedPages.set(db, (served = new Map()));
  const sql = `SELECT w.ws, p.* FROM unnest($1::text[]) WITH ORDINALITY AS w(ws, o),
    LATERAL (${forWorkspace(contactListQuery('', { limit } as ContactFilters, undefined, 'ordered text').sql, 'w.ws')}) p
    ORDER BY w.o, p.ord`;
  let next = 0;
  let read = 0;
  const connections = Math.max(1, o.connections ?? (db as Partial<Db>).pool?.size ?? 1);
  const size = Math.max(1, Math.min(WARM_BATCH, Math.ceil(workspaces.length / connections)));
  const full = () => Date.now() >= o.deadline || texts.used >= texts.capacity * 0.75;
  const worker = async () => {
    while (next < workspaces.length && !full()) {
      const chunk = workspaces.slice(next, (next += size));
      const { rows } = await db.query(sql, [chunk]);
      const now = Date.now();
      for (let i = 0; i < rows.length; ) {
        // Each workspace's rows, as its own list's statement would have returned them.
        let end = i + 1;
        while (end < rows.length && rows[end].ws === rows[i].ws) end++;
        const own = rows.slice(i, end);
        const key = pageKeyOf(own[0].ws, limit);
        markServed(served!, key);
        // Held as a list holds it: the workspace's first list is not read while nothing is written.
        keepPage(pages, key, own[0].gen, own[0].lookups, writtenPage(own, limit, texts, now), now);
        read++;
        i = end;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  return read;
}

/** A list request a batcher carries: its deferred authentication and its statement sent alone. */
interface ListItem {
  auth: StatementAuth;
  single: { sql: string; params: unknown[] };
  /** The write generation at which this process holds the page, or null (contactListQuery's `known`). */
  known: string | null;
}

/** Per store: whether requests are batched (db/batch.ts; on unless turned off), and its batchers by the shape of what they send. */
const batching = new WeakMap<object, boolean>();
const batchers = new WeakMap<object, Map<string, BatchCounts>>();
/**
 * A batch of two costs PostgreSQL more than two statements, one of four less than four (docs/store.md,
 * "Batching requests"); sixteen is the largest measured (0.38× the PostgreSQL CPU per page; a
 * creation 0.39×, "Batching creations").
 */
const BATCH = { min: 4, max: 16 };

/**
 * The store's batcher for statements of `shape`, made by `make` on first use, or undefined when
 * the store cannot batch (PGlite, a transaction: no pool) or batching is turned off.
 */
function batcherOf<B extends BatchCounts>(db: Queryable, shape: string, make: (store: Db) => B): B | undefined {
  if (!batches(db)) return undefined;
  let byShape = batchers.get(db);
  if (!byShape) batchers.set(db, (byShape = new Map()));
  let b = byShape.get(shape) as B | undefined;
  if (!b) byShape.set(shape, (b = make(db as Db)));
  return b;
}

/** Whether a store batches lists and creations: it has a pool (not a transaction) and batching is not turned off. */
export function batches(db: Queryable): boolean {
  return (db as Partial<Db>).pool !== undefined && batching.get(db) !== false;
}

/** Turns batching of lists and creations on or off for a store (`serve --no-batching`; a benchmark compares the two). */
export function setBatching(db: Queryable, on: boolean): void {
  batching.set(db, on);
}

/** Batched statements of a store so far (lists and creations), the requests they carried, and those waiting now. */
export function batchStats(db: Queryable): { batches: number; batched: number; waiting: number } {
  const out = { batches: 0, batched: 0, waiting: 0 };
  for (const b of batchers.get(db)?.values() ?? []) {
    out.batches += b.batches;
    out.batched += b.batched;
    out.waiting += b.waiting;
  }
  return out;
}

/**
 * The batcher of first pages (limit `limit`, the route's `scopes`) for a store with a pool, or
 * undefined (PGlite, a transaction, batching turned off). Each page is the unfiltered versions
 * statement of contactListQuery; the batch authenticates each request as its own statement would.
 */
function listBatcher(db: Queryable, limit: number, scopes: readonly string[]): StatementBatcher<ListItem, Row | undefined> | undefined {
  return batcherOf(db, `list ${limit} ${scopes.join(' ')}`, (store) => {
    // The page's statement for workspace $1 (unfiltered, no cursor), conditional on each request's
    // own generation held (a per-request parameter of the batch).
    const page = contactListQuery('', { limit } as ContactFilters, undefined, 'versions', { sql: `($${BATCH_PER_REQUEST}::text[])[t.ord]` }).sql;
    return new StatementBatcher<ListItem, Row | undefined>(store, {
      ...BATCH,
      key: (i) => i.auth.workspaceId,
      one: async (c, i) => (await c.query(i.single.sql, i.single.params)).rows[0],
      many: async (c, items) => {
        const { sql, params } = withAuthenticationBatch(page, items.map((i) => i.auth), scopes, [items.map((i) => i.known)]);
        return (await c.query(sql, params)).rows;
      },
    });
  });
}

/** The list's body around its contacts' texts: has_more and the cursor from the limit + 1 rows read. */
function pageJson(texts: string[], rows: Row[], limit: number, total: string): string {
  const has_more = rows.length > limit;
  const last = has_more ? rows[limit - 1] : undefined;
  const next = last ? JSON.stringify(encodeCursor(last.cursor_at, last.id, 'contacts')) : 'null';
  return `{"data":[${texts.join(',')}],"has_more":${has_more},"next_cursor":${next},"total_count":${total}}`;
}

/** Orders rows by position (then list order), renumbers them and makes exactly one primary. */
function normaliseRows(input: RowInput[], keep: Map<string, ContactRow>): ContactRow[] {
  const sorted = input
    .map((r, i) => ({ r, i }))
    .sort((a, b) => (a.r.position ?? a.i) - (b.r.position ?? b.i) || a.i - b.i)
    .map((x) => x.r);
  const primaryIndex = Math.max(0, sorted.findIndex((r) => r.is_primary === true));
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

function rowsFromInput(
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
function searchText(c: { first_name: string; last_name: string; company: string | null; emails: ContactRow[]; phones: ContactRow[] }): string {
  return [c.first_name, c.last_name, c.company ?? '', ...c.emails.map((e) => e.value), ...c.phones.map((p) => p.value), ...c.phones.map((p) => p.value.replace(/\D/g, ''))]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
}

/** Empty string means "none" for the id references the spec lets clients clear. */
const emptyToNull = (v: string | null | undefined) => (v === '' ? null : v);

export async function addActivity(
  tx: Queryable,
  ws: string,
  contactId: string,
  a: { type: string; title: string; description?: string | null; metadata?: unknown; actor_member_id?: string | null; is_private?: boolean; mailbox_id?: string | null },
  at: Date,
): Promise<Row> {
  const { rows } = await tx.query(
    `INSERT INTO activities (id, workspace_id, contact_id, type, title, description, metadata, actor_member_id, is_private, mailbox_id, created_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7::jsonb,$8,$9,$10,$11::timestamptz) RETURNING *`,
    [newId('act'), ws, contactId, a.type, a.title, a.description ?? null, a.metadata === undefined || a.metadata === null ? null : JSON.stringify(a.metadata),
      a.actor_member_id ?? null, a.is_private ?? false, a.mailbox_id ?? null, at.toISOString()],
  );
  return rows[0];
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
    address: input.address ?? null, city: input.city ?? null, state: input.state ?? null, zip_code: input.zip_code ?? null,
    company: input.company ?? null, job_title: input.job_title ?? null, notes: input.notes ?? null,
    stage: null, lead_source: null, owner: null,
    tags: [],
    custom_fields: input.custom_fields ?? {},
    created_at: at,
    updated_at: at,
    last_activity_at: null,
  };
  return {
    ws, contact, input,
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
const creationRefs = (ws: string, stage: string, source: string, owner: string) => `(SELECT name FROM contact_stages WHERE workspace_id = ${ws} AND id = ${stage}) AS stage_name,
        (SELECT name FROM lead_sources WHERE workspace_id = ${ws} AND id = ${source}) AS lead_source_name,
        (SELECT name FROM members WHERE workspace_id = ${ws} AND id = ${owner}) AS owner_name,
        set_config('${ACCOUNTED_SETTING}', ${ACCOUNTED_TOKEN}, true) AS accounted`;
/** Every reference a creation names exists (`r` holds their names). */
const creationRefsExist = (stage: string, source: string, owner: string) =>
  `(${stage} IS NULL OR r.stage_name IS NOT NULL) AND (${source} IS NULL OR r.lead_source_name IS NOT NULL) AND (${owner} IS NULL OR r.owner_name IS NOT NULL)`;
/** A reference in an event's data: {id, name}, or null. */
const idName = (id: string, name: string) => `CASE WHEN ${name} IS NULL THEN 'null'::jsonb ELSE jsonb_build_object('id', ${id}, 'name', ${name}) END`;
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
      RETURNING id, workspace_id, custom_fields, xmin::text AS version),${contact.emails.length ? `
    em AS (${creationRowsInsert('contact_emails', `${q.p(JSON.stringify(contact.emails))}::jsonb`, 'ins')}),` : ''}${contact.phones.length ? `
    ph AS (${creationRowsInsert('contact_phones', `${q.p(JSON.stringify(contact.phones))}::jsonb`, 'ins')}),` : ''}
    act AS (
      INSERT INTO activities (id, workspace_id, contact_id, type, title, is_private, created_at)
      SELECT ${q.p(c.activityId)}, ins.workspace_id, ins.id, 'contact_created', 'Contact created', false, ${atP}::timestamptz FROM ins),
    cnt AS (${CREATION_COUNT}),
    ev AS (${eventsInsertSql({
      id: q.p(c.eventId), workspace: 'ins.workspace_id', type: "'contact.created'",
      data: creationEventData(`${q.p(JSON.stringify(contact))}::jsonb`, `${stageP}::text`, `${sourceP}::text`, `${ownerP}::text`),
      changed: 'NULL', at: `${atP}::timestamptz`,
    }, 'ins, r')})
    SELECT r.stage_name, r.lead_source_name, r.owner_name, ins.custom_fields, ins.version, ${lookupGen(wsP)} AS lookups${auth ? ', a.*' : ''} FROM r LEFT JOIN ins ON true${
      auth ? ` LEFT JOIN (SELECT ${AUTH_COLUMNS} FROM k) a ON true` : ''}`;
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
      ord: i + 1, ws: c.ws, id: c.contact.id, at: c.contact.created_at, act_id: c.activityId, evt_id: c.eventId,
      emails: c.contact.emails, phones: c.contact.phones, data: c.contact,
    });
    return row;
  });
  const auths = scopes && items.map((i) => i.auth!);
  return { sql: creationBatchSql(!!auths), params: auths ? [...batchAuthParams(auths, scopes!), JSON.stringify(creations)] : [JSON.stringify(creations)] };
}

/** creationBatchStatement's text, with its requests' authentication or without: two texts, written once each. */
function creationBatchSql(authenticated: boolean): string {
  const known = creationBatchTexts[Number(authenticated)];
  if (known !== undefined) return known;
  const creationsParam = authenticated ? '$6' : '$1';
  const sql = `WITH c AS (
      SELECT * FROM jsonb_to_recordset(${creationsParam}::jsonb) AS c(ord bigint, ws text, id text, ${CREATION_FIELDS.map(([column, type]) => `${column} ${type}`).join(', ')},
        at timestamptz, act_id text, evt_id text, emails jsonb, phones jsonb, data jsonb)),
    ${authenticated ? `${BATCH_AUTH_CTES},
    ok AS (SELECT t.ord FROM ${BATCH_AUTH_FROM} WHERE ${BATCH_ADMITS}),` : 't AS (SELECT ord, ws FROM c),'}
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
    ev AS (${eventsInsertSql({
      id: 'c.evt_id', workspace: 'ins.workspace_id', type: "'contact.created'",
      data: creationEventData('c.data', 'c.stage_id', 'c.lead_source_id', 'c.owner_id'), changed: 'NULL', at: 'c.at',
    }, 'ins JOIN c ON c.id = ins.id JOIN r ON r.ord = c.ord')})
    SELECT t.ord, ${authenticated ? `${BATCH_AUTH_COLUMNS}, ` : ''}r.stage_name, r.lead_source_name, r.owner_name, ins.custom_fields, ins.version, ${lookupGen('t.ws')} AS lookups
      FROM ${authenticated ? BATCH_AUTH_FROM : 't'} JOIN r ON r.ord = t.ord JOIN c ON c.ord = t.ord LEFT JOIN ins ON ins.id = c.id
     ORDER BY t.ord`;
  creationBatchTexts[Number(authenticated)] = sql;
  return sql;
}
const creationBatchTexts: (string | undefined)[] = [];

/** The created contact from its statement's row: the references' names, the stored custom_fields. */
function createdContact(c: Creation, r: Row, auth?: StatementAuth): Contact {
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
  contact.custom_fields = r.custom_fields as Record<string, unknown>;
  if (stage) contact.stage = { id: stage, name: r.stage_name };
  if (source) contact.lead_source = { id: source, name: r.lead_source_name };
  if (owner) contact.owner = { id: owner, name: r.owner_name };
  writtenAt.set(contact, { version: r.version, lookups: r.lookups });
  return contact;
}

/**
 * Creates a contact in one statement (creationStatement). The response is built from the input,
 * the looked-up names and the stored custom_fields (jsonb's key order), so nothing is read back.
 * The contact's row version and the workspace's lookup generation come back with it, for the
 * route to put the response's text in the contact text cache. While the pool's connections are
 * all busy, a creation waits for one statement with other creations, its own workspace's too
 * (creationBatchStatement; docs/store.md, "Batching creations"): with those whose requests the
 * statement authenticates when `auth` is given, else with those counted before.
 */
export async function createContact(db: Queryable, ws: string, input: ContactInput, now: Date, auth?: StatementAuth): Promise<Contact> {
  const c = prepareCreation(ws, input, now);
  const lane = auth?.busy ? busyCreations(db, auth.scopes) : undefined;
  const batcher = lane ? undefined : creationBatcher(db, auth?.scopes);
  let row: Row;
  if (lane) row = await lane.run(auth!.workspaceId, { c, auth });
  else if (batcher) row = await batcher.run({ c, auth });
  else {
    const { sql, params } = creationStatement(c, auth);
    row = (await db.query(sql, params)).rows[0];
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
function creationBatcher(db: Queryable, scopes: readonly string[] | undefined): StatementBatcher<CreationItem, Row> | undefined {
  // No key: creations of one workspace may share a statement, as its window counts each in its
  // place (BATCH_AUTH_CTES) and its counter shard takes them all in one row (CREATION_COUNT).
  return batcherOf(db, scopes ? `create ${scopes.join(' ')}` : 'create counted', (store) => new StatementBatcher(store, { ...BATCH, ...creationPlan(scopes) }));
}

/**
 * The lanes of busy workspaces' creations (`scopes`: the route's), or undefined when the store
 * does not batch: a workspace's creations at most two statements at a time, what gathers behind
 * them as one (db/batch.ts LaneBatcher; docs/store.md, "A busy workspace's creations in one
 * statement"). Two, not one: the next statement is on its way while the one before commits.
 */
function busyCreations(db: Queryable, scopes: readonly string[]): LaneBatcher<CreationItem, Row> | undefined {
  return batcherOf(db, `busy ${scopes.join(' ')}`, (store) => new LaneBatcher(store, { min: 2, max: BATCH.max, inFlight: 2, ...creationPlan(scopes) }));
}

/** How creations are sent alone and together: with their requests' authentication when `scopes` is given, else counted before. */
function creationPlan(scopes: readonly string[] | undefined): Pick<BatchPlan<CreationItem, Row>, 'one' | 'many'> {
  return {
    one: async (conn, i) => {
      const { sql, params } = creationStatement(i.c, i.auth);
      return (await conn.query(sql, params)).rows[0];
    },
    many: async (conn, items) => {
      const { sql, params } = creationBatchStatement(items, scopes);
      return (await conn.query(sql, params)).rows;
    },
  };
}

/** Field names as the API spells them, compared before/after to say what an update changed. */
const comparable = (c: Contact): Record<string, unknown> => ({
  first_name: c.first_name,
  last_name: c.last_name,
  emails: c.emails.map((r) => [r.value, r.label, r.is_primary]),
  phones: c.phones.map((r) => [r.value, r.label, r.is_primary]),
  address: c.address, city: c.city, state: c.state, zip_code: c.zip_code, company: c.company, job_title: c.job_title, notes: c.notes,
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
function updateWrite(ws: string, id: string, version: string, after: Contact, extra: {
  search: string; token: string | null | undefined; emails?: ContactRow[]; phones?: ContactRow[];
  activities: { id: string; type: string; title: string; metadata: unknown }[]; changed: string[]; event: boolean; now: Date;
  /** The primary email changed: the contact's transactions show it (contact_email), so they move too. */
  touchTransactions: boolean;
}): { sql: string; params: unknown[] } {
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
  const exists = (table: string, v: string | null) => (v === null ? 'true' : `EXISTS (SELECT 1 FROM ${table} WHERE workspace_id = ${wsP} AND id = ${q.p(v)})`);
  const rowsUpsert = (table: string, rows: ContactRow[] | undefined) =>
    rows === undefined ? '' : `, del_${table} AS (
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
export async function updateContact(db: Queryable, ws: string, id: string, input: ContactInput, now: Date, auth?: StatementAuth): Promise<Contact> {
  // Every PATCH field is nullable (the spec): a name cannot be cleared, so null leaves it as it is.
  if (input.first_name === '') throw invalidField('first_name', NOT_BLANK_WORDS);
  if (input.last_name === '') throw invalidField('last_name', NOT_BLANK_WORDS);
  const stageIn = input.stage_id === undefined ? undefined : emptyToNull(input.stage_id) ?? null;
  const sourceIn = input.lead_source_id === undefined ? undefined : emptyToNull(input.lead_source_id) ?? null;
  const ownerIn = input.owner_id === undefined ? undefined : emptyToNull(input.owner_id) ?? null;
  const cfIn = input.custom_fields === undefined ? null : JSON.stringify(input.custom_fields ?? {});
  // The request's authentication, while no statement has carried it yet (the route defers it here).
  let pending = auth;
  for (let attempt = 0; attempt < 100; attempt++) {
    const params = [ws, id, stageIn ?? null, sourceIn ?? null, ownerIn ?? null, cfIn];
    // The first read carries the authentication when the route defers it: a refused request is
    // answered from its row (and the contact is not even read), before anything is written.
    const read = pending ? withAuthentication(UPDATE_READ, params, pending) : { sql: UPDATE_READ, params };
    const { rows } = await db.query(read.sql, read.params);
    pending?.admit(rows[0]);
    pending = undefined;
    if (!rows.length || rows[0].id === null) throw notFound('contact', 'contact_id');
    const r = rows[0];
    const before = toContact(r);
    if (stageIn && r.new_stage_name === null) throw badRequest(`No such contact stage: ${stageIn}`, 'stage_id');
    if (sourceIn && r.new_lead_source_name === null) throw badRequest(`No such lead source: ${sourceIn}`, 'lead_source_id');
    if (ownerIn && r.new_owner_name === null) throw badRequest(`No such member: ${ownerIn}`, 'owner_id');
    const ref = (given: string | null | undefined, name: string, old: Contact['stage']) =>
      given === undefined ? old : given === null ? null : { id: given, name };
    const emails = rowsFromInput(input.emails, input.email, 'Other', before.emails);
    const phones = rowsFromInput(input.phones, input.phone, 'Mobile', before.phones);
    const after: Contact = { ...before };
    for (const f of ['first_name', 'last_name'] as const) if (input[f] != null) after[f] = input[f] as string;
    for (const f of plainFields) if (input[f] !== undefined) after[f] = input[f] ?? null;
    after.stage = ref(stageIn, r.new_stage_name, before.stage);
    after.lead_source = ref(sourceIn, r.new_lead_source_name, before.lead_source);
    after.owner = ref(ownerIn, r.new_owner_name, before.owner);
    if (cfIn !== null) after.custom_fields = r.new_custom_fields as Record<string, unknown>;
    if (emails) Object.assign(after, { emails, email: emails.find((x) => x.is_primary)?.value ?? null });
    if (phones) Object.assign(after, { phones, phone: phones.find((x) => x.is_primary)?.value ?? null });
    const a = comparable(before);
    const b = comparable(after);
    const changed = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    if (!changed.length) {
      if (input.affiliate_attribution_token !== undefined) {
        await db.query('UPDATE contacts SET affiliate_attribution_token = $3 WHERE workspace_id = $1 AND id = $2', [ws, id, input.affiliate_attribution_token]);
      }
      return before;
    }
    after.updated_at = now.toISOString();
    const activities: { id: string; type: string; title: string; metadata: unknown }[] = [
      { id: newId('act'), type: 'contact_updated', title: 'Contact updated', metadata: { changed_fields: changed } },
    ];
    if (changed.includes('stage_id')) {
      activities.push({ id: newId('act'), type: 'stage_changed', title: after.stage ? `Stage changed to ${after.stage.name}` : 'Stage cleared', metadata: { from: before.stage, to: after.stage } });
    }
    if (changed.includes('owner_id')) {
      activities.push({ id: newId('act'), type: 'owner_changed', title: after.owner ? `Assigned to ${after.owner.name}` : 'Unassigned', metadata: { from: before.owner, to: after.owner } });
    }
    // The spec fires contact.updated on a stage change; the changed fields travel with the event.
    const write = updateWrite(ws, id, r.version, after, {
      search: searchText(after), token: input.affiliate_attribution_token, emails, phones, activities, changed, event: changed.includes('stage_id'), now,
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
export async function deleteContact(db: Queryable, ws: string, id: string, now: Date, auth?: StatementAuth): Promise<{ id: string; deleted: boolean }> {
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
  const { rows } = await db.query(sql, q.values);
  auth?.admit(rows[0]);
  if (rows[0].deleted === 0) throw notFound('contact', 'contact_id');
  return { id, deleted: true };
}

/**
 * Adds or removes a contact's tag in one statement (the contact locked as before, the tag looked up
 * in the workspace, the link inserted or deleted, updated_at moved only when it changed), then
 * reads the contact back: two round trips and no transaction held across them.
 */
export async function setContactTag(db: Queryable, ws: string, contactId: string, tagId: string, present: boolean, now: Date): Promise<Contact> {
  const change = present
    ? `INSERT INTO contact_tags (contact_id, tag_id, workspace_id, created_at) SELECT c.id, t.id, c.workspace_id, $4::timestamptz FROM c, t
        ON CONFLICT DO NOTHING RETURNING contact_id`
    : 'DELETE FROM contact_tags WHERE contact_id IN (SELECT id FROM c) AND tag_id = $3 RETURNING contact_id';
  const { rows } = await db.query(
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
  await db.query('INSERT INTO opt_outs (workspace_id, channel, value, created_at) VALUES ($1,$2,lower($3),$4::timestamptz) ON CONFLICT DO NOTHING', [
    ws, channel, value, now.toISOString(),
  ]);
}

export async function isOptedOut(db: Queryable, ws: string, channel: 'email' | 'sms', value: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM opt_outs WHERE workspace_id = $1 AND channel = $2 AND value = lower($3)', [ws, channel, value]);
  return rows.length > 0;
}
