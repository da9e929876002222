import type { Clock } from './shared/clock.js';
import type { Db } from './db/db.js';
import { newId } from './shared/ids.js';
import { addNote } from './modules/activities/store.js';
import { createContact } from './modules/contacts/create.js';
import { addActivity, optOut, setContactTag } from './modules/contacts/store.js';
import { createDeal } from './modules/deals/store.js';
import { createTag } from './modules/lookups/store.js';
import { createTransaction, updateTransaction } from './modules/transactions/store.js';
import {
  createApiKey,
  createMailbox,
  createMember,
  createWorkspace,
  getWorkspace,
  type CreatedKey,
  type Workspace,
} from './modules/workspaces/store.js';

const firstNames = [
  'Ava',
  'Liam',
  'Maya',
  'Noah',
  'Zoe',
  'Ethan',
  'Isla',
  'Lucas',
  'Mia',
  'Owen',
  'Ruby',
  'Caleb',
  'Nora',
  'Elijah',
  'Lena',
];
const lastNames = ['Garcia', 'Chen', 'Patel', 'Okafor', 'Smith', 'Novak', 'Rossi', 'Kim', 'Haddad', 'Jensen'];

/**
 * The members the demo packs (fixtures/valid) name in their references, so their first plan binds
 * them by name and installs; each added once.
 */
async function addDemoPackMembers(db: Db, ws: string, at: Date): Promise<void> {
  for (const [name, email] of [
    ['Jordan Lee', 'jordan@demo-realty.test'],
    ['Avery Brooks', 'avery@demo-realty.test'],
  ]) {
    const has = await db.query('SELECT 1 FROM members WHERE workspace_id = $1 AND name = $2', [ws, name]);
    if (!has.rows.length) await createMember(db, ws, { name, email }, at);
  }
}

/**
 * Seeding a persistent store twice only issues a fresh key (and adds the members the demo packs
 * name, which a store seeded by an older version lacks).
 */
async function reseed(db: Db, ws: string, clock: Clock): Promise<{ workspace: Workspace; key: CreatedKey }> {
  await addDemoPackMembers(db, ws, clock.now());
  const owner = await db.query<{ id: string }>('SELECT id FROM members WHERE workspace_id = $1 ORDER BY created_at LIMIT 1', [ws]);
  const key = await createApiKey(db, ws, { scopes: ['full_access'], name: 'demo', member_id: owner.rows[0]?.id ?? null }, clock.now());
  return { workspace: (await getWorkspace(db, ws))!, key };
}

/**
 * The demo workspace: members (one with a private mailbox, and those the demo packs name), tags, listings, contacts with
 * timelines, deals and transactions. Returns a full_access key created by the first member.
 */
