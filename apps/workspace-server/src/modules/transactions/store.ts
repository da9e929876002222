import type { Db, Queryable } from '../../db/db.js';
import { iso } from '../../db/db.js';
import { badRequest, forbidden, invalidField, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { hasScope } from '../../shared/scopes.js';
import { recordEvent } from '../events/store.js';
import { addDays, fmt, grossCommission, netCommission, parseDateOnly, parseMoney, parseRate } from '../../shared/money.js';
import { likeEscape, Params } from '../../db/sql.js';

export const transactionDateFields = [
  'contract_date',
  'earnest_money_due_date',
  'inspection_date',
  'appraisal_date',
  'financing_date',
  'walkthrough_date',
  'projected_close_date',
  'actual_close_date',
  'possession_date',
] as const;
export const moneyFields = ['sale_price', 'referral_fee', 'transaction_fees'] as const;
export const rateFields = ['commission_rate', 'brokerage_split_rate', 'team_split_rate'] as const;
export const statuses = ['active', 'pending', 'closed', 'fell_through'] as const;
export const sides = ['buyer', 'seller', 'both'] as const;

export type Transaction = Record<string, string | number | boolean>;

/** A row of transactions (SELECT *): a date is text, '' when unset; money and rates are text. */
type TransactionRecord = {
  id: string;
  name: string;
  side: string;
  status: string;
  stage_id: string;
  fell_through_reason: string;
  deal_id: string | null;
  contact_id: string | null;
  listing_key: string;
  listing_label: string;
  listing_photo_path: string;
  sale_price: string;
  commission_rate: string;
  gross_commission: string;
  gci_override: boolean;
  referral_fee: string;
  brokerage_split_rate: string;
  team_split_rate: string;
  transaction_fees: string;
  net_commission: string;
  notes: string;
  document_count: number | string;
  created_at: Date | string;
  updated_at: Date | string;
} & Record<(typeof transactionDateFields)[number], string>;

/**
 * The columns of a transaction an update writes, in the table's order, which is also the order an
 * update event's changed_fields lists them in. The schema's fields are these, with the id and what
 * the transaction shows of its deal, contact and stage (schemas.ts).
 */
export const updatableColumns = [
  'name',
  'side',
  'status',
  'stage_id',
  'fell_through_reason',
  'deal_id',
  'contact_id',
  'listing_key',
  'listing_label',
  'listing_photo_path',
  'sale_price',
  'commission_rate',
  'gross_commission',
  'gci_override',
  'referral_fee',
  'brokerage_split_rate',
  'team_split_rate',
  'transaction_fees',
  'net_commission',
  ...transactionDateFields,
  'notes',
] as const satisfies readonly (keyof TransactionRecord)[];

/** A row of TXN_SELECT: the transaction, with what it shows of its deal, contact and closing stage. */
type TransactionRow = TransactionRecord & {
  deal_name: string | null;
  deal_status: string | null;
  contact_first_name: string | null;
  contact_last_name: string | null;
  contact_email: string | null;
  stage_name: string;
};

/** A row of checklist_templates: its items are the tasks a new transaction gets. */
interface ChecklistTemplateRow {
  id: string;
  name: string;
  items: { title: string; milestone?: string; offset_days?: number }[];
}

/** A row of closing_stages. */
interface ClosingStageRow {
  id: string;
  name: string;
  status: string;
  position: number;
}

const TXN_SELECT = `SELECT t.*, d.name AS deal_name, d.status AS deal_status, c.first_name AS contact_first_name,
    c.last_name AS contact_last_name, cs.name AS stage_name,
    (SELECT value FROM contact_emails e WHERE e.contact_id = t.contact_id AND e.is_primary LIMIT 1) AS contact_email
  FROM transactions t
  JOIN closing_stages cs ON cs.id = t.stage_id
  LEFT JOIN deals d ON d.id = t.deal_id
  LEFT JOIN contacts c ON c.id = t.contact_id`;

/** Every field is always present; links and dates are empty strings when unset. */
function toTransaction(r: TransactionRow): Transaction {
  const t: Transaction = {
    id: r.id,
    name: r.name,
    side: r.side,
    status: r.status,
    fell_through_reason: r.fell_through_reason,
    deal_id: r.deal_id ?? '',
    deal_name: r.deal_name ?? '',
    deal_status: r.deal_status ?? '',
    contact_id: r.contact_id ?? '',
    contact_first_name: r.contact_first_name ?? '',
    contact_last_name: r.contact_last_name ?? '',
    contact_email: r.contact_email ?? '',
    listing_key: r.listing_key,
    listing_label: r.listing_label,
    listing_photo_path: r.listing_photo_path,
    sale_price: r.sale_price,
    commission_rate: r.commission_rate,
    gross_commission: r.gross_commission,
    gci_override: r.gci_override,
    referral_fee: r.referral_fee,
    brokerage_split_rate: r.brokerage_split_rate,
    team_split_rate: r.team_split_rate,
    transaction_fees: r.transaction_fees,
    net_commission: r.net_commission,
  };
  for (const f of transactionDateFields) t[f] = r[f];
  t.notes = r.notes;
  t.document_count = Number(r.document_count);
  t.created_at = iso(r.created_at);
  t.updated_at = iso(r.updated_at);
  t.stage_id = r.stage_id;
  t.stage_name = r.stage_name;
  return t;
}

export async function getTransaction(db: Queryable, ws: string, id: string): Promise<Transaction> {
  const { rows } = await db.query<TransactionRow>(`${TXN_SELECT} WHERE t.workspace_id = $1 AND t.id = $2`, [ws, id]);
  if (!rows.length) throw notFound('transaction', 'id');
  return toTransaction(rows[0]);
}

export interface TransactionFilters {
  status?: string;
  side?: string;
  search?: string;
  contact_id?: string;
  deal_id?: string;
  stage_id?: string;
  closing_from?: string;
  closing_to?: string;
  limit: number;
  offset: number;
}

export async function listTransactions(db: Db, ws: string, f: TransactionFilters) {
  if (f.closing_from) parseDateOnly(f.closing_from, 'closing_from');
  if (f.closing_to) parseDateOnly(f.closing_to, 'closing_to');
  const q = new Params();
  const where = [`t.workspace_id = ${q.p(ws)}`];
  if (f.status) where.push(`t.status = ${q.p(f.status)}`);
  if (f.side) where.push(`t.side = ${q.p(f.side)}`);
  if (f.contact_id) where.push(`t.contact_id = ${q.p(f.contact_id)}`);
  if (f.deal_id) where.push(`t.deal_id = ${q.p(f.deal_id)}`);
  if (f.stage_id) where.push(`t.stage_id = ${q.p(f.stage_id)}`);
  if (f.search) {
    const s = q.p(`%${likeEscape(f.search.toLowerCase())}%`);
    where.push(
      `(t.search_text LIKE ${s} OR EXISTS (SELECT 1 FROM contacts sc WHERE sc.id = t.contact_id AND lower(sc.first_name || ' ' || sc.last_name) LIKE ${s}))`,
    );
  }
  const closing = `COALESCE(NULLIF(t.actual_close_date, ''), NULLIF(t.projected_close_date, ''))`;
  if (f.closing_from) where.push(`${closing} >= ${q.p(f.closing_from)}`);
  if (f.closing_to) where.push(`${closing} <= ${q.p(f.closing_to)}`);
  const countParams = [...q.values];
  const [page, counts] = await Promise.all([
    db.query<TransactionRow>(
      `${TXN_SELECT} WHERE ${where.join(' AND ')} ORDER BY t.created_at DESC, t.id DESC LIMIT ${q.p(f.limit)} OFFSET ${q.p(f.offset)}`,
      q.values,
    ),
    db.query<Record<string, string>>(
      `SELECT ${statuses.map((s) => `count(*) FILTER (WHERE t.status = '${s}')::text AS ${s}`).join(', ')} FROM transactions t WHERE ${where.join(' AND ')}`,
      countParams,
    ),
  ]);
  const c = counts.rows[0];
  return {
    data: page.rows.map(toTransaction),
    counts: { active: c.active, pending: c.pending, closed: c.closed, fell_through: c.fell_through },
  };
}

export interface TransactionCreate {
  name?: string | null;
  side?: string | null;
  status?: string | null;
  deal_id?: string | null;
  contact_id?: string | null;
  listing_key?: string | null;
  sale_price?: string | null;
  commission_rate?: string | null;
  projected_close_date?: string | null;
  notes?: string | null;
  stage_id?: string | null;
  checklist_template_id?: string | null;
  idempotency_key?: string | null;
}

async function findStage(tx: Queryable, ws: string, stageId: string | null | undefined, status: string | null | undefined, param: string) {
  if (stageId) {
    const { rows } = await tx.query<ClosingStageRow>('SELECT * FROM closing_stages WHERE workspace_id = $1 AND id = $2', [ws, stageId]);
    if (!rows.length) throw badRequest(`No such closing stage: ${stageId}`, param);
    return rows[0];
  }
  const { rows } = await tx.query<ClosingStageRow>(
    'SELECT * FROM closing_stages WHERE workspace_id = $1 AND status = $2 ORDER BY position, id LIMIT 1',
    [ws, status ?? 'active'],
  );
  if (!rows.length) throw badRequest(`The workspace has no closing stage for status ${status}`, 'status');
  return rows[0];
}

async function findListing(tx: Queryable, ws: string, key: string) {
  const { rows } = await tx.query<{ label: string; photo_path: string }>(
    'SELECT * FROM listings WHERE workspace_id = $1 AND listing_key = $2',
    [ws, key],
  );
  // An unknown MLS key is still recorded; its label falls back to the key itself.
  return rows[0] ? { label: rows[0].label, photo: rows[0].photo_path } : { label: key, photo: '' };
}

async function findDeal(tx: Queryable, ws: string, id: string) {
  const { rows } = await tx.query<{ id: string; name: string; contact_id: string | null; status: string; pipeline_id: string }>(
    'SELECT * FROM deals WHERE workspace_id = $1 AND id = $2',
    [ws, id],
  );
  if (!rows.length) throw badRequest(`No such deal: ${id}`, 'deal_id');
  return rows[0];
}

async function findContact(tx: Queryable, ws: string, id: string) {
  const { rows } = await tx.query<{ id: string; first_name: string; last_name: string }>(
    'SELECT * FROM contacts WHERE workspace_id = $1 AND id = $2',
    [ws, id],
  );
  if (!rows.length) throw badRequest(`No such contact: ${id}`, 'contact_id');
  return rows[0];
}

const today = (now: Date) => now.toISOString().slice(0, 10);

async function addTxnActivity(tx: Queryable, ws: string, txnId: string, title: string, description: string | null, now: Date) {
  await tx.query(
    'INSERT INTO transaction_activities (id, workspace_id, transaction_id, title, description, created_at) VALUES ($1,$2,$3,$4,$5,$6::timestamptz)',
    [newId('tac'), ws, txnId, title, description, now.toISOString()],
  );
}

async function byIdempotencyKey(tx: Queryable, ws: string, key: string): Promise<Transaction | null> {
  const { rows } = await tx.query<TransactionRow>(`${TXN_SELECT} WHERE t.workspace_id = $1 AND t.idempotency_key = $2`, [ws, key]);
  return rows[0] ? toTransaction(rows[0]) : null;
}

export async function createTransaction(db: Db, ws: string, input: TransactionCreate, now: Date): Promise<Transaction> {
  const sale = input.sale_price ? parseMoney(input.sale_price, 'sale_price') : parseMoney('0', 'sale_price');
  const rate = input.commission_rate ? parseRate(input.commission_rate, 'commission_rate') : parseRate('0', 'commission_rate');
  const projected = input.projected_close_date ? parseDateOnly(input.projected_close_date, 'projected_close_date') : '';
  // An empty key is no key (the API's "empty string when unset"), as the catalog's createOnce reads
  // it: stored, "" made every later creation with "" answer with the first transaction.
  const key = input.idempotency_key || null;
  return db.transaction(async (tx) => {
    if (key) {
      const existing = await byIdempotencyKey(tx, ws, key);
      if (existing) return existing;
    }
    const deal = input.deal_id ? await findDeal(tx, ws, input.deal_id) : null;
    const contactId = input.contact_id || deal?.contact_id || null;
    const contact = contactId ? await findContact(tx, ws, contactId) : null;
    const listing = input.listing_key ? await findListing(tx, ws, input.listing_key) : null;
    const stage = await findStage(tx, ws, input.stage_id, input.status, 'stage_id');
    const template = input.checklist_template_id ? await checklistTemplate(tx, ws, input.checklist_template_id) : null;
    const name =
      input.name || listing?.label || deal?.name || (contact ? `${contact.first_name} ${contact.last_name}` : '') || 'New transaction';
    const m = {
      sale_price: fmt(sale),
      commission_rate: fmt(rate),
      gross_commission: grossCommission(sale.toString(), rate.toString()),
      referral_fee: '0.00',
      brokerage_split_rate: '0.00',
      team_split_rate: '0.00',
      transaction_fees: '0.00',
    };
    const net = netCommission(m);
    const id = newId('txn');
    const at = now.toISOString();
    const ins = await tx.query(
      `INSERT INTO transactions (id, workspace_id, name, side, status, stage_id, deal_id, contact_id, listing_key, listing_label, listing_photo_path,
         sale_price, commission_rate, gross_commission, referral_fee, brokerage_split_rate, team_split_rate, transaction_fees, net_commission,
         projected_close_date, actual_close_date, notes, idempotency_key, search_text, created_at, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21,$22,$23,$24,$25::timestamptz,$25::timestamptz)
       ON CONFLICT (workspace_id, idempotency_key) DO NOTHING RETURNING id`,
      [
        id,
        ws,
        name,
        input.side ?? 'buyer',
        stage.status,
        stage.id,
        deal?.id ?? null,
        contact?.id ?? null,
        input.listing_key ?? '',
        listing?.label ?? '',
        listing?.photo ?? '',
        m.sale_price,
        m.commission_rate,
        m.gross_commission,
        m.referral_fee,
        m.brokerage_split_rate,
        m.team_split_rate,
        m.transaction_fees,
        net,
        projected,
        stage.status === 'closed' ? today(now) : '',
        input.notes ?? '',
        key,
        `${name} ${listing?.label ?? ''}`.toLowerCase(),
        at,
      ],
    );
    if (!ins.rows.length) {
      // A concurrent request with the same idempotency key committed first: answer with its transaction.
      return (await byIdempotencyKey(tx, ws, key!))!;
    }
    if (template) await addChecklistTasks(tx, ws, id, template, projected);
    if (contact) {
      await tx.query(
        'INSERT INTO transaction_parties (id, workspace_id, transaction_id, contact_id, name, role) VALUES ($1,$2,$3,$4,$5,$6)',
        [newId('pty'), ws, id, contact.id, `${contact.first_name} ${contact.last_name}`, input.side === 'seller' ? 'Seller' : 'Buyer'],
      );
    }
    await addTxnActivity(tx, ws, id, 'Transaction opened', `Started in ${stage.name}`, now);
    const txn = await getTransaction(tx, ws, id);
    await recordEvent(tx, ws, 'transaction.created', txn, now);
    return txn;
  });
}

async function checklistTemplate(tx: Queryable, ws: string, id: string): Promise<ChecklistTemplateRow> {
  const { rows } = await tx.query<ChecklistTemplateRow>('SELECT * FROM checklist_templates WHERE workspace_id = $1 AND id = $2', [ws, id]);
  if (!rows.length) throw badRequest(`No such checklist template: ${id}`, 'checklist_template_id');
  return rows[0];
}

/** A checklist template's items as the new transaction's tasks, in order; a task tied to the projected close is due from it. */
async function addChecklistTasks(tx: Queryable, ws: string, id: string, template: ChecklistTemplateRow, projected: string): Promise<void> {
  for (const [i, it] of template.items.entries()) {
    const due = it.milestone === 'projected_close_date' && projected ? addDays(projected, it.offset_days ?? 0) : '';
    await tx.query(
      'INSERT INTO transaction_tasks (id, workspace_id, transaction_id, title, due_date, milestone, offset_days, position) VALUES ($1,$2,$3,$4,$5,$6,$7,$8)',
      [newId('task'), ws, id, it.title, due, it.milestone ?? '', it.offset_days ?? 0, i],
    );
  }
}

export type TransactionPatch = Partial<Record<string, string | null>>;

export async function updateTransaction(
  db: Db,
  ws: string,
  id: string,
  input: TransactionPatch,
  scopes: readonly string[],
  now: Date,
): Promise<Transaction> {
  return db.transaction(async (tx) => {
    if (input.status !== undefined || input.stage_id !== undefined) await lockDealsFirst(tx, ws, id, input);
    const cur = await tx.query<TransactionRecord>('SELECT * FROM transactions WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [ws, id]);
    if (!cur.rows.length) throw notFound('transaction', 'id');
    const old = cur.rows[0];
    const patch = readPatch(input);
    const next = await patchedFields(tx, ws, old, patch);
    const stage = await movedStage(tx, ws, old, next, patch, now);
    if (next.status === 'fell_through' && old.status !== 'fell_through' && next.deal_id) {
      await applyDisposition(tx, ws, next.deal_id, input, scopes, now);
    }
    if (patch.has('name')) next.name = await nameOf(tx, ws, next, patch.str('name'));
    const changed = await writeChanges(tx, id, old, next, now);
    await moveMilestoneTasks(tx, id, old, next);
    if (stage && stage.id !== old.stage_id) await addTxnActivity(tx, ws, id, `Moved to ${stage.name}`, `Status ${next.status}`, now);
    const txn = await getTransaction(tx, ws, id);
    if (changed.length) await recordEvent(tx, ws, 'transaction.updated', txn, now, changed);
    return txn;
  });
}

/** A PATCH's fields: whether it gives one, and its value ('' for null). */
const readPatch = (input: TransactionPatch) => ({
  has: (k: string) => input[k] !== undefined,
  str: (k: string) => input[k] ?? '',
});
type Patch = ReturnType<typeof readPatch>;

/**
 * A fall-through may change the linked deal (applyDisposition), and a changed deal moves the
 * transactions that show it, locking them (migration 13's trigger): so a PATCH that may move the
 * status locks the deal before this transaction, in the trigger's order, and two transactions of
 * one won deal falling through at once wait for each other instead of deadlocking.
 */
async function lockDealsFirst(tx: Queryable, ws: string, id: string, input: TransactionPatch): Promise<void> {
  await tx.query(
    `SELECT 1 FROM deals WHERE workspace_id = $1 AND id IN (SELECT deal_id FROM transactions WHERE workspace_id = $1 AND id = $2 UNION ALL SELECT $3::text) ORDER BY id FOR NO KEY UPDATE`,
    [ws, id, input.deal_id || null],
  );
}

/** The record with the PATCH's own fields applied: text, money, rates, dates, links and the commission worked out again. */
async function patchedFields(tx: Queryable, ws: string, old: TransactionRecord, { has, str }: Patch): Promise<TransactionRecord> {
  const next: TransactionRecord = { ...old };
  if (has('side')) next.side = str('side') || 'buyer';
  if (has('notes')) next.notes = str('notes');
  for (const f of moneyFields) if (has(f)) next[f] = fmt(parseMoney(str(f) || '0', f));
  for (const f of rateFields) if (has(f)) next[f] = fmt(parseRate(str(f) || '0', f));
  for (const f of transactionDateFields) if (has(f)) next[f] = parseDateOnly(str(f), f);
  if (has('deal_id')) next.deal_id = str('deal_id') ? (await findDeal(tx, ws, str('deal_id'))).id : null;
  if (has('contact_id')) next.contact_id = str('contact_id') ? (await findContact(tx, ws, str('contact_id'))).id : null;
  if (has('listing_key')) {
    const key = str('listing_key');
    const l = key ? await findListing(tx, ws, key) : { label: '', photo: '' };
    next.listing_key = key;
    next.listing_label = l.label;
    next.listing_photo_path = l.photo;
  }
  if (has('gross_commission')) {
    const g = str('gross_commission');
    next.gci_override = g !== '';
    if (g !== '') next.gross_commission = fmt(parseMoney(g, 'gross_commission'));
  }
  if (!next.gci_override) next.gross_commission = grossCommission(next.sale_price, next.commission_rate);
  next.net_commission = netCommission(next);
  return next;
}

/**
 * The stage and status: a stage decides the status; a bare status moves to the first closing stage
 * with that status. Closing dates the close, and only a fall-through keeps its reason. The stage
 * moved to, if any.
 */
async function movedStage(
  tx: Queryable,
  ws: string,
  old: TransactionRecord,
  next: TransactionRecord,
  { has, str }: Patch,
  now: Date,
): Promise<ClosingStageRow | null> {
  let stage: ClosingStageRow | null = null;
  if (has('stage_id') && str('stage_id')) stage = await findStage(tx, ws, str('stage_id'), null, 'stage_id');
  else if (has('status') && str('status') && str('status') !== old.status) stage = await findStage(tx, ws, null, str('status'), 'status');
  if (stage) {
    next.stage_id = stage.id;
    next.status = stage.status;
  }
  if (next.status === 'closed' && old.status !== 'closed' && !has('actual_close_date') && !next.actual_close_date)
    next.actual_close_date = today(now);
  if (next.status === 'fell_through') {
    if (has('fell_through_reason')) next.fell_through_reason = str('fell_through_reason');
  } else {
    next.fell_through_reason = '';
  }
  return stage;
}

/** A name given empty falls back, as at creation: the listing, the deal, the contact, then "New transaction". */
async function nameOf(tx: Queryable, ws: string, next: TransactionRecord, given: string): Promise<string> {
  const contact = next.contact_id ? await findContact(tx, ws, next.contact_id) : null;
  const deal = next.deal_id ? await findDeal(tx, ws, next.deal_id) : null;
  return given || next.listing_label || deal?.name || (contact ? `${contact.first_name} ${contact.last_name}` : '') || 'New transaction';
}

/** Writes the columns that changed (all updatable ones, with the search text and updated_at); the names of those that did. */
async function writeChanges(tx: Queryable, id: string, old: TransactionRecord, next: TransactionRecord, now: Date): Promise<string[]> {
  const cols = updatableColumns;
  const changed = cols.filter((c) => String(old[c] ?? '') !== String(next[c] ?? ''));
  const q = new Params();
  const sets = cols.map((c) => `${c} = ${q.p(next[c])}`);
  sets.push(`search_text = ${q.p(`${next.name} ${next.listing_label}`.toLowerCase())}`);
  sets.push(`updated_at = ${q.p(now.toISOString())}::timestamptz`);
  // A PATCH that changes nothing writes nothing (its updated_at stays, as contacts' and pipelines' do).
  if (changed.length) await tx.query(`UPDATE transactions SET ${sets.join(', ')} WHERE id = ${q.p(id)}`, q.values);
  return changed;
}

/** Tasks tied to a milestone follow its date. */
async function moveMilestoneTasks(tx: Queryable, id: string, old: TransactionRecord, next: TransactionRecord): Promise<void> {
  for (const f of transactionDateFields) {
    if (old[f] !== next[f]) {
      await tx.query(
        `UPDATE transaction_tasks SET due_date = CASE WHEN $3 = '' THEN '' ELSE to_char(($3::date + offset_days), 'YYYY-MM-DD') END
            WHERE transaction_id = $1 AND milestone = $2`,
        [id, f, next[f]],
      );
    }
  }
}

/** A transaction falling through with a won deal: the deal changes only as the disposition says. */
async function applyDisposition(tx: Queryable, ws: string, dealId: string, input: TransactionPatch, scopes: readonly string[], now: Date) {
  const deal = await findDeal(tx, ws, dealId);
  if (deal.status !== 'won') return;
  const disposition = input.deal_disposition;
  // The stages below are read for share, so a concurrent change of their type (touchDealsOfPipeline)
  // either waits for this move or is seen by it.
  if (!disposition)
    throw badRequest(
      'Missing required parameter: deal_disposition (the linked deal is won: reopen, lost or leave_won)',
      'deal_disposition',
    );
  if (disposition === 'leave_won') return;
  if (!hasScope(scopes, 'write_deals')) throw forbidden(`deal_disposition ${disposition} changes the deal and needs the write_deals scope`);
  const at = now.toISOString();
  if (disposition === 'reopen') {
    if (!input.reopen_stage_id)
      throw badRequest('Missing required parameter: reopen_stage_id (deal_disposition reopen needs it)', 'reopen_stage_id');
    const { rows } = await tx.query(
      `SELECT id FROM pipeline_stages WHERE workspace_id = $1 AND id = $2 AND pipeline_id = $3 AND type = 'OPEN' FOR SHARE`,
      [ws, input.reopen_stage_id, deal.pipeline_id],
    );
    if (!rows.length) throw invalidField('reopen_stage_id', "must be an open stage of the deal's pipeline");
    await tx.query(
      `UPDATE deals SET stage_id = $2, status = 'open', closed_at = NULL, lost_reason = NULL, updated_at = $3::timestamptz WHERE id = $1`,
      [dealId, input.reopen_stage_id, at],
    );
  } else if (disposition === 'lost') {
    const { rows } = await tx.query<{ id: string }>(
      `SELECT id FROM pipeline_stages WHERE pipeline_id = $1 AND type = 'CLOSED_LOST' ORDER BY position LIMIT 1 FOR SHARE`,
      [deal.pipeline_id],
    );
    if (!rows.length) throw badRequest("The deal's pipeline has no closed-lost stage", 'deal_disposition');
    await tx.query(
      `UPDATE deals SET stage_id = $2, status = 'lost', closed_at = $3::timestamptz, lost_reason = $4, updated_at = $3::timestamptz WHERE id = $1`,
      [dealId, rows[0].id, at, input.deal_lost_reason || null],
    );
  }
}

export async function deleteTransaction(db: Db, ws: string, id: string, now: Date) {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query('DELETE FROM transactions WHERE workspace_id = $1 AND id = $2 RETURNING id', [ws, id]);
    if (!rows.length) throw notFound('transaction', 'id');
    await recordEvent(tx, ws, 'transaction.deleted', { id }, now);
    return { deleted_id: id, success: true };
  });
}

