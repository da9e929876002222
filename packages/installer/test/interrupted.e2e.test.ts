// Installs that stop part-way against the real server: a key that may not make every write, a write
// the workspace refuses, a run that dies just after writing the brand. Nothing may be left half
// done that the next run cannot finish, and the error must say which item and what to do.
import { describe, expect, it } from 'vitest';
import { install, InstallStepError, listLedgers, planInstall, readLedger, uninstall, WorkspaceApiError } from '../src/index.js';
import { cli, clientFor, countingFetch, loadPack, proxyTo, useServer } from './harness.js';

const listing = loadPack('valid/listing-marketing.json');

const server = useServer();

/** Every scope a key needs to install the listing pack, but `write_automations` and `write_brand`. */
const MOST_SCOPES = [
  'read_install_ledgers',
  'write_install_ledgers',
  'write_tags',
  'write_contact_stages',
  'write_lead_sources',
  'write_custom_fields',
  'write_pipelines',
  'write_message_templates',
  'write_media',
  'read_brand',
  'write_smart_lists',
  'read_automations',
  'read_members',
];

/** Forwards to the server; answers `refuse(method, path)`'s error envelope (status 400) instead when it gives one. */
function refusingProxy(target: string, refuse: (method: string, path: string) => string | undefined) {
  return proxyTo(target, (req, res) => {
    const message = refuse(req.method ?? 'GET', req.url ?? '/');
    if (message === undefined) return false;
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message, param: 'document' } }));
    return true;
  });
}