export async function seedDemo(db: Db, clock: Clock, slug = 'demo'): Promise<{ workspace: Workspace; key: CreatedKey }> {
  const t0 = clock.now().getTime() - 3600_000;
  let tick = 0;
  const at = () => new Date(t0 + ++tick * 1000);
  const existing = await db.query<{ id: string }>('SELECT id FROM workspaces WHERE slug = $1', [slug]);
  if (existing.rows.length) return reseed(db, existing.rows[0].id, clock);
  const workspace = await createWorkspace(db, { name: 'Demo Realty', slug }, new Date(t0));
  const ws = workspace.id;
  const alice = await createMember(db, ws, { name: 'Alice Agent', email: 'alice@demo-realty.test' }, at());
  const bob = await createMember(db, ws, { name: 'Bob Broker', email: 'bob@demo-realty.test' }, at());
  await createMember(db, ws, { name: 'Casey Coordinator', email: 'casey@demo-realty.test' }, at());
  await addDemoPackMembers(db, ws, at());
  const bobMailbox = await createMailbox(db, ws, bob.id, bob.email, true);
  const tags: Awaited<ReturnType<typeof createTag>>[] = [];
  for (const [name, color] of [
    ['Buyer', '#2563eb'],
    ['Seller', '#16a34a'],
    ['VIP', '#d97706'],
    ['Investor', null],
    ['First-time buyer', '#9333ea'],
  ] as const) {
    tags.push(await createTag(db, ws, name, color, at()));
  }
  const listings = [
    ['MLS-1001', '12 Harbor View Rd, Portland ME', '/photos/mls-1001/front.jpg'],
    ['MLS-1002', '48 Elm St, Portland ME', '/photos/mls-1002/front.jpg'],
    ['MLS-1003', '7 Lighthouse Ln, Cape Elizabeth ME', ''],
  ];
  for (const [key, label, photo] of listings) {
    await db.query('INSERT INTO listings (workspace_id, listing_key, label, photo_path) VALUES ($1,$2,$3,$4)', [ws, key, label, photo]);
  }
  const stages = (await db.query<{ id: string }>('SELECT id FROM contact_stages WHERE workspace_id = $1 ORDER BY position', [ws])).rows.map(
    (r) => r.id,
  );
  const sources = (
    await db.query<{ id: string }>('SELECT id FROM lead_sources WHERE workspace_id = $1 ORDER BY created_at', [ws])
  ).rows.map((r) => r.id);
  const contacts: Awaited<ReturnType<typeof createContact>>[] = [];
  for (let i = 0; i < 30; i++) {
    const first = firstNames[i % firstNames.length];
    const last = lastNames[(i * 7) % lastNames.length];
    const c = await createContact(
      db,
      ws,
      {
        first_name: first,
        last_name: last,
        emails: [
          { value: `${first}.${last}${i}@example.com`.toLowerCase(), label: 'Home', is_primary: true },
          ...(i % 3 === 0 ? [{ value: `${first[0]}${last}${i}@work.example.com`.toLowerCase(), label: 'Work' }] : []),
        ],
        phone: `+1207555${String(1000 + i)}`,
        city: i % 2 ? 'Portland' : 'South Portland',
        state: 'ME',
        company: i % 4 === 0 ? 'Casco Bay Holdings' : null,
        stage_id: stages[i % stages.length],
        lead_source_id: sources[i % sources.length],
        owner_id: i % 2 ? alice.id : bob.id,
        custom_fields: {},
      },
      at(),
    );
    contacts.push(c);
    await setContactTag(db, ws, c.id, tags[i % tags.length].id, true, at());
    if (i % 5 === 0) await addNote(db, ws, c.id, `Called ${first}; wants a showing next week.`, at());
  }
  // One private note and one email from Bob's private mailbox, to show exclusion and masking.
  await db.transaction(async (tx) => {
    await addActivity(
      tx,
      ws,
      contacts[0].id,
      { type: 'note', title: 'Private note', description: 'Seller is motivated.', is_private: true, actor_member_id: bob.id },
      at(),
    );
    await addActivity(
      tx,
      ws,
      contacts[0].id,
      {
        type: 'email',
        title: 'Re: offer on Harbor View',
        description: 'Numbers attached.',
        actor_member_id: bob.id,
        mailbox_id: bobMailbox,
        metadata: { direction: 'outbound' },
      },
      at(),
    );
    await tx.query(
      'INSERT INTO communications (id, workspace_id, contact_id, kind, body, created_at) VALUES ($1,$2,$3,$4,$5,$6::timestamptz)',
      [newId('com'), ws, contacts[0].id, 'text', 'See you at 5!', at().toISOString()],
    );
  });
  await optOut(db, ws, 'email', contacts[1].emails[0].value, at());
  await seedDealsAndTransactions(
    db,
    ws,
    contacts,
    listings.map(([key]) => key),
    at,
  );
  const key = await createApiKey(db, ws, { scopes: ['full_access'], name: 'demo', member_id: alice.id }, clock.now());
  return { workspace, key };
}

/** Eight deals of the first contacts (three won), and transactions of five of them in several states. */
async function seedDealsAndTransactions(
  db: Db,
  ws: string,
  contacts: readonly { id: string; first_name: string; last_name: string }[],
  listingKeys: readonly string[],
  at: () => Date,
): Promise<void> {
  const pipeline = (
    await db.query<{ id: string; type: string }>(
      'SELECT s.id, s.type FROM pipeline_stages s WHERE s.workspace_id = $1 ORDER BY s.position',
      [ws],
    )
  ).rows;
  const open = pipeline.filter((s) => s.type === 'OPEN');
  const won = pipeline.find((s) => s.type === 'CLOSED_WON')!;
  const deals: Awaited<ReturnType<typeof createDeal>>[] = [];
  for (let i = 0; i < 8; i++) {
    deals.push(
      await createDeal(
        db,
        ws,
        {
          name: `${contacts[i].first_name} ${contacts[i].last_name} — ${i % 2 ? 'purchase' : 'listing'}`,
          stage_id: i < 3 ? won.id : open[i % open.length].id,
          value: `${350000 + i * 25000}.00`,
          contact_id: contacts[i].id,
          expected_close_date: `2026-0${(i % 9) + 1}-15`,
        },
        at(),
      ),
    );
  }
  const settings = await db.query<{ id: string }>('SELECT id FROM checklist_templates WHERE workspace_id = $1 LIMIT 1', [ws]);
  for (let i = 0; i < 5; i++) {
    const txn = await createTransaction(
      db,
      ws,
      {
        deal_id: deals[i].id,
        listing_key: listingKeys[i % listingKeys.length],
        side: i % 2 ? 'seller' : 'buyer',
        sale_price: `${400000 + i * 15000}`,
        commission_rate: '2.5',
        projected_close_date: `2026-0${i + 2}-20`,
        checklist_template_id: settings.rows[0].id,
      },
      at(),
    );
    if (i === 1)
      await updateTransaction(
        db,
        ws,
        txn.id as string,
        { status: 'pending', referral_fee: '1000', brokerage_split_rate: '30' },
        ['full_access'],
        at(),
      );
    if (i === 2) await updateTransaction(db, ws, txn.id as string, { status: 'closed' }, ['full_access'], at());
  }
}
