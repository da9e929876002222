// Bulk-seeds N contacts (with a primary email and phone each) straight into the store with set-based SQL,
// in the same shape the API writes, so benchmarks and query plans see a realistic workspace fast
// (the contact count is kept by the contacts trigger).
export async function seedContacts(db, workspaceId, n, start = new Date('2025-01-01T00:00:00Z')) {
  // One transaction: the emails and phones are written with their contacts, so the trigger that
  // writes a contact's row when its rows change alone (migration 5) has nothing to do.
  await db.transaction((tx) => seedIn(tx, workspaceId, n, start));
  await db.query('ANALYZE');
}

async function seedIn(db, workspaceId, n, start) {
  const tag = workspaceId.slice(3, 11); // ids stay unique when several workspaces are seeded
  const pad = (col) => `'${tag}' || lpad(${col}::text, 9, '0')`;
  await db.query(
    `INSERT INTO contacts (id, workspace_id, first_name, last_name, company, city, custom_fields, search_text, created_at, updated_at)
     SELECT 'con_bulk' || ${pad('g')}, $1, 'First' || g, 'Last' || (g % 997),
            CASE WHEN g % 10 = 0 THEN 'Harbor Realty' ELSE 'Company ' || (g % 500) END, 'Portland', '{}'::jsonb,
            lower('First' || g || ' Last' || (g % 997) || ' ' || CASE WHEN g % 10 = 0 THEN 'Harbor Realty' ELSE 'Company ' || (g % 500) END
                  || ' user' || g || '@example.com +1207' || lpad(g::text, 7, '0') || ' 1207' || lpad(g::text, 7, '0')),
            $2::timestamptz + g * interval '1 second', $2::timestamptz + g * interval '1 second'
       FROM generate_series(1, $3::int) g`,
    [workspaceId, start.toISOString(), n],
  );
  await db.query(
    `INSERT INTO contact_emails (id, workspace_id, contact_id, value, label, is_primary, position)
     SELECT 'em_bulk' || ${pad('g')}, $1, 'con_bulk' || ${pad('g')}, 'user' || g || '@example.com', 'Home', true, 0 FROM generate_series(1, $2::int) g`,
    [workspaceId, n],
  );
  await db.query(
    `INSERT INTO contact_phones (id, workspace_id, contact_id, value, label, is_primary, position)
     SELECT 'ph_bulk' || ${pad('g')}, $1, 'con_bulk' || ${pad('g')}, '+1207' || lpad(g::text, 7, '0'), 'Mobile', true, 0 FROM generate_series(1, $2::int) g`,
    [workspaceId, n],
  );
}
