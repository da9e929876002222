import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { migrate, migrations } from '../src/migrations.js';
import { openStore } from '../src/open-store.js';
import { createWorkspace, getWorkspace } from '../src/modules/workspaces/store.js';
import { grossCommission, netCommission } from '../src/shared/money.js';
import { openTestStore, TEST_DATABASE_URL, uniqueSchema } from './harness.js';

describe('embedded store', () => {
  it('keeps data under the data directory across restarts and migrates only once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-store-'));
    try {
      const first = await openStore({ dataDir: dir });
      const ws = await createWorkspace(first.db, { name: 'Persist', slug: 'persist' }, new Date('2026-01-01T00:00:00Z'));
      await first.close();
      const second = await openStore({ dataDir: dir });
      expect((await getWorkspace(second.db, ws.id))?.slug).toBe('persist');
      expect(await migrate(second.db)).toEqual([]);
      const { rows } = await second.db.query('SELECT version FROM schema_migrations ORDER BY version');
      expect(rows.map((r) => Number(r.version))).toEqual(migrations.map((m) => m.version).sort((x, y) => x - y));
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rolls a failed transaction back completely', async () => {
    const store = await openStore({ memory: true });
    await expect(
      store.db.transaction(async (tx) => {
        await tx.query(`INSERT INTO workspaces (id, name, slug, created_at) VALUES ('ws_x', 'x', 'x', now())`);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await getWorkspace(store.db, 'ws_x')).toBeNull();
    await store.close();
  });
});

describe.skipIf(!TEST_DATABASE_URL)('PostgreSQL store (needs TEST_DATABASE_URL)', () => {
  it('lets two processes migrate one fresh schema at once', async () => {
    const schema = uniqueSchema('mig');
    const [a, b] = await Promise.all([openTestStore('postgres', schema), openTestStore('postgres', schema)]);
    const { rows } = await a.db.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0].n).toBe(migrations.length);
    await Promise.all([a.close(), b.close()]);
  });

  it('keeps an idle pooled connection however long the server is quiet (its prepared statements with it)', async () => {
    // The pool's idle timer runs on these fake clocks: node-postgres' default would close the
    // connection once 10 s pass, and the next query would run on a new backend.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const store = await openTestStore('postgres');
    try {
      const pid = async () => (await store.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const first = await pid();
      vi.advanceTimersByTime(60 * 60_000);
      expect(await pid()).toBe(first);
    } finally {
      vi.useRealTimers();
      await store.close();
    }
  });
});

describe('money', () => {
  it('derives commissions in decimal, rounding half up to cents', () => {
    expect(grossCommission('0.1', '0.2')).toBe('0.00');
    expect(grossCommission('100.10', '3')).toBe('3.00');
    expect(grossCommission('333333.33', '2.75')).toBe('9166.67');
    // 0.1 + 0.2 style float error would show here: 10000.30 × 1.5% = 150.0045 → 150.00
    expect(grossCommission('10000.30', '1.5')).toBe('150.00');
    expect(
      netCommission({
        gross_commission: '10000.00',
        referral_fee: '0.00',
        brokerage_split_rate: '33.33',
        team_split_rate: '0',
        transaction_fees: '0.01',
      }),
    ).toBe('6666.99');
  });
});
