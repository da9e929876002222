// A workspace's contact list: the one statement of a page (its count, search and keyset), the
// pages and counts a process holds, and the batching of first pages. docs/store.md says why each
// piece is as it is ("A page that did not change", "A search's plan", "Batching lists").
import { setBounded } from '../../shared/bounded.js';
import { BATCH, batcherOf, StatementBatcher } from '../../db/batch.js';
import type { Db, Queryable } from '../../db/db.js';
import { contactPageCache, contactTextCache, type ContactTextCache } from './cache.js';
import { lookupGen, plainFields } from './store.js';
import { encodeCursor, keysetCondition, likeEscape, limitClause, Params, timeConditions, type TimeFilters } from '../../db/sql.js';
import { BATCH_PER_REQUEST, withAuthentication, withAuthenticationBatch, type StatementAuth } from '../workspaces/store.js';
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
    form === 'walk'
      ? `strpos(c.search_text, ${q.p(t)}) > 0`
      : form === 'matches'
        ? `c.search_text LIKE (SELECT ${q.p(`%${likeEscape(t)}%`)}::text)`
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
export function searchPlan(
  count: { total: string; size?: string } | undefined,
  rows: number,
  size?: number,
): 'matches' | 'walk' | undefined {
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
  ws: string | { sql: string },
  f: ContactFilters,
  cache?: Map<string, CachedCount>,
  page: 'text' | 'ordered text' | 'versions' = 'text',
  known?: ((pageKey: string) => string | null) | { sql: string },
  size?: number,
): { sql: string; params: unknown[]; cacheKey: string | null; filtered: boolean; planned: boolean; pageKey: string | null } {
  const q = new Params();
  // The workspace: a parameter ($1), or the SQL expression by which a statement over several
  // workspaces (a LATERAL join per workspace) names the one this page is of.
  const wsRef = typeof ws === 'string' ? q.p(ws) : ws.sql;
  const where = [`c.workspace_id = ${wsRef}`];
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
    countSql = `SELECT COALESCE(sum(n), 0)::bigint AS total, COALESCE(sum(writes), 0)::text AS gen, NULL::text AS size FROM contact_counts WHERE workspace_id = ${wsRef}`;
  } else if (cacheKey) {
    countSql = `SELECT CASE WHEN g.gen = ${q.p(hit?.gen ?? '-1')}::bigint THEN ${q.p(hit?.total ?? '0')}::bigint
        ELSE (SELECT count(*) FROM contacts c WHERE ${where.join(' AND ')}) END AS total, g.gen::text AS gen, g.size::text AS size
      FROM (SELECT COALESCE(sum(writes), 0)::bigint AS gen, COALESCE(sum(n), 0)::bigint AS size FROM contact_counts WHERE workspace_id = ${wsRef}) g`;
  } else {
    countSql = `SELECT count(*) AS total, NULL::text AS gen, NULL::text AS size FROM contacts c WHERE ${where.join(' AND ')}`;
  }
  // Unfiltered, one generic plan fits every workspace; filtered by values, planned for them
  // (limitClause); a search whose plan is chosen keeps that plan, so its limit is in the text too.
  const limit = filtered && !plan ? `LIMIT ${q.p(f.limit + 1)}` : limitClause(f.limit + 1);
  // A page is the same while the workspace's write generation is: every write to its contacts,
  // whoever makes it, moves the generation in its transaction (migration 4), so a statement that
  // reads the generation it was held at reads the same ids, row versions and total.
  const pageKey = !filtered
    ? pageKeyOf(typeof ws === 'string' ? ws : '', f.limit, f.cursor)
    : cacheKey
      ? `${cacheKey} ${f.limit} ${f.cursor ?? ''}`
      : null;
  const heldAt = page === 'versions' && pageKey && known ? ('sql' in known ? known.sql : `${q.p(known(pageKey))}::text`) : undefined;
  const k = keysetCondition(q, f.cursor, 'c', 'contacts');
  if (k) pageWhere.push(k);
  // The page's rows are chosen first (an index scan that stops at limit + 1), then written out:
  // joined the other way round, PostgreSQL would build the text of every match before the limit.
  // A search by its matches reads them all, then orders them: in a subquery (OFFSET 0, never
  // pulled up), it leaves the plan no walk along the (workspace_id, created_at, id) index.
  const rows = `SELECT c.*, c.xmin::text AS version FROM contacts c WHERE ${pageWhere.join(' AND ')}`;
  const chosen = `${plan === 'matches' ? `SELECT * FROM (${rows} OFFSET 0) c` : rows} ORDER BY c.created_at DESC, c.id DESC ${limit}`;
  const pageSql =
    page !== 'versions' ? contactTextSelect(chosen) : `SELECT c.id, c.version, c.created_at, ${CURSOR_AT} AS cursor_at FROM (${chosen}) c`;
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
  const sql =
    page !== 'versions'
      ? `SELECT n.total::text AS total, n.gen, n.size, ${lookupGen(wsRef)} AS lookups, p.id, p.version, p.cursor_at, p.head, p.custom_fields, p.tail${
          page === 'ordered text' ? ', row_number() OVER (ORDER BY p.created_at DESC, p.id DESC) AS ord' : ''
        }
    FROM (${countSql} OFFSET 0) n LEFT JOIN LATERAL (${pageSql}) p ON true ORDER BY p.created_at DESC, p.id DESC`
      : `SELECT n.total::text AS total, n.gen, n.size, ${lookupGen(wsRef)} AS lookups, ${heldAt ? `CASE WHEN n.gen IS DISTINCT FROM ${heldAt} THEN (${versions}) END` : `(${versions})`} AS page
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

/** What every row of a list's statement carries: its counts (once per row) and the generations read. */
interface CountColumns {
  total: string;
  gen: string | null;
  size: string | null;
  lookups: string;
}
/** One contact of a page: its id, row version and cursor time. */
interface PageEntry {
  id: string;
  version: string;
  cursor_at: string;
}
/** A contact's JSON text in parts (contactTextSelect): custom_fields is the jsonb's text. */
type TextColumns = PageEntry & { head: string; custom_fields: string; tail: string };
/** A row of a statement that writes its page ('text', 'ordered text'); no contact is one row of the counts. */
type TextPageRow = CountColumns & TextColumns;
/** The row of the 'versions' statement: the counts and the page as one text of "id version cursor_at" triples. */
type VersionsRow = CountColumns & { page: string | null };

function rememberSize(sizes: Map<string, number>, ws: string, row: CountColumns, filtered: boolean): void {
  const size = filtered ? row.size : row.total;
  if (size !== null && size !== undefined) setBounded(sizes, ws, Number(size), COUNT_CACHE_SIZE);
}

function rememberCount(cache: Map<string, CachedCount>, key: string, row: CountColumns): void {
  // A filtered count's statement reads both generations (its CASE): never null there.
  if (cache.get(key)?.gen !== row.gen) setBounded(cache, key, { gen: row.gen!, total: row.total, size: row.size! }, COUNT_CACHE_SIZE);
}

/** custom_fields as the response serialiser writes it: JSON.stringify of the parsed jsonb. */
const customFieldsText = (t: string) => (t === '{}' ? t : JSON.stringify(JSON.parse(t)));
/** A contact's JSON text from a row of contactTextSelect. */
const contactText = (r: Pick<TextColumns, 'head' | 'custom_fields' | 'tail'>): string =>
  r.head + customFieldsText(r.custom_fields) + r.tail;

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
    sql = textByIdStatements[n] =
      `SELECT p.id, p.version, ${lookupGen()} AS lookups, p.head, p.custom_fields, p.tail FROM (${contactTextSelect(
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
  if (!counts) countCaches.set(db, (counts = new Map<string, CachedCount>()));
  let sizes = workspaceSizes.get(db);
  if (!sizes) workspaceSizes.set(db, (sizes = new Map<string, number>()));
  const size = sizes.get(ws);
  const texts = contactTextCache(db);
  const pages = contactPageCache(db);
  const now = Date.now();
  let served = servedPages.get(db);
  if (!served) servedPages.set(db, (served = new Map<string, true>()));
  const pageKey = pageKeyOf(ws, f.limit, f.cursor);
  // The request's authentication, while no statement has carried it yet (the route defers it here).
  let pending = auth;
  // The page as this process last wrote it, if it holds it: the statement leaves the page out
  // while the workspace's write generation is still the one it was read at.
  let held: { version: string; lookups: string } | undefined;
  const list =
    texts.capacity > 0
      ? contactListQuery(ws, f, counts, 'versions', (key) => (held = pages.held(key, now))?.version ?? null, size)
      : undefined;
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
    let row: VersionsRow | undefined;
    if (batcher) {
      // A first page of the workspace's list: sent with other workspaces' when connections are short.
      row = await batcher.run({
        auth: pending!,
        single: withAuthentication(list.sql, list.params, pending!),
        known: held?.version ?? null,
      });
    } else {
      const { sql, params } = pending ? withAuthentication(list.sql, list.params, pending) : list;
      row = (await db.query<VersionsRow>(sql, params, { prepare: !list.planned })).rows[0];
    }
    pending?.admit(row);
    pending = undefined;
    const first = row!;
    if (cacheKey) rememberCount(counts, cacheKey, first);
    rememberSize(sizes, ws, first, list.filtered);
    const lookups = first.lookups;
    // Unchanged since this process wrote it: its body as it was, unless a name its contacts show
    // may have changed (the lookup generation moved), when the page is read again below.
    const unchanged = held !== undefined && first.gen === held.version;
    const body = unchanged ? pages.get(list.pageKey!, held!.version, lookups, now) : undefined;
    if (body !== undefined) return body;
    const words = first.page === null ? [] : first.page.split(' ');
    const page: PageEntry[] = [];
    for (let i = 0; i < words.length; i += 3) page.push({ id: words[i], version: words[i + 1], cursor_at: words[i + 2] });
    const shown = page.slice(0, f.limit);
    const out = new Array<string>(shown.length);
    const missing: string[] = [];
    for (let i = 0; i < shown.length; i++) {
      const t = texts.get(shown[i].id, shown[i].version, lookups, now);
      if (t === undefined) missing.push(shown[i].id);
      else out[i] = t;
    }
    let complete = true;
    if (missing.length) {
      const written = await db.query<TextColumns & { lookups: string }>(contactsTextById(missing.length), [ws, ...missing]);
      const byId = new Map<string, { version: string; lookups: string; text: string }>();
      for (const r of written.rows) {
        const w = { version: r.version, lookups: r.lookups, text: contactText(r) };
        texts.written(r.id, w.version, w.lookups, w.text, now);
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
  const { rows } = await db.query<TextPageRow>(sql, params, { prepare: !whole.planned });
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
function writtenPage(rows: TextPageRow[], limit: number, texts: ContactTextCache, now: number): string {
  const page = rows[0].id === null ? [] : rows;
  const out = page.slice(0, limit).map((r) => {
    const text = contactText(r);
    if (texts.capacity > 0) texts.written(r.id, r.version, r.lookups, text, now);
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
 * rather than each writing its contacts' texts at once (docs/store.md, "A restart under load").
 * Stops at `deadline` (a Date.now() time) or once the cache is three-quarters full. Sends
 * `connections` statements at a time (by default as many as the store's pool has connections; 1
 * without a pool), up to fifty workspaces each and spread so that each of them gets one: every
 * pooled connection then has opened its backend and served a page's statement before the first
 * request, rather than under the first requests' load. Returns the workspaces read.
 */
export async function warmContactPages(
  db: Queryable,
  workspaces: readonly string[],
  o: { deadline: number; limit?: number; connections?: number },
): Promise<number> {
  const texts = contactTextCache(db);
  if (texts.capacity === 0) return 0;
  const pages = contactPageCache(db);
  const limit = o.limit ?? 20;
  let served = servedPages.get(db);
  if (!served) servedPages.set(db, (served = new Map<string, true>()));
  const sql = `SELECT w.ws, p.* FROM unnest($1::text[]) WITH ORDINALITY AS w(ws, o),
    LATERAL (${contactListQuery({ sql: 'w.ws' }, { limit }, undefined, 'ordered text').sql}) p
    ORDER BY w.o, p.ord`;
  let next = 0;
  let read = 0;
  const connections = Math.max(1, o.connections ?? (db as Partial<Db>).pool?.size ?? 1);
  const size = Math.max(1, Math.min(WARM_BATCH, Math.ceil(workspaces.length / connections)));
  const full = () => Date.now() >= o.deadline || texts.used >= texts.capacity * 0.75;
  const worker = async () => {
    while (next < workspaces.length && !full()) {
      const chunk = workspaces.slice(next, (next += size));
      const { rows } = await db.query<TextPageRow & { ws: string }>(sql, [chunk]);
      const now = Date.now();
      for (let i = 0; i < rows.length;) {
        // Each workspace's rows, as its own list's statement would have returned them.
        let end = i + 1;
        while (end < rows.length && rows[end].ws === rows[i].ws) end++;
        const own = rows.slice(i, end);
        const key = pageKeyOf(own[0].ws, limit);
        markServed(served, key);
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

/**
 * The batcher of first pages (limit `limit`, the route's `scopes`) for a store with a pool, or
 * undefined (PGlite, a transaction, batching turned off). Each page is the unfiltered versions
 * statement of contactListQuery; the batch authenticates each request as its own statement would.
 */
function listBatcher(
  db: Queryable,
  limit: number,
  scopes: readonly string[],
): StatementBatcher<ListItem, VersionsRow | undefined> | undefined {
  return batcherOf(db, `list ${limit} ${scopes.join(' ')}`, (store) => {
    // The page's statement for each request's workspace (`k.id` in the batch; unfiltered, no
    // cursor), conditional on that request's own generation held (a per-request parameter).
    const page = contactListQuery({ sql: 'k.id' }, { limit }, undefined, 'versions', {
      sql: `($${BATCH_PER_REQUEST}::text[])[t.ord]`,
    }).sql;
    return new StatementBatcher<ListItem, VersionsRow | undefined>(store, {
      ...BATCH,
      key: (i) => i.auth.workspaceId,
      one: async (c, i) => (await c.query<VersionsRow>(i.single.sql, i.single.params)).rows[0],
      many: async (c, items) => {
        const { sql, params } = withAuthenticationBatch(
          page,
          items.map((i) => i.auth),
          scopes,
          [items.map((i) => i.known)],
        );
        return (await c.query<VersionsRow>(sql, params)).rows;
      },
    });
  });
}

/** The list's body around its contacts' texts: has_more and the cursor from the limit + 1 rows read. */
function pageJson(texts: string[], rows: readonly Pick<PageEntry, 'id' | 'cursor_at'>[], limit: number, total: string): string {
  const has_more = rows.length > limit;
  const last = has_more ? rows[limit - 1] : undefined;
  const next = last ? JSON.stringify(encodeCursor(last.cursor_at, last.id, 'contacts')) : 'null';
  return `{"data":[${texts.join(',')}],"has_more":${has_more},"next_cursor":${next},"total_count":${total}}`;
}