export async function getWorkflow(db: Db, ws: string, id: string) {
  const { rows } = await db.query<{ id: string; deal_id: string | null }>(
    'SELECT id, deal_id FROM transactions WHERE workspace_id = $1 AND id = $2',
    [ws, id],
  );
  if (!rows.length) throw notFound('transaction', 'id');
  const dealId = rows[0].deal_id;
  const [acts, parties, tasks, stages] = await Promise.all([
    db.query<{ id: string; title: string; description: string | null; created_at: Date | string }>(
      'SELECT * FROM transaction_activities WHERE transaction_id = $1 ORDER BY created_at DESC, id DESC',
      [id],
    ),
    db.query<{ id: string; contact_id: string; name: string; role: string; relationship_label_id: string }>(
      'SELECT * FROM transaction_parties WHERE transaction_id = $1 ORDER BY name, id',
      [id],
    ),
    db.query<{ id: string; title: string; completed: boolean; due_date: string; milestone: string; offset_days: number }>(
      'SELECT * FROM transaction_tasks WHERE transaction_id = $1 ORDER BY position, id',
      [id],
    ),
    dealId
      ? db.query<{ id: string; name: string }>(
          `SELECT s.id, s.name FROM pipeline_stages s JOIN deals d ON d.pipeline_id = s.pipeline_id WHERE d.id = $1 AND s.type = 'OPEN' ORDER BY s.position, s.id`,
          [dealId],
        )
      : Promise.resolve({ rows: [] as { id: string; name: string }[] }),
  ]);
  return {
    activities: acts.rows.map((r) => ({ id: r.id, title: r.title, description: r.description ?? '', created_at: iso(r.created_at) })),
    default_reopen_stage_id: stages.rows[0]?.id ?? '',
    parties: parties.rows.map((r) => ({
      id: r.id,
      contact_id: r.contact_id,
      name: r.name,
      role: r.role,
      relationship_label_id: r.relationship_label_id,
    })),
    reopen_stages: stages.rows.map((r) => ({ id: r.id, name: r.name })),
    tasks: tasks.rows.map((r) => ({
      id: r.id,
      title: r.title,
      completed: r.completed,
      due_date: r.due_date,
      milestone: r.milestone,
      offset_days: Number(r.offset_days),
    })),
  };
}

export async function getTransactionSettings(db: Db, ws: string) {
  const [stages, templates] = await Promise.all([
    db.query<ClosingStageRow>('SELECT * FROM closing_stages WHERE workspace_id = $1 ORDER BY position, id', [ws]),
    db.query<ChecklistTemplateRow>('SELECT * FROM checklist_templates WHERE workspace_id = $1 ORDER BY created_at, id', [ws]),
  ]);
  return {
    closing_stages: stages.rows.map((r) => ({ id: r.id, name: r.name, status: r.status, position: Number(r.position) })),
    checklist_templates: templates.rows.map((r) => ({ id: r.id, name: r.name, items: r.items })),
  };
}
