// The catalog endpoints the installer relies on, checked over HTTP on the real server.
import { describe, expect, it } from 'vitest';
import { WorkspaceApiError } from '../src/index.js';
import { clientFor, loadPack, useServer } from './harness.js';

const server = useServer();

const fail = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e) => e as WorkspaceApiError,
  );

describe('catalog API', () => {
  it('turns error envelopes into typed errors (401, 403, 404)', async () => {
    const ws = await server().workspace();
    const bad = await fail(clientFor(server(), 'sk_not_a_key').get('/v1/tags'));
    expect(bad).toBeInstanceOf(WorkspaceApiError);
    expect([bad.status, bad.type]).toEqual([401, 'authentication_error']);
    const readOnly = await server().admin('POST', `/admin/workspaces/${ws.id}/api-keys`, { scopes: ['read_tags', 'read_install_ledgers'] });
    const denied = await fail(clientFor(server(), readOnly.secret).post('/v1/tags', { name: 'x' }));
    expect([denied.status, denied.type]).toEqual([403, 'permission_error']);
    const missing = await fail(clientFor(server(), ws.key).get('/v1/message-templates/tpl_nope'));
    expect([missing.status, missing.type, missing.param]).toEqual([404, 'invalid_request_error', 'id']);
  });

  it('lists the catalog endpoints in the OpenAPI document with their scopes', async () => {
    const doc = await (await fetch(`${server().base}/v1/openapi.json`)).json();
    for (const [path, method] of [
      ['/v1/tags', 'post'],
      ['/v1/custom-fields', 'get'],
      ['/v1/pipelines/{id}', 'patch'],
      ['/v1/message-templates/{id}', 'get'],
      ['/v1/smart-lists', 'post'],
      ['/v1/automations/{id}', 'patch'],
      ['/v1/media', 'post'],
      ['/v1/brand', 'put'],
      ['/v1/teams', 'get'],
      ['/v1/pipeline-details', 'get'],
      ['/v1/install-ledgers/{pack_id}/lock', 'post'],
      ['/v1/idempotency-keys', 'get'],
      ['/v1/install-ledgers/{pack_id}', 'put'],
      ['/v1/media/{id}/content', 'get'],
    ])
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(doc.paths['/v1/automations'].post['x-required-scopes']).toEqual(['write_automations']);
    expect(doc.paths['/v1/media/{id}/content'].get['x-required-scopes']).toEqual(['read_media']);
  });

  it('creates once per idempotency key, validates automation documents with core, pages with cursors', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const a = await c.post('/v1/tags', { name: 'Once', idempotency_key: 'k-1' });
    const b = await c.post('/v1/tags', { name: 'Once', idempotency_key: 'k-1' });
    expect(b.id).toBe(a.id);
    expect((await c.listAll('/v1/tags')).filter((t) => t.name === 'Once')).toHaveLength(1);
    // Concurrent duplicates (a retry racing the original) still make one object.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () =>
        c.post('/v1/message-templates', { name: 'Race', channel: 'sms', body: 'x', idempotency_key: 'k-race' }),
      ),
    );
    expect(new Set(racing.map((r) => r.id)).size).toBe(1);
    expect((await c.listAll('/v1/message-templates')).filter((t) => t.name === 'Race')).toHaveLength(1);

    const doc = structuredClone(loadPack('releases/buyer-lead-1.0.0.json').automations![0].document);
    doc.graph.edges!.push({ id: 'loop', source: 'email', target: 'start' });
    const err = await fail(c.post('/v1/automations', { document: doc }));
    expect(err.status).toBe(400);
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toMatch(/Invalid automation document/);

    for (let i = 0; i < 230; i++) await c.post('/v1/custom-fields', { name: `Field ${i}` });
    const all = await c.listAll('/v1/custom-fields');
    expect(all).toHaveLength(230);
    expect(new Set(all.map((f) => f.id)).size).toBe(230);
  });

  it('locks an install per packId with an expiry; the same holder gets its token back', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const first = await c.post('/v1/install-ledgers/p1/lock', { holder: 'run-a', ttl_seconds: 30 });
    expect((await c.post('/v1/install-ledgers/p1/lock', { holder: 'run-a', ttl_seconds: 30 })).token).toBe(first.token);
    const busy = await fail(c.post('/v1/install-ledgers/p1/lock', { holder: 'run-b', ttl_seconds: 30 }));
    expect(busy.status).toBe(409);
    expect(busy.message).toMatch(/run-a/);
    const stale = await fail(c.put('/v1/install-ledgers/p1', { lock_token: 'lck_wrong', ledger: {} }));
    expect(stale.status).toBe(409);
    server().clock.advance(31_000);
    const second = await c.post('/v1/install-ledgers/p1/lock', { holder: 'run-b', ttl_seconds: 30 });
    expect(second.token).not.toBe(first.token);
    expect((await fail(c.put('/v1/install-ledgers/p1', { lock_token: first.token, ledger: {} }))).status).toBe(409);
    const written = await c.put('/v1/install-ledgers/p1', { lock_token: second.token, ledger: { packId: 'p1' } });
    expect(written.revision).toBe(1);
  });

  it('stages a draft when an automation that is on is updated, and adds, reorders and removes pipeline stages', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const doc = loadPack('releases/buyer-lead-1.0.0.json').automations![2].document;
    const a = await c.post('/v1/automations', { document: doc });
    expect(a).toMatchObject({ enabled: false, status: 'off', draft_document: null });
    await c.post(`/v1/automations/${a.id}/activate`);
    const updated = await c.patch(`/v1/automations/${a.id}`, { document: { ...doc, name: 'Renamed' } });
    expect(updated).toMatchObject({ enabled: true, name: 'Old reminder' });
    expect(updated.document.name).toBe('Old reminder');
    expect(updated.draft_document.name).toBe('Renamed');

    const p = await c.post('/v1/pipelines', {
      name: 'P',
      stages: [{ name: 'A' }, { name: 'W', type: 'CLOSED_WON', probability: 5 }, { name: 'L', type: 'CLOSED_LOST' }],
    });
    expect(p.stages.map((s: any) => [s.name, s.probability])).toEqual([
      ['A', null],
      ['W', 100],
      ['L', 0],
    ]);
    const [sa, sw, sl] = p.stages;
    const q = await c.patch(`/v1/pipelines/${p.id}`, {
      stages: [
        { id: sw.id, name: 'W', type: 'CLOSED_WON' },
        { name: 'New' },
        { id: sa.id, name: 'A2', color: '#ffffff' },
        { id: sl.id, name: 'L', type: 'CLOSED_LOST' },
      ],
    });
    expect(q.stages.map((s: any) => s.name)).toEqual(['W', 'New', 'A2', 'L']);
    expect(q.stages[2].id).toBe(sa.id);
    const r = await c.patch(`/v1/pipelines/${p.id}`, {
      stages: [
        { id: sw.id, name: 'W', type: 'CLOSED_WON' },
        { id: sl.id, name: 'L', type: 'CLOSED_LOST' },
      ],
    });
    expect(r.stages).toHaveLength(2);
    expect((await fail(c.patch(`/v1/pipelines/${p.id}`, { stages: [{ name: 'Only' }] }))).param).toBe('stages');
  });
});
