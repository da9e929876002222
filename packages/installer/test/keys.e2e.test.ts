// The API key failing in the middle of a real `setup-pack install` against the real server:
// revoked, or expired. The run stops with the workspace's reason and the item; its lock, which it
// can no longer release, is named with the command that breaks it; a valid key then resumes the
// install to exactly an uninterrupted one.
import { describe, expect, it } from 'vitest';
import { install, listLedgers } from '../src/index.js';
import { cli, clientFor, duplicateNames, loadPack, proxyTo, useServer } from './harness.js';

const listing = loadPack('valid/listing-marketing.json');
const server = useServer();

describe('a key that stops working in the middle of an install', () => {
  for (const how of ['revoked', 'expired'] as const) {
    it(`${how}: the run stops naming the item and the reason, and the lock it left with the command that breaks it; a valid key resumes it`, async () => {
      const ws = await server().workspace();
      const expiresAt = new Date(server().clock.now().getTime() + 600_000).toISOString();
      const key = await server().admin('POST', `/admin/workspaces/${ws.id}/api-keys`, {
        scopes: ['full_access'],
        ...(how === 'expired' ? { expires_at: expiresAt } : {}),
      });
      let writes = 0;
      const proxy = await proxyTo(server().base, async (req) => {
        if (req.method !== 'GET' && ++writes === 6) {
          if (how === 'revoked') await server().admin('DELETE', `/admin/api-keys/${key.id}`);
          else server().clock.advance(601_000);
        }
        return false;
      });
      let holder: string;
      try {
        const r = await cli(['install', 'valid/listing-marketing.json', '--lock-ttl', '3600'], {
          WORKSPACE_URL: proxy.base,
          WORKSPACE_API_KEY: key.secret,
        });
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        const [reason, next, ...more] = r.stderr.split('\n');
        expect(more).toEqual(['']);
        expect(reason).toMatch(
          /^setup-pack: authentication_error \(HTTP 401\): creating resource open-house "Open house": .*(revoked|expired)/,
        );
        const m =
          /^setup-pack: 3 of 15 item writes made; the install is recorded as in progress: its lock \((setup-pack-[a-z0-9]+)\) could not be released: break it with setup-pack unlock (\S+) \1 \(with a key the workspace accepts\), then run it again to resume \(what was written is recognised, not duplicated\)$/.exec(
            next,
          );
        expect(m, next).not.toBeNull();
        expect(m![2]).toBe(listing.packId);
        holder = m![1];
      } finally {
        await proxy.close();
      }
      // The lock is the dead run's, as said; breaking it with a valid key lets the install resume at once.
      const c = clientFor(server(), ws.key);
      expect((await listLedgers(c))[0].lock?.holder).toBe(holder);
      const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
      expect((await cli(['unlock', listing.packId, holder], env)).code).toBe(0);
      const again = await cli(['install', 'valid/listing-marketing.json'], env);
      expect(again.stderr).toBe('');
      expect(again.code).toBe(0);
      expect(await duplicateNames(c)).toEqual([]);
      const [record] = await listLedgers(c);
      expect(record.ledger).toMatchObject({ state: 'installed' });
      expect(Object.values(record.ledger!.items).every((i) => i.owned)).toBe(true);
      expect((await install(c, listing)).plan.hasChanges).toBe(false);
    });
  }
});

describe('a key with too few scopes to read what the plan needs', () => {
  it('is told every collection it may not read at once, not one per run', async () => {
    const ws = await server().workspace();
    const key = await server().admin('POST', `/admin/workspaces/${ws.id}/api-keys`, { scopes: ['read_install_ledgers', 'read_tags'] });
    const r = await cli(['plan', 'valid/listing-marketing.json'], { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: key.secret });
    expect(r.code).toBe(1);
    const said = r.stderr;
    expect(said).toMatch(/This API key may not read \d+ of the collections the plan needs: /);
    for (const scope of ['read_message_templates', 'read_smart_lists', 'read_automations', 'read_members']) expect(said).toContain(scope);
    expect(said).not.toContain('read_tags scope');
  });
});