describe('an install that cannot finish', () => {
  it('with a key lacking a write scope the plan needs, refuses before the first write, naming the scopes and the items', async () => {
    const ws = await server().workspace();
    const key = await server().admin('POST', `/admin/workspaces/${ws.id}/api-keys`, { scopes: MOST_SCOPES });
    const counting = countingFetch();
    const c = clientFor(server(), key.secret, { fetch: counting.fetch });
    const err = await install(c, listing).catch((e) => e);
    expect(err).toBeInstanceOf(WorkspaceApiError);
    expect(err).toMatchObject({ status: 403, type: 'permission_error', param: 'scopes' });
    expect(err.message).toBe(
      'This API key lacks 2 scopes this run needs: write_brand (to write brand brand "Harbor Realty"), write_automations (to write automation open-house-invite "Open house invitations", automation seller-updates "Weekly seller update"); nothing was written: use a key with them or full_access',
    );
    // Before: the resources, pipeline, media, templates and lists were written, then 403 at the brand.
    expect(counting.writes()).toBe(0);
    expect(await readLedger(c, listing.packId)).toBeNull();

    // The same from the command line: one line, exit 1, nothing in progress.
    const r = await cli(['install', 'valid/listing-marketing.json'], { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: key.secret });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^setup-pack: permission_error \(HTTP 403\): This API key lacks 2 scopes this run needs: write_brand .*; nothing was written: use a key with them or full_access \[scopes\]\n$/,
    );

    // An uninstall checks too: a key that may only read removes nothing.
    await install(clientFor(server(), ws.key), listing);
    const reader = await server().admin('POST', `/admin/workspaces/${ws.id}/api-keys`, {
      scopes: [
        'read_install_ledgers',
        'read_tags',
        'read_contact_stages',
        'read_lead_sources',
        'read_custom_fields',
        'read_pipelines',
        'read_message_templates',
        'read_media',
        'read_brand',
        'read_smart_lists',
        'read_automations',
      ],
    });
    const counting2 = countingFetch();
    const un = await uninstall(clientFor(server(), reader.secret, { fetch: counting2.fetch }), listing.packId).catch((e) => e);
    expect(un).toMatchObject({ status: 403, param: 'scopes' });
    expect(un.message).toMatch(
      /lacks \d+ scopes this run needs: write_automations .*, write_install_ledgers \(for the install ledger\); nothing was written/,
    );
    expect(counting2.writes()).toBe(0);
  });

  it('a write the workspace refuses names the item; the run is left in progress and the next run finishes it', async () => {
    const ws = await server().workspace();
    const proxy = await refusingProxy(server().base, (method, path) =>
      method === 'POST' && path === '/v1/automations' ? 'Invalid document: refused for the test' : undefined,
    );
    try {
      const err = await install(clientFor(server(), ws.key, {}, proxy.base), listing).catch((e) => e);
      expect(err).toBeInstanceOf(InstallStepError);
      expect(err.message).toMatch(
        /^creating automation open-house-invite "Open house invitations": Invalid document: refused for the test$/,
      );
      expect(err).toMatchObject({ status: 400, param: 'document', written: 13, total: 15 });

      const env = { WORKSPACE_URL: proxy.base, WORKSPACE_API_KEY: ws.key };
      const r = await cli(['install', 'valid/listing-marketing.json'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        'setup-pack: invalid_request_error (HTTP 400): creating automation open-house-invite "Open house invitations": Invalid document: refused for the test [document]\n' +
          'setup-pack: 0 of 2 item writes made; the install is recorded as in progress: run it again to resume (what was written is recognised, not duplicated)\n',
      );
      const json = await cli(['install', 'valid/listing-marketing.json', '--format', 'json'], env);
      expect(JSON.parse(json.stdout).error).toMatchObject({
        item: 'automation:open-house-invite',
        action: 'create',
        written: 0,
        total: 2,
        run: 'install',
      });
    } finally {
      await proxy.close();
    }
    const c = clientFor(server(), ws.key);
    const record = await readLedger(c, listing.packId);
    expect(record!.ledger.state).toBe('in_progress');
    expect(Object.keys(record!.ledger.items)).toHaveLength(13);
    const done = await install(c, listing);
    expect(done.written).toBe(2);
    expect((await c.listAll('/v1/message-templates')).filter((t) => t.name === 'Open house invitation')).toHaveLength(1);
    expect((await planInstall(c, listing)).plan.hasChanges).toBe(false);
  });

  it("a run that dies right after writing the brand leaves it the pack's own: the next run does not adopt it, and uninstall removes it", async () => {
    const ws = await server().workspace();
    // The process "dies" (every later request fails as if the network were gone) at the first item
    // write after the brand's PUT; ledger checkpoints still go through until then.
    let brandWritten = false;
    let dead = false;
    const dying: typeof fetch = async (input, init) => {
      const url = new URL(String(input));
      const method = init?.method ?? 'GET';
      if (!dead && brandWritten && method !== 'GET' && !url.pathname.startsWith('/v1/install-ledgers')) dead = true;
      if (dead) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
      const res = await fetch(input, init);
      if (method === 'PUT' && url.pathname === '/v1/brand' && res.ok) brandWritten = true;
      return res;
    };
    const first = await install(clientFor(server(), ws.key, { fetch: dying, maxRetries: 0 }), listing, { lockTtlSeconds: 5 }).catch(
      (e) => e,
    );
    expect(dead).toBe(true);
    expect(first).toBeInstanceOf(WorkspaceApiError);
    server().clock.advance(10_000); // the dead run's lock expires

    const c = clientFor(server(), ws.key);
    const resumed = await install(c, listing);
    const brandStep = resumed.plan.steps.find((s) => s.itemId === 'brand:brand')!;
    expect(brandStep.action).not.toBe('adopt');
    expect(resumed.ledger!.items['brand:brand'].owned).toBe(true);

    // Uninstall removes it with the media it shows, rather than keeping a brand that shows removed files.
    const un = await uninstall(c, listing.packId);
    expect(un.plan.steps.find((s) => s.itemId === 'brand:brand')!.action).toBe('remove');
    expect((await c.get('/v1/brand'))?.fields ?? null).toBeNull();
    expect(await listLedgers(c)).toHaveLength(0);
  });
});
