import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailbox } from '../src/modules/workspaces/store.js';
import { addActivity, isOptedOut, optOut } from '../src/modules/contacts/store.js';
import { createTag } from '../src/modules/lookups/store.js';
import { expectError, startServer, type Client, type StoreKind, type TestServer } from './harness.js';

/**
 * The conformance suite: every endpoint row and error case of the spec, over real HTTP and a real
 * store. Defined once and run on each store kind.
 */
export function defineConformance(kind: StoreKind) {
  let s: TestServer;
  let A: Awaited<ReturnType<TestServer['workspace']>>;
  let B: Awaited<ReturnType<TestServer['workspace']>>;
  let a: Client;

  beforeAll(async () => {
    s = await startServer(kind);
    A = await s.workspace();
    B = await s.workspace();
    a = A.client;
  });
  afterAll(async () => {
    await s?.close();
  });

  const lookups = async (c: Client) => {
    const [stages, sources, pipelines, members, settings] = await Promise.all([
      c.get('/v1/contact-stages?limit=100'),
      c.get('/v1/lead-sources?limit=100'),
      c.get('/v1/pipelines'),
      c.get('/v1/members'),
      c.get('/v1/transaction-settings'),
    ]);
    return {
      stages: stages.body.data,
      sources: sources.body.data,
      pipelines: pipelines.body.data,
      members: members.body.data,
      settings: settings.body,
    };
  };
  const newContact = async (c: Client, extra: Record<string, unknown> = {}) => {
    const r = await c.post('/v1/contacts', { first_name: 'Test', last_name: 'Person', ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  const addMember = async (wsId: string, name: string) => {
    const r = await s.admin.post(`/admin/workspaces/${wsId}/members`, { name, email: `${name.toLowerCase()}@x.test` });
    expect(r.status).toBe(201);
    return r.body;
  };

  describe('admin API', () => {
    it('creates a workspace with real defaults', async () => {
      const r = await s.admin.post('/admin/workspaces', { name: 'Acme', slug: `acme-${kind}` });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ name: 'Acme', slug: `acme-${kind}`, plan: 'standard', rate_limit_per_minute: 120 });
      expect(r.body.id).toMatch(/^ws_/);
      const dup = await s.admin.post('/admin/workspaces', { name: 'Acme 2', slug: `acme-${kind}` });
      expectError(dup, 400, 'invalid_request_error', 'slug');

      const k = await s.admin.post(`/admin/workspaces/${r.body.id}/api-keys`, { scopes: ['read_contacts', 'WRITE_DEALS'], name: 'ci' });
      expect(k.status).toBe(201);
      expect(Object.keys(k.body).sort()).toEqual(['id', 'key_prefix', 'scopes', 'secret']);
      expect(k.body.secret.startsWith(k.body.key_prefix)).toBe(true);
      expect(k.body.scopes).toEqual(['read_contacts', 'write_deals']);

      const c = s.anon.withKey('x').withKey(k.body.secret);
      const d = await lookups(c);
      const pipeline = d.pipelines[0];
      expect(pipeline.stages.map((x: { type: string }) => x.type)).toEqual(expect.arrayContaining(['OPEN', 'CLOSED_WON', 'CLOSED_LOST']));
      expect(d.stages.length).toBeGreaterThan(0);
      expect(d.sources.length).toBeGreaterThan(0);
      // read_contacts does not cover transactions.
      expect((await c.get('/v1/transaction-settings')).status).toBe(403);
      const full = await s.key(r.body.id, ['full_access']);
      const settings = (await full.client.get('/v1/transaction-settings')).body;
      expect(settings.closing_stages.map((x: { status: string }) => x.status).sort()).toEqual([
        'active',
        'closed',
        'fell_through',
        'pending',
      ]);
      expect(settings.checklist_templates).toHaveLength(1);
      expect(settings.checklist_templates[0].items.length).toBeGreaterThan(0);

      const m = await s.admin.post(`/admin/workspaces/${r.body.id}/members`, { name: 'Dana', email: 'dana@x.test' });
      expect(m.status).toBe(201);
      expect(m.body).toMatchObject({ name: 'Dana', email: 'dana@x.test' });
      expect((await full.client.get('/v1/members')).body.data.map((x: { id: string }) => x.id)).toContain(m.body.id);
    });

    it('rejects a wrong admin token, unknown scopes, missing workspaces and keys', async () => {
      expectError(await s.anon.post('/admin/workspaces', { name: 'x', slug: 'x' }), 401, 'authentication_error');
      expectError(await s.anon.withKey('wrong').post('/admin/workspaces', { name: 'x', slug: 'x' }), 401, 'authentication_error');
      expectError(await s.admin.post('/admin/workspaces', { name: 'x' }), 400, 'invalid_request_error', 'slug');
      expectError(
        await s.admin.post(`/admin/workspaces/${A.id}/api-keys`, { scopes: ['read_everything'] }),
        400,
        'invalid_request_error',
        'scopes[0]',
      );
      expectError(await s.admin.post(`/admin/workspaces/${A.id}/api-keys`, { scopes: [] }), 400, 'invalid_request_error', 'scopes');
      expectError(await s.admin.post('/admin/workspaces/ws_nope/api-keys', { scopes: ['full_access'] }), 404, 'invalid_request_error');
      expectError(await s.admin.post('/admin/workspaces/ws_nope/members', { name: 'n', email: 'n@x.test' }), 404, 'invalid_request_error');
      expectError(await s.admin.del('/admin/api-keys/key_nope'), 404, 'invalid_request_error');
      // An API key is not an admin token.
      expectError(await a.post('/admin/workspaces', { name: 'x', slug: 'xx' }), 401, 'authentication_error');
    });
  });

  describe('authentication and identity', () => {
    it('GET /v1/me returns the workspace, key and upper-case scopes, never the secret', async () => {
      const k = await s.key(A.id, ['read_contacts', 'write_transactions']);
      const r = await k.client.get('/v1/me');
      expect(r.status).toBe(200);
      expect(r.body.workspace).toMatchObject({ id: A.id });
      expect(r.body.api_key).toEqual({ id: k.id, key_prefix: expect.any(String), scopes: ['READ_CONTACTS', 'WRITE_TRANSACTIONS'] });
      expect(r.body.rate_limit_per_minute).toBe(100000);
      expect(JSON.stringify(r.body)).not.toContain(k.secret);
    });

    it('answers 401 on every /v1 operation of the OpenAPI document without a valid key', async () => {
      const doc = (await s.anon.get('/v1/openapi.json')).body;
      let checked = 0;
      for (const [path, ops] of Object.entries<any>(doc.paths)) {
        if (!path.startsWith('/v1/')) continue;
        for (const method of Object.keys(ops)) {
          if (ops[method].security?.length === 0) continue;
          const url = path.replace(/\{[^}]+\}/g, 'x_missing');
          const body = ops[method].requestBody ? {} : undefined;
          expectError(await s.anon.call(method.toUpperCase(), url, body), 401, 'authentication_error');
          expectError(await s.anon.withKey('sk_live_wrong').call(method.toUpperCase(), url, body), 401, 'authentication_error');
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(21);
    });

    it('answers 401 authentication_error for missing, unknown, revoked and expired keys', async () => {
      expectError(await s.anon.get('/v1/me'), 401, 'authentication_error');
      expectError(await s.anon.get('/v1/me', { authorization: 'Basic abc' }), 401, 'authentication_error');
      expectError(await s.anon.withKey('sk_live_nope').get('/v1/contacts'), 401, 'authentication_error');
      const k = await s.key(A.id, ['full_access']);
      expect((await k.client.get('/v1/me')).status).toBe(200);
      expect((await s.admin.del(`/admin/api-keys/${k.id}`)).status).toBe(200);
      expectError(await k.client.get('/v1/me'), 401, 'authentication_error');

      const expiring = await s.key(A.id, ['full_access'], { expires_at: new Date(s.clock.now().getTime() + 60_000).toISOString() });
      expect((await expiring.client.get('/v1/me')).status).toBe(200);
      s.clock.advance(61_000);
      expectError(await expiring.client.get('/v1/me'), 401, 'authentication_error');
      expectError(
        await s.admin.post(`/admin/workspaces/${A.id}/api-keys`, { scopes: ['full_access'], expires_at: '2000-01-01T00:00:00Z' }),
        400,
        'invalid_request_error',
        'expires_at',
      );
    });
  });

  describe('scope matrix', () => {
    // [method, path template, scope that grants it]
    const table: [string, string, string][] = [
      ['GET', '/v1/contacts', 'read_contacts'],
      ['POST', '/v1/contacts', 'write_contacts'],
      ['GET', '/v1/contacts/{contact}', 'read_contacts'],
      ['PATCH', '/v1/contacts/{contact}', 'write_contacts'],
      ['PUT', '/v1/contacts/{contact}/tags/{tag}', 'write_contacts'],
      ['DELETE', '/v1/contacts/{contact}/tags/{tag}', 'write_contacts'],
      ['GET', '/v1/contacts/{contact}/activities', 'read_contacts'],
      ['POST', '/v1/contacts/{contact}/notes', 'write_contacts'],
      ['GET', '/v1/transactions', 'read_transactions'],
      ['POST', '/v1/transactions', 'write_transactions'],
      ['GET', '/v1/transactions/{txn}', 'read_transactions'],
      ['PATCH', '/v1/transactions/{txn}', 'write_transactions'],
      ['GET', '/v1/transactions/{txn}/workflow', 'read_transactions'],
      ['GET', '/v1/transaction-settings', 'read_transactions'],
      ['GET', '/v1/deals', 'read_deals'],
      ['POST', '/v1/deals', 'write_deals'],
      ['GET', '/v1/tags', 'read_tags'],
      ['GET', '/v1/contact-stages', 'read_contact_stages'],
      ['GET', '/v1/lead-sources', 'read_lead_sources'],
      ['GET', '/v1/members', 'read_members'],
      ['GET', '/v1/pipelines', 'read_pipelines'],
    ];
    const bodies: Record<string, unknown> = {
      'POST /v1/contacts': { first_name: 'S', last_name: 'M' },
      'PATCH /v1/contacts/{contact}': { notes: 'x' },
      'POST /v1/contacts/{contact}/notes': { body: 'hello' },
      'POST /v1/transactions': { name: 'T' },
      'PATCH /v1/transactions/{txn}': { notes: 'x' },
    };

    it('refuses keys without the scope (403) and accepts the scope, its write form and full_access', async () => {
      const full = A.client;
      const contact = await newContact(full);
      const tag = await createTag(s.store.db, A.id, `scope-${kind}`, null, s.clock.now());
      const txn = (await full.post('/v1/transactions', { name: 'Scope' })).body;
      const { pipelines } = await lookups(full);
      const dealBody = { name: 'D', stage_id: pipelines[0].stages[0].id };
      const path = (t: string) => t.replace('{contact}', contact.id).replace('{tag}', tag.id).replace('{txn}', txn.id);
      const cache = new Map<string, Client>();
      const keyFor = async (scopes: string[]) => {
        const id = scopes.join(',');
        if (!cache.has(id)) cache.set(id, (await s.key(A.id, scopes)).client);
        return cache.get(id)!;
      };
      for (const [method, tpl, scope] of table) {
        const body = method === 'POST' && tpl === '/v1/deals' ? dealBody : bodies[`${method} ${tpl}`];
        const resource = scope.replace(/^(read|write)_/, '');
        const other = resource === 'members' ? 'read_deals' : 'read_members';
        const denied = await (await keyFor([other])).call(method, path(tpl), body);
        expectError(denied, 403, 'permission_error');
        for (const granted of [[scope], [scope.replace('read_', 'write_')], ['full_access']]) {
          const ok = await (await keyFor(granted)).call(method, path(tpl), body);
          expect(ok.status, `${method} ${tpl} with ${granted}: ${JSON.stringify(ok.body)}`).toBeLessThan(300);
        }
        if (scope.startsWith('write_')) {
          const readOnly = await (await keyFor([scope.replace('write_', 'read_')])).call(method, path(tpl), body);
          expectError(readOnly, 403, 'permission_error');
        }
      }
      // Deleting needs write too; checked last since it removes the objects.
      expectError(await (await keyFor(['read_transactions'])).del(`/v1/transactions/${txn.id}`), 403, 'permission_error');
      expect((await (await keyFor(['write_transactions'])).del(`/v1/transactions/${txn.id}`)).status).toBe(200);
      expectError(await (await keyFor(['read_contacts'])).del(`/v1/contacts/${contact.id}`), 403, 'permission_error');
      expect((await (await keyFor(['write_contacts'])).del(`/v1/contacts/${contact.id}`)).status).toBe(200);
    });

    it('lets read_contacts read the contact lookups, and read_deals the pipelines', async () => {
      const k = (await s.key(A.id, ['read_contacts'])).client;
      for (const p of ['/v1/tags', '/v1/contact-stages', '/v1/lead-sources', '/v1/members']) expect((await k.get(p)).status).toBe(200);
      expectError(await k.get('/v1/pipelines'), 403, 'permission_error');
      expect((await (await s.key(A.id, ['read_deals'])).client.get('/v1/pipelines')).status).toBe(200);
    });

    it('answers 403 when the plan excludes the feature', async () => {
      const lite = await s.workspace({ plan: 'lite' });
      expectError(await lite.client.get('/v1/transactions'), 403, 'permission_error');
      expect((await lite.client.get('/v1/contacts')).status).toBe(200);
    });
  });

  describe('contacts', () => {
    it('creates with ordered rows and primary flags, and never returns the attribution token', async () => {
      const r = await a.post('/v1/contacts', {
        first_name: 'Ana',
        last_name: 'Lopez',
        emails: [
          { value: 'work@ana.test', label: 'Work', position: 1 },
          { value: 'home@ana.test', label: 'Home', position: 0, is_primary: true },
        ],
        phones: [
          { value: '+15550001', label: 'Mobile' },
          { value: '+15550002', label: 'Fax' },
        ],
        affiliate_attribution_token: 'secret-aff-token',
        custom_fields: {},
      });
      expect(r.status).toBe(201);
      expect(r.body.email).toBe('home@ana.test');
      expect(r.body.emails.map((e: any) => [e.value, e.is_primary, e.position])).toEqual([
        ['home@ana.test', true, 0],
        ['work@ana.test', false, 1],
      ]);
      expect(r.body.phone).toBe('+15550001');
      expect(r.body.phones[0].is_primary).toBe(true);
      expect(JSON.stringify(r.body)).not.toContain('secret-aff-token');
      expect(r.body).not.toHaveProperty('affiliate_attribution_token');
      // The spec's table spells the field _tokem; that spelling is accepted and hidden as well.
      const typo = await a.post('/v1/contacts', { first_name: 'T', last_name: 'Y', affiliate_attribution_tokem: 'typo-token' });
      expect(typo.status).toBe(201);
      expect(JSON.stringify(typo.body)).not.toContain('typo-token');
      const stored = await s.store.db.query('SELECT affiliate_attribution_token AS t FROM contacts WHERE id = $1', [typo.body.id]);
      expect(stored.rows[0].t).toBe('typo-token');
      for (const f of [
        'address',
        'city',
        'state',
        'zip_code',
        'company',
        'job_title',
        'notes',
        'stage',
        'lead_source',
        'owner',
        'last_activity_at',
      ]) {
        expect(r.body[f]).toBeNull();
      }
      expect(r.body.custom_fields).toEqual({});
      expect(r.body.tags).toEqual([]);
      const got = await a.get(`/v1/contacts/${r.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(r.body);
    });

    it('turns the email and phone shortcuts into the sole primary row', async () => {
      const c = await newContact(a, { email: 'solo@x.test', phone: '+1555' });
      expect(c.emails).toEqual([
        { id: expect.any(String), value: 'solo@x.test', label: expect.any(String), is_primary: true, position: 0 },
      ]);
      expect(c.phones).toHaveLength(1);
      const r = await a.patch(`/v1/contacts/${c.id}`, { email: 'new@x.test' });
      expect(r.body.emails.map((e: any) => e.value)).toEqual(['new@x.test']);
      expect(r.body.email).toBe('new@x.test');
      expect(r.body.phone).toBe('+1555');
      // A null list is no list: the shortcut still decides; alone, null empties the rows.
      const n = await newContact(a, { email: 'n@x.test', emails: null, phones: null });
      expect(n.emails.map((e: any) => e.value)).toEqual(['n@x.test']);
      expect(n.phones).toEqual([]);
      const cleared = await a.patch(`/v1/contacts/${n.id}`, { emails: null });
      expect(cleared.body.emails).toEqual([]);
      expect(cleared.body.email).toBeNull();
    });

    it('rejects missing names, unknown fields, wrong types, bad rows and non-JSON bodies', async () => {
      expectError(await a.post('/v1/contacts', { last_name: 'x' }), 400, 'invalid_request_error', 'first_name');
      expectError(await a.post('/v1/contacts', { first_name: 'x' }), 400, 'invalid_request_error', 'last_name');
      expectError(await a.post('/v1/contacts', { first_name: '', last_name: 'x' }), 400, 'invalid_request_error', 'first_name');
      // A name of only whitespace is as empty as '' (docs/api.md, "Text fields"), on creation and update alike.
      const blankName = await a.post('/v1/contacts', { first_name: 'x', last_name: ' \t' });
      expectError(blankName, 400, 'invalid_request_error', 'last_name');
      expect(blankName.body.error.message).toBe('Invalid last_name: must not be empty or only whitespace');
      expectError(
        await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', nickname: 'z' }),
        400,
        'invalid_request_error',
        'nickname',
      );
      expectError(await a.post('/v1/contacts', { first_name: 'x', last_name: 7 }), 400, 'invalid_request_error', 'last_name');
      expectError(
        await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', emails: [{ value: 'a@b' }] }),
        400,
        'invalid_request_error',
        'emails[0].label',
      );
      expectError(
        await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', phones: [{ value: '1', label: 'Pager' }] }),
        400,
        'invalid_request_error',
        'phones[0].label',
      );
      expectError(
        await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', stage_id: 'cst_nope' }),
        400,
        'invalid_request_error',
        'stage_id',
      );
      expectError(
        await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', owner_id: 'mem_nope' }),
        400,
        'invalid_request_error',
        'owner_id',
      );
      expectError(
        await a.post('/v1/contacts', 'first_name=x', { 'content-type': 'application/x-www-form-urlencoded' }),
        415,
        'invalid_request_error',
      );
      expectError(await a.post('/v1/contacts', 'hello', { 'content-type': 'text/plain' }), 415, 'invalid_request_error');
      expectError(await a.post('/v1/contacts', '{"first_name":', {}), 400, 'invalid_request_error');
      expectError(await a.post('/v1/contacts', [1, 2]), 400, 'invalid_request_error');
      expectError(await a.patch('/v1/contacts/con_nope', { notes: 'x' }), 404, 'invalid_request_error');
      expectError(await a.get('/v1/contacts/con_nope'), 404, 'invalid_request_error');
    });

    it('updates partially: empty strings clear, custom_fields and rows replace, the timeline records changes', async () => {
      const { stages, sources } = await lookups(a);
      const owner = await addMember(A.id, 'Olive');
      const c = await newContact(a, {
        stage_id: stages[0].id,
        lead_source_id: sources[0].id,
        owner_id: owner.id,
        custom_fields: { cf_a: '1', cf_b: 2 },
        emails: [
          { value: 'one@x.test', label: 'Home' },
          { value: 'two@x.test', label: 'Work' },
        ],
        company: 'Acme',
      });
      expect(c.stage.id).toBe(stages[0].id);
      expect(c.owner).toEqual({ id: owner.id, name: 'Olive' });
      s.clock.advance(1000);
      const keepId = c.emails[1].id;
      const r = await a.patch(`/v1/contacts/${c.id}`, {
        stage_id: stages[1].id,
        custom_fields: { cf_c: true },
        emails: [{ id: keepId, value: 'two@x.test', label: 'Work', is_primary: true }],
      });
      expect(r.status).toBe(200);
      expect(r.body.stage).toEqual({ id: stages[1].id, name: stages[1].name });
      expect(r.body.custom_fields).toEqual({ cf_c: true });
      expect(r.body.emails).toEqual([{ id: keepId, value: 'two@x.test', label: 'Work', is_primary: true, position: 0 }]);
      expect(r.body.company).toBe('Acme');
      expect(r.body.lead_source.id).toBe(sources[0].id);
      expect(Date.parse(r.body.updated_at)).toBeGreaterThan(Date.parse(c.updated_at));

      s.clock.advance(1000);
      const cleared = await a.patch(`/v1/contacts/${c.id}`, { stage_id: '', lead_source_id: '', owner_id: '' });
      expect(cleared.body.stage).toBeNull();
      expect(cleared.body.lead_source).toBeNull();
      expect(cleared.body.owner).toBeNull();
      expect(cleared.body.custom_fields).toEqual({ cf_c: true });

      const timeline = (await a.get(`/v1/contacts/${c.id}/activities?limit=100`)).body.data;
      const types = timeline.map((x: any) => x.type);
      expect(types).toContain('contact_created');
      expect(types.filter((t: string) => t === 'stage_changed')).toHaveLength(2);
      expect(types).toContain('owner_changed');
      const updates = timeline.filter((x: any) => x.type === 'contact_updated');
      expect(updates).toHaveLength(2);
      expect(updates[1].metadata.changed_fields.sort()).toEqual(['custom_fields', 'emails', 'stage_id']);
      expect(updates[0].metadata.changed_fields.sort()).toEqual(['lead_source_id', 'owner_id', 'stage_id']);
      expect(timeline[timeline.length - 1].type).toBe('contact_created');

      // Outbox: contact.created, then contact.updated only for the stage changes.
      const events = await s.store.db.query(
        `SELECT type, changed_fields FROM events WHERE workspace_id = $1 AND data->>'id' = $2 ORDER BY created_at, type`,
        [A.id, c.id],
      );
      expect(events.rows.map((e) => e.type)).toEqual(['contact.created', 'contact.updated', 'contact.updated']);
      expect(events.rows[1].changed_fields).toContain('stage_id');
      const noStage = await a.patch(`/v1/contacts/${c.id}`, { notes: 'no stage change' });
      expect(noStage.body.notes).toBe('no stage change');
      const after = await s.store.db.query(`SELECT count(*)::int AS n FROM events WHERE type = 'contact.updated' AND data->>'id' = $1`, [
        c.id,
      ]);
      expect(after.rows[0].n).toBe(2);
    });

    it('a PATCH may send null for first_name or last_name (nullable like every field): it leaves the name as it is', async () => {
      const c = await newContact(a, { first_name: 'Nell', last_name: 'Null', company: 'Keep' });
      s.clock.advance(1000);
      const r = await a.patch(`/v1/contacts/${c.id}`, { first_name: null, last_name: null, company: 'Changed' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ first_name: 'Nell', last_name: 'Null', company: 'Changed' });
      const timeline = (await a.get(`/v1/contacts/${c.id}/activities`)).body.data;
      expect(timeline[0].metadata.changed_fields).toEqual(['company']);
      // Nothing else sent: nothing changes, nothing is written.
      const same = await a.patch(`/v1/contacts/${c.id}`, { first_name: null });
      expect(same.body.updated_at).toBe(r.body.updated_at);
      // A name cannot be emptied.
      expectError(await a.patch(`/v1/contacts/${c.id}`, { first_name: '' }), 400, 'invalid_request_error', 'first_name');
      expectError(await a.patch(`/v1/contacts/${c.id}`, { last_name: '' }), 400, 'invalid_request_error', 'last_name');
      expectError(await a.patch(`/v1/contacts/${c.id}`, { first_name: '   ' }), 400, 'invalid_request_error', 'first_name');
      expect((await a.get(`/v1/contacts/${c.id}`)).body).toMatchObject({ first_name: 'Nell', last_name: 'Null' });
    });

    it('deletes the contact and its timeline but keeps opt-outs', async () => {
      const c = await newContact(a, { email: 'optout@x.test' });
      await a.post(`/v1/contacts/${c.id}/notes`, { body: 'hi' });
      await optOut(s.store.db, A.id, 'email', 'optout@x.test', s.clock.now());
      const r = await a.del(`/v1/contacts/${c.id}`);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ id: c.id, deleted: true });
      expectError(await a.get(`/v1/contacts/${c.id}`), 404, 'invalid_request_error');
      expectError(await a.del(`/v1/contacts/${c.id}`), 404, 'invalid_request_error');
      expectError(await a.get(`/v1/contacts/${c.id}/activities`), 404, 'invalid_request_error');
      const left = await s.store.db.query('SELECT count(*)::int AS n FROM activities WHERE contact_id = $1', [c.id]);
      expect(left.rows[0].n).toBe(0);
      // Re-added, the person is still unsubscribed.
      await newContact(a, { email: 'optout@x.test' });
      expect(await isOptedOut(s.store.db, A.id, 'email', 'optout@x.test')).toBe(true);
      const ev = await s.store.db.query(`SELECT data FROM events WHERE type = 'contact.deleted' AND data->>'id' = $1`, [c.id]);
      expect(ev.rows[0].data).toEqual({ id: c.id });
    });

    it('adds and removes workspace tags; 404 for a missing contact or tag', async () => {
      const c = await newContact(a);
      const tag = await createTag(s.store.db, A.id, `VIP-${kind}`, '#ff0000', s.clock.now());
      const r1 = await a.put(`/v1/contacts/${c.id}/tags/${tag.id}`);
      expect(r1.status).toBe(200);
      expect(r1.body.tags).toEqual([{ id: tag.id, name: tag.name, color: '#ff0000' }]);
      const r2 = await a.put(`/v1/contacts/${c.id}/tags/${tag.id}`);
      expect(r2.body.tags).toHaveLength(1);
      expectError(await a.put(`/v1/contacts/${c.id}/tags/tag_nope`), 404, 'invalid_request_error', 'tag_id');
      expectError(await a.put(`/v1/contacts/con_nope/tags/${tag.id}`), 404, 'invalid_request_error', 'contact_id');
      expectError(await a.del(`/v1/contacts/con_nope/tags/${tag.id}`), 404, 'invalid_request_error');
      const tagged = await a.get(`/v1/contacts?tag_id=${tag.id}`);
      expect(tagged.body.data.map((x: any) => x.id)).toEqual([c.id]);
      const r3 = await a.del(`/v1/contacts/${c.id}/tags/${tag.id}`);
      expect(r3.status).toBe(200);
      expect(r3.body.tags).toEqual([]);
      expect((await a.get('/v1/tags')).body.data.map((t: any) => t.id)).toContain(tag.id);
    });

    it('deleting a tag, contact stage or lead source moves updated_at of the contacts that had it, so updated_after finds them', async () => {
      const W = await s.workspace();
      const c = W.client;
      const tag = (await c.post('/v1/tags', { name: 'Gone soon', color: '#00ff00' })).body;
      const stage = (await c.post('/v1/contact-stages', { name: 'Gone stage' })).body;
      const source = (await c.post('/v1/lead-sources', { name: 'Gone source' })).body;
      const tagged = await newContact(c, { first_name: 'Tagged' });
      await c.put(`/v1/contacts/${tagged.id}/tags/${tag.id}`);
      const staged = await newContact(c, { first_name: 'Staged', stage_id: stage.id });
      const sourced = await newContact(c, { first_name: 'Sourced', lead_source_id: source.id });
      const untouched = await newContact(c, { first_name: 'Untouched' });
      // Read once, so the lists' text and count caches hold them before the deletions.
      expect((await c.get('/v1/contacts?limit=100')).body.total_count).toBe(4);

      const since = async () => {
        s.clock.advance(60_000);
        return s.clock.now().toISOString();
      };
      const changed = async (after: string) => (await c.get(`/v1/contacts?limit=100&updated_after=${after}`)).body.data;
      for (const [path, id, contact, check] of [
        [`/v1/tags/${tag.id}`, tag.id, tagged, (x: any) => expect(x.tags).toEqual([])],
        [`/v1/contact-stages/${stage.id}`, stage.id, staged, (x: any) => expect(x.stage).toBeNull()],
        [`/v1/lead-sources/${source.id}`, source.id, sourced, (x: any) => expect(x.lead_source).toBeNull()],
      ] as const) {
        const after = await since();
        const r = await c.del(path);
        expect(r.body, path).toEqual({ id, deleted: true });
        const seen = await changed(after);
        expect(
          seen.map((x: any) => x.id),
          path,
        ).toEqual([contact.id]);
        expect(seen[0].updated_at).toBe(after);
        check(seen[0]);
        const one = (await c.get(`/v1/contacts/${contact.id}`)).body;
        expect(one).toEqual(seen[0]);
      }
      const all = (await c.get('/v1/contacts?limit=100')).body;
      expect(all.total_count).toBe(4);
      expect(all.data.find((x: any) => x.id === untouched.id).updated_at).toBe(untouched.updated_at);
      expectError(await c.del(`/v1/tags/${tag.id}`), 404, 'invalid_request_error', 'id');
      // The webhook events stay as docs/events.md lists them: a deletion of a lookup is no contact.updated.
      const events = (await c.get('/v1/events?type=contact.updated')).body;
      expect(events.total_count).toBe(0);
    });

    it('renaming a tag, contact stage or lead source (or recolouring a tag) moves updated_at of the contacts that show it; a PATCH that changes nothing writes none', async () => {
      const W = await s.workspace();
      const c = W.client;
      const tag = (await c.post('/v1/tags', { name: 'Buyer', color: '#00ff00' })).body;
      const other = (await c.post('/v1/tags', { name: 'Seller', color: null })).body;
      const stage = (await c.post('/v1/contact-stages', { name: 'Warm' })).body;
      const source = (await c.post('/v1/lead-sources', { name: 'Flyer' })).body;
      const tagged = await newContact(c, { first_name: 'Tagged' });
      await c.put(`/v1/contacts/${tagged.id}/tags/${tag.id}`);
      await c.put(`/v1/contacts/${tagged.id}/tags/${other.id}`);
      const staged = await newContact(c, { first_name: 'Staged', stage_id: stage.id });
      const sourced = await newContact(c, { first_name: 'Sourced', lead_source_id: source.id });
      const otherTagged = await newContact(c, { first_name: 'Other tag' });
      await c.put(`/v1/contacts/${otherTagged.id}/tags/${other.id}`);
      const untouched = await newContact(c, { first_name: 'Untouched' });
      // Read once, so the lists' text and count caches hold them before the renames.
      const before = (await c.get('/v1/contacts?limit=100')).body;
      expect(before.total_count).toBe(5);
      const updatedAt = new Map<string, string>(before.data.map((x: any) => [x.id, x.updated_at]));

      const since = async () => {
        s.clock.advance(60_000);
        return s.clock.now().toISOString();
      };
      const changed = async (after: string) => (await c.get(`/v1/contacts?limit=100&updated_after=${after}`)).body.data;
      const versions = async () =>
        (await s.store.db.query('SELECT id, xmin::text AS v FROM contacts WHERE workspace_id = $1 ORDER BY id', [W.id])).rows;
      for (const [path, body, contact, check] of [
        [
          `/v1/tags/${tag.id}`,
          { name: 'Buyer (hot)' },
          tagged,
          (x: any) =>
            expect(x.tags).toEqual([
              { id: tag.id, name: 'Buyer (hot)', color: '#00ff00' },
              { id: other.id, name: 'Seller', color: null },
            ]),
        ],
        [
          `/v1/tags/${tag.id}`,
          { color: '#ff0000' },
          tagged,
          (x: any) => expect(x.tags[0]).toEqual({ id: tag.id, name: 'Buyer (hot)', color: '#ff0000' }),
        ],
        [
          `/v1/tags/${tag.id}`,
          { name: 'Top buyer', color: '#ff0000' },
          tagged,
          (x: any) => expect(x.tags.map((t: any) => t.name)).toEqual(['Seller', 'Top buyer']),
        ],
        [`/v1/contact-stages/${stage.id}`, { name: 'Hot' }, staged, (x: any) => expect(x.stage).toEqual({ id: stage.id, name: 'Hot' })],
        [
          `/v1/lead-sources/${source.id}`,
          { name: 'Mailer' },
          sourced,
          (x: any) => expect(x.lead_source).toEqual({ id: source.id, name: 'Mailer' }),
        ],
      ] as const) {
        const after = await since();
        const r = await c.patch(path, body);
        expect(r.status, path).toBe(200);
        const seen = await changed(after);
        expect(
          seen.map((x: any) => x.id),
          `${path} ${JSON.stringify(body)}`,
        ).toEqual([contact.id]);
        expect(seen[0].updated_at).toBe(after);
        check(seen[0]);
        updatedAt.set(contact.id, after);
        // The whole list, served again after the rename, shows the new name as GET /v1/contacts/:id does.
        const all = (await c.get('/v1/contacts?limit=100')).body;
        const one = (await c.get(`/v1/contacts/${contact.id}`)).body;
        expect(one).toEqual(seen[0]);
        expect(all.data.find((x: any) => x.id === contact.id)).toEqual(one);
        expect(new Map(all.data.map((x: any) => [x.id, x.updated_at]))).toEqual(updatedAt);
      }

      // A PATCH that changes nothing a contact shows (the same name and colour, or nothing at all)
      // writes no contact: their updated_at and row versions stay.
      const rows = await versions();
      for (const [path, body] of [
        [`/v1/tags/${tag.id}`, { name: 'Top buyer' }],
        [`/v1/tags/${tag.id}`, { name: 'Top buyer', color: '#ff0000' }],
        [`/v1/tags/${tag.id}`, { color: '#ff0000' }],
        [`/v1/tags/${tag.id}`, {}],
        [`/v1/contact-stages/${stage.id}`, { name: 'Hot' }],
        [`/v1/lead-sources/${source.id}`, { name: 'Mailer' }],
        [`/v1/lead-sources/${source.id}`, {}],
      ] as const) {
        const after = await since();
        const r = await c.patch(path, body);
        expect(r.status, path).toBe(200);
        expect(await changed(after), `${path} ${JSON.stringify(body)}`).toEqual([]);
      }
      expect(await versions()).toEqual(rows);
      const all = (await c.get('/v1/contacts?limit=100')).body;
      expect(all.total_count).toBe(5);
      expect(all.data.find((x: any) => x.id === untouched.id).updated_at).toBe(untouched.updated_at);
      expect(all.data.find((x: any) => x.id === otherTagged.id).updated_at).toBe(otherTagged.updated_at);
      expectError(await c.patch('/v1/tags/tag_nope', { name: 'x' }), 404, 'invalid_request_error', 'id');
      // As for a deletion: a rename is no contact.updated event and no timeline entry.
      expect((await c.get('/v1/events?type=contact.updated')).body.total_count).toBe(0);
      const timeline = (await c.get(`/v1/contacts/${tagged.id}/activities?limit=100`)).body.data;
      expect(timeline.map((x: any) => x.type)).toEqual(['contact_created']);
    });
  });

  describe('contact list', () => {
    it('filters with AND, pages newest first and counts every match', async () => {
      const W = await s.workspace();
      const c = W.client;
      const { stages, sources } = await lookups(c);
      const owner = await addMember(W.id, 'Finn');
      const t0 = s.clock.now().toISOString();
      const made: any[] = [];
      for (let i = 0; i < 7; i++) {
        s.clock.advance(1000);
        made.push(
          await newContact(c, {
            first_name: `Name${i}`,
            company: i % 2 ? 'Blue Harbor' : 'Red Rock',
            email: `p${i}@filter.test`,
            phone: `+1207555${i}000`,
            stage_id: stages[i % 2].id,
            lead_source_id: sources[i % 3].id,
            owner_id: i < 3 ? owner.id : null,
          }),
        );
      }
      const ids = (r: any) => r.body.data.map((x: any) => x.id);
      const newestFirst = [...made].reverse().map((x) => x.id);
      const all = await c.get('/v1/contacts?limit=100');
      expect(ids(all)).toEqual(newestFirst);
      expect(all.body.total_count).toBe(7);
      expect(all.body.has_more).toBe(false);
      expect(all.body.next_cursor ?? null).toBeNull();

      expect(ids(await c.get('/v1/contacts?q=blue%20harbor'))).toEqual(newestFirst.filter((_, i) => (6 - i) % 2 === 1));
      expect(ids(await c.get('/v1/contacts?q=P3%40FILTER'))).toEqual([made[3].id]);
      expect(ids(await c.get('/v1/contacts?q=name5'))).toEqual([made[5].id]);
      expect(ids(await c.get('/v1/contacts?q=2075554'))).toEqual([made[4].id]);
      expect(ids(await c.get('/v1/contacts?q=%25'))).toEqual([]);
      expect(ids(await c.get(`/v1/contacts?stage_id=${stages[0].id}`))).toEqual(newestFirst.filter((_, i) => (6 - i) % 2 === 0));
      expect(ids(await c.get(`/v1/contacts?lead_source_id=${sources[0].id}`)).sort()).toEqual([made[0].id, made[3].id, made[6].id].sort());
      expect(ids(await c.get(`/v1/contacts?owner_id=${owner.id}`))).toEqual([made[2].id, made[1].id, made[0].id]);
      expect(ids(await c.get(`/v1/contacts?email=P2@filter.test`))).toEqual([made[2].id]);
      expect(ids(await c.get(`/v1/contacts?stage_id=${stages[0].id}&owner_id=${owner.id}`))).toEqual([made[2].id, made[0].id]);
      const mid = made[3].created_at;
      expect(ids(await c.get(`/v1/contacts?created_after=${encodeURIComponent(mid)}`))).toEqual(newestFirst.slice(0, 4));
      expect(ids(await c.get(`/v1/contacts?created_before=${encodeURIComponent(mid)}`))).toEqual(newestFirst.slice(3));
      expect(
        ids(await c.get(`/v1/contacts?created_after=${encodeURIComponent(t0)}&created_before=${encodeURIComponent(mid)}`)),
      ).toHaveLength(4);
      s.clock.advance(60_000);
      const since = s.clock.now().toISOString();
      await c.patch(`/v1/contacts/${made[1].id}`, { job_title: 'Broker' });
      expect(ids(await c.get(`/v1/contacts?updated_after=${encodeURIComponent(since)}`))).toEqual([made[1].id]);
      const page = await c.get('/v1/contacts?limit=3&q=blue');
      expect(page.body.total_count).toBe(3);
      expect(page.body.has_more).toBe(false);
    });

    it('rejects bad limits, cursors and duplicate query parameters', async () => {
      expectError(await a.get('/v1/contacts?limit=0'), 400, 'invalid_request_error', 'limit');
      expectError(await a.get('/v1/contacts?limit=101'), 400, 'invalid_request_error', 'limit');
      expectError(await a.get('/v1/contacts?limit=ten'), 400, 'invalid_request_error', 'limit');
      expectError(await a.get('/v1/contacts?cursor=garbage'), 400, 'invalid_request_error', 'cursor');
      expectError(await a.get('/v1/contacts?stage_id=a&stage_id=b'), 400, 'invalid_request_error', 'stage_id');
      expectError(await a.get('/v1/contacts?created_after=yesterday'), 400, 'invalid_request_error', 'created_after');
    });

    it('pages without duplicates or gaps while contacts are inserted concurrently', async () => {
      const W = await s.workspace();
      const c = W.client;
      const before: string[] = [];
      for (let i = 0; i < 25; i++) {
        // Several share a timestamp: the id breaks the tie.
        if (i % 3 === 0) s.clock.advance(1000);
        before.push((await newContact(c, { first_name: `P${i}` })).id);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let inserted = 0;
      do {
        const [page] = await Promise.all([
          c.get(`/v1/contacts?limit=4${cursor ? `&cursor=${cursor}` : ''}`),
          (async () => {
            s.clock.advance(500);
            await newContact(c, { first_name: `Concurrent${inserted++}` });
          })(),
        ]);
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((x: any) => x.id));
        cursor = page.body.next_cursor ?? null;
        expect(page.body.has_more).toBe(cursor !== null);
        pages++;
      } while (cursor && pages < 50);
      expect(new Set(seen).size).toBe(seen.length);
      // Every contact that existed before paging started was returned exactly once, in order.
      const seenBefore = seen.filter((id) => before.includes(id));
      expect(seenBefore).toHaveLength(before.length);
      expect(seenBefore).toEqual(seenBefore.slice().sort((x, y) => seen.indexOf(x) - seen.indexOf(y)));
      const full = await c.get('/v1/contacts?limit=100');
      expect(full.body.total_count).toBe(25 + inserted);
    });
  });

  describe('activities and notes', () => {
    it('lists newest first, excludes private notes and masks private mailboxes for other members', async () => {
      const bob = await addMember(A.id, 'Bob');
      const amy = await addMember(A.id, 'Amy');
      const c = await newContact(a);
      const mailbox = await createMailbox(s.store.db, A.id, bob.id, 'bob@x.test', true);
      const openMailbox = await createMailbox(s.store.db, A.id, amy.id, 'amy@x.test', false);
      await s.store.db.transaction(async (tx) => {
        s.clock.advance(1000);
        await addActivity(
          tx,
          A.id,
          c.id,
          { type: 'note', title: 'Secret', description: 'private', is_private: true, actor_member_id: bob.id },
          s.clock.now(),
        );
        s.clock.advance(1000);
        await addActivity(
          tx,
          A.id,
          c.id,
          {
            type: 'email',
            title: 'Offer details',
            description: 'numbers',
            actor_member_id: bob.id,
            mailbox_id: mailbox,
            metadata: { to: 'x' },
          },
          s.clock.now(),
        );
        s.clock.advance(1000);
        await addActivity(
          tx,
          A.id,
          c.id,
          { type: 'email', title: 'Open email', description: 'hello', actor_member_id: amy.id, mailbox_id: openMailbox },
          s.clock.now(),
        );
      });
      s.clock.advance(1000);
      const note = await a.post(`/v1/contacts/${c.id}/notes`, { body: 'Called, left voicemail' });
      expect(note.status).toBe(201);
      expect(note.body).toMatchObject({ type: 'note', description: 'Called, left voicemail', actor_name: null });

      const asAmy = (await s.key(A.id, ['read_contacts'], { member_id: amy.id })).client;
      const list = (await asAmy.get(`/v1/contacts/${c.id}/activities`)).body;
      expect(list.data.map((x: any) => x.type)).toEqual(['note', 'email', 'email', 'contact_created']);
      expect(list.total_count).toBe(4);
      expect(JSON.stringify(list)).not.toContain('Secret');
      expect(list.data[2]).toEqual({
        id: expect.any(String),
        type: 'email',
        title: 'Private email exchange',
        description: null,
        metadata: null,
        actor_name: null,
        created_at: expect.any(String),
      });
      expect(list.data[1]).toMatchObject({ title: 'Open email', description: 'hello', actor_name: 'Amy' });

      const asBob = (await s.key(A.id, ['read_contacts'], { member_id: bob.id })).client;
      const bobView = (await asBob.get(`/v1/contacts/${c.id}/activities`)).body;
      expect(bobView.data[2]).toMatchObject({ title: 'Offer details', description: 'numbers', actor_name: 'Bob', metadata: { to: 'x' } });
      // A key with no creator sees the mask too.
      expect((await a.get(`/v1/contacts/${c.id}/activities`)).body.data[2].title).toBe('Private email exchange');

      const p1 = (await a.get(`/v1/contacts/${c.id}/activities?limit=3`)).body;
      expect(p1.has_more).toBe(true);
      const p2 = (await a.get(`/v1/contacts/${c.id}/activities?limit=3&cursor=${p1.next_cursor}`)).body;
      expect([...p1.data, ...p2.data].map((x: any) => x.id)).toEqual(list.data.map((x: any) => x.id));
      expect(p2.has_more).toBe(false);
    });

    it('validates note length and updates last_activity_at', async () => {
      const c = await newContact(a);
      expect(c.last_activity_at).toBeNull();
      expectError(await a.post(`/v1/contacts/${c.id}/notes`, { body: '' }), 400, 'invalid_request_error', 'body');
      for (const blank of [' ', '  \n\t ', '\u00a0\u2003']) {
        const r = await a.post(`/v1/contacts/${c.id}/notes`, { body: blank });
        expectError(r, 400, 'invalid_request_error', 'body');
        expect(r.body.error.message).toBe('Invalid body: must not be empty or only whitespace');
      }
      expectError(await a.post(`/v1/contacts/${c.id}/notes`, { body: 'x'.repeat(10001) }), 400, 'invalid_request_error', 'body');
      expectError(await a.post(`/v1/contacts/${c.id}/notes`, {}), 400, 'invalid_request_error', 'body');
      expectError(await a.post('/v1/contacts/con_nope/notes', { body: 'x' }), 404, 'invalid_request_error');
      s.clock.advance(5000);
      const r = await a.post(`/v1/contacts/${c.id}/notes`, { body: 'x'.repeat(10000) });
      expect(r.status).toBe(201);
      const after = (await a.get(`/v1/contacts/${c.id}`)).body;
      expect(after.last_activity_at).toBe(s.clock.now().toISOString());
      // The contact reads differently, so its updated_at moves and an incremental sync finds it.
      expect(after.updated_at).toBe(s.clock.now().toISOString());
      const synced = (await a.get(`/v1/contacts?limit=100&updated_after=${encodeURIComponent(after.updated_at)}`)).body.data;
      expect(synced.map((x: { id: string }) => x.id)).toContain(c.id);
      // The limit counts characters (code points), not bytes or UTF-16 units: 10,000 emoji are
      // 40,000 bytes and 20,000 units, and are a note; one more is not.
      expect((await a.post(`/v1/contacts/${c.id}/notes`, { body: '😀'.repeat(10000) })).status).toBe(201);
      expectError(await a.post(`/v1/contacts/${c.id}/notes`, { body: '😀'.repeat(10001) }), 400, 'invalid_request_error', 'body');
      const ev = await s.store.db.query(`SELECT count(*)::int AS n FROM events WHERE type = 'note.created' AND data->>'contact_id' = $1`, [
        c.id,
      ]);
      expect(ev.rows[0].n).toBe(2);
    });
  });

  describe('deals', () => {
    it('creates with status from the stage type and validates value and dates', async () => {
      const { pipelines } = await lookups(a);
      const p = pipelines[0];
      const open = p.stages.find((x: any) => x.type === 'OPEN');
      const won = p.stages.find((x: any) => x.type === 'CLOSED_WON');
      const lost = p.stages.find((x: any) => x.type === 'CLOSED_LOST');
      const contact = await newContact(a);
      s.clock.advance(1000);
      const d1 = await a.post('/v1/deals', {
        name: 'Open deal',
        stage_id: open.id,
        value: '1250.5',
        contact_id: contact.id,
        expected_close_date: '2026-05-01',
      });
      expect(d1.status).toBe(201);
      expect(d1.body).toMatchObject({
        name: 'Open deal',
        status: 'open',
        value: '1250.50',
        contact_id: contact.id,
        pipeline: { id: p.id, name: p.name },
        stage: { id: open.id, name: open.name, type: 'OPEN' },
        expected_close_date: '2026-05-01T00:00:00.000Z',
        closed_at: null,
        lost_reason: null,
        listing_label: null,
        notes: null,
      });
      s.clock.advance(1000);
      const d2 = await a.post('/v1/deals', { name: 'Won deal', stage_id: won.id, expected_close_date: '2026-05-01T12:30:00-04:00' });
      expect(d2.body.status).toBe('won');
      expect(d2.body.closed_at).toBe(s.clock.now().toISOString());
      expect(d2.body.expected_close_date).toBe('2026-05-01T16:30:00.000Z');
      s.clock.advance(1000);
      const d3 = await a.post('/v1/deals', { name: 'Lost deal', stage_id: lost.id, value: null });
      expect(d3.body.status).toBe('lost');
      expect(d3.body.value).toBeNull();

      expectError(await a.post('/v1/deals', { name: 'x', stage_id: open.id, value: '1.234' }), 400, 'invalid_request_error', 'value');
      expectError(await a.post('/v1/deals', { name: 'x', stage_id: open.id, value: 12 }), 400, 'invalid_request_error', 'value');
      expectError(await a.post('/v1/deals', { name: ' ', stage_id: open.id }), 400, 'invalid_request_error', 'name');
      expectError(
        await a.post('/v1/deals', { name: 'x', stage_id: open.id, expected_close_date: 'next week' }),
        400,
        'invalid_request_error',
        'expected_close_date',
      );
      expectError(await a.post('/v1/deals', { name: 'x', stage_id: 'stg_nope' }), 400, 'invalid_request_error', 'stage_id');
      expectError(await a.post('/v1/deals', { stage_id: open.id }), 400, 'invalid_request_error', 'name');
      expectError(await a.post('/v1/deals', { name: 'x' }), 400, 'invalid_request_error', 'stage_id');
      expectError(
        await a.post('/v1/deals', { name: 'x', stage_id: open.id, contact_id: 'con_nope' }),
        400,
        'invalid_request_error',
        'contact_id',
      );

      const ids = async (q: string) => (await a.get(`/v1/deals?limit=100${q}`)).body.data.map((x: any) => x.id);
      expect((await ids('')).slice(0, 3)).toEqual([d3.body.id, d2.body.id, d1.body.id]);
      expect(await ids('&status=won')).toContain(d2.body.id);
      expect(await ids('&status=won')).not.toContain(d1.body.id);
      expect(await ids(`&stage_id=${lost.id}`)).toContain(d3.body.id);
      expect(await ids(`&contact_id=${contact.id}`)).toEqual([d1.body.id]);
      expect(await ids(`&pipeline_id=${p.id}`)).toContain(d1.body.id);
      expect(await ids('&pipeline_id=pip_nope')).toEqual([]);
      expectError(await a.get('/v1/deals?status=maybe'), 400, 'invalid_request_error', 'status');
      const page = (await a.get('/v1/deals?limit=1')).body;
      expect(page.has_more).toBe(true);
      expect(page.total_count).toBeGreaterThanOrEqual(3);
    });

    it('refuses close dates and values the store cannot hold, naming the field and the limit', async () => {
      const { pipelines } = await lookups(a);
      const open = pipelines[0].stages.find((x: any) => x.type === 'OPEN');
      const deal = (body: Record<string, unknown>) => a.post('/v1/deals', { name: 'Edge', stage_id: open.id, ...body });
      // Year 0, years past 9999, days that do not exist (once rolled over to March), offsets PostgreSQL refuses.
      for (const date of [
        '0000-01-01',
        '+275760-09-13',
        '2026-02-30',
        '2026-04-31',
        '2026-02-30T10:00:00Z',
        '0000-01-01T00:00:00Z',
        '2026-01-01T00:00:00+16:00',
        '0001-01-01T00:00:00+01:00',
      ]) {
        const r = await deal({ expected_close_date: date });
        expectError(r, 400, 'invalid_request_error', 'expected_close_date');
      }
      expect((await deal({ expected_close_date: '2026-02-30' })).body.error.message).toMatch(/real day/);
      expect((await deal({ expected_close_date: '0001-01-01' })).body.expected_close_date).toBe('0001-01-01T00:00:00.000Z');
      expect((await deal({ expected_close_date: '9999-12-31T23:59:59.999Z' })).body.expected_close_date).toBe('9999-12-31T23:59:59.999Z');
      expect((await deal({ expected_close_date: '2028-02-29T10:00:00+15:59' })).body.expected_close_date).toBe('2028-02-28T18:01:00.000Z');
      // Amounts: below 10^15, as transactions' (the column would hold one digit more).
      for (const value of ['99999999999999999999.99', '1000000000000000', '-1000000000000000.00']) {
        const r = await deal({ value });
        expectError(r, 400, 'invalid_request_error', 'value');
        expect(r.body.error.message).toMatch(/1,000,000,000,000,000/);
      }
      expect((await deal({ value: '999999999999999.99' })).body.value).toBe('999999999999999.99');
      expect((await deal({ value: '-999999999999999.99' })).body.value).toBe('-999999999999999.99');
    });

    it('keeps status derived from the stage type when PATCH /v1/pipelines/{id} changes the type, list filters included', async () => {
      const made = await a.post('/v1/pipelines', {
        name: `Types ${kind}`,
        stages: [{ name: 'A' }, { name: 'B' }, { name: 'Won', type: 'CLOSED_WON' }, { name: 'Lost', type: 'CLOSED_LOST' }],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const p = made.body;
      const [stA, stB] = p.stages;
      const d = (await a.post('/v1/deals', { name: 'In A', stage_id: stA.id })).body;
      const other = (await a.post('/v1/deals', { name: 'In B', stage_id: stB.id })).body;
      expect(d.status).toBe('open');
      const stages = (types: string[]) => p.stages.map((x: any, i: number) => ({ id: x.id, name: x.name, type: types[i] }));
      const ids = async (q: string) => (await a.get(`/v1/deals?limit=100&pipeline_id=${p.id}${q}`)).body.data.map((x: any) => x.id);

      s.clock.advance(1000);
      const lostAt = s.clock.now().toISOString();
      const patched = await a.patch(`/v1/pipelines/${p.id}`, { stages: stages(['CLOSED_LOST', 'OPEN', 'CLOSED_WON', 'CLOSED_LOST']) });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      const lost = (await a.get(`/v1/deals?limit=100&pipeline_id=${p.id}`)).body.data.find((x: any) => x.id === d.id);
      expect(lost).toMatchObject({ status: 'lost', stage: { id: stA.id, type: 'CLOSED_LOST' }, closed_at: lostAt, updated_at: lostAt });
      expect(await ids('&status=lost')).toEqual([d.id]);
      expect(await ids('&status=open')).toEqual([other.id]);
      // A transaction linked to the deal reads the deal's status too.
      const t = (await a.post('/v1/transactions', { deal_id: d.id })).body;
      expect(t.deal_status).toBe('lost');

      s.clock.advance(1000);
      await a.patch(`/v1/pipelines/${p.id}`, { stages: stages(['CLOSED_WON', 'OPEN', 'CLOSED_WON', 'CLOSED_LOST']) });
      expect(await ids('&status=won')).toEqual([d.id]);
      expect((await a.get(`/v1/transactions/${t.id}`)).body.deal_status).toBe('won');
      await a.patch(`/v1/pipelines/${p.id}`, { stages: stages(['OPEN', 'OPEN', 'CLOSED_WON', 'CLOSED_LOST']) });
      const reopened = (await a.get(`/v1/deals?limit=100&pipeline_id=${p.id}&status=open`)).body.data.find((x: any) => x.id === d.id);
      expect(reopened).toMatchObject({ status: 'open', closed_at: null });
      expect(await ids('&status=lost')).toEqual([]);
    });

    it('renaming a pipeline or a stage, or changing a stage type, moves updated_at of the deals that show it, so updated_after finds them; a PATCH that changes nothing writes nothing', async () => {
      const W = await s.workspace();
      const c = W.client;
      const made = await c.post('/v1/pipelines', {
        name: 'Listings',
        description: 'Sellers',
        stages: [
          { name: 'A', color: '#00ff00', probability: 10 },
          { name: 'B' },
          { name: 'Won', type: 'CLOSED_WON' },
          { name: 'Lost', type: 'CLOSED_LOST' },
        ],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const p = made.body;
      const [stA, stB, stWon] = p.stages;
      const otherPipeline = (await lookups(c)).pipelines.find((x: any) => x.name === 'Sales');
      const inA = (await c.post('/v1/deals', { name: 'In A', stage_id: stA.id })).body;
      const inB = (await c.post('/v1/deals', { name: 'In B', stage_id: stB.id })).body;
      const won = (await c.post('/v1/deals', { name: 'Won', stage_id: stWon.id })).body;
      const elsewhere = (await c.post('/v1/deals', { name: 'Elsewhere', stage_id: otherPipeline.stages[0].id })).body;
      const events = async () => (await c.get('/v1/events?limit=100')).body.data.map((e: any) => `${e.type} ${e.data.id}`);
      const eventsBefore = await events();
      expect(eventsBefore).toHaveLength(4);

      const since = async () => {
        s.clock.advance(60_000);
        return s.clock.now().toISOString();
      };
      const changed = async (after: string) => (await c.get(`/v1/deals?limit=100&updated_after=${after}`)).body.data;
      const all = async () => (await c.get('/v1/deals?limit=100')).body.data;
      const updatedAt = new Map<string, string>((await all()).map((x: any) => [x.id, x.updated_at]));
      // The whole stage list as PATCH takes it, from the pipeline as it is now, with changes to some stages.
      const stages = async (change: Record<string, Record<string, unknown>> = {}) =>
        (await c.get(`/v1/pipelines/${p.id}`)).body.stages.map(({ position, ...x }: any) => ({ ...x, ...change[x.id] }));

      for (const [patch, deals, check] of [
        [async () => ({ name: 'Homes' }), [inA, inB, won], (x: any) => expect(x.pipeline).toEqual({ id: p.id, name: 'Homes' })],
        [
          async () => ({ stages: await stages({ [stA.id]: { name: 'First' } }) }),
          [inA],
          (x: any) => expect(x.stage).toEqual({ id: stA.id, name: 'First', type: 'OPEN' }),
        ],
        // A type change moves the status, and updated_at with it (followStageTypes).
        [
          async () => ({ stages: await stages({ [stB.id]: { type: 'CLOSED_LOST' } }) }),
          [inB],
          (x: any) => expect(x).toMatchObject({ status: 'lost', stage: { id: stB.id, name: 'B', type: 'CLOSED_LOST' } }),
        ],
        // A rename of the pipeline and a stage at once, with a new stage besides: each deal moves once.
        [
          async () => ({ name: 'Houses', stages: [...(await stages({ [stWon.id]: { name: 'Sold' } })), { name: 'New' }] }),
          [inA, inB, won],
          (x: any) => expect(x.pipeline.name).toBe('Houses'),
        ],
      ] as const) {
        const body = await patch();
        const after = await since();
        const r = await c.patch(`/v1/pipelines/${p.id}`, body);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const seen = await changed(after);
        expect(seen.map((x: any) => x.id).sort(), JSON.stringify(body)).toEqual(deals.map((d) => d.id).sort());
        for (const x of seen) {
          expect(x.updated_at).toBe(after);
          check(x);
          updatedAt.set(x.id, after);
        }
        // The unfiltered list shows the same deals, and every other deal kept its updated_at.
        const list = await all();
        for (const x of seen) expect(list.find((y: any) => y.id === x.id)).toEqual(x);
        expect(new Map(list.map((x: any) => [x.id, x.updated_at]))).toEqual(updatedAt);
      }
      expect((await all()).find((x: any) => x.id === won.id).stage).toEqual({ id: stWon.id, name: 'Sold', type: 'CLOSED_WON' });
      expect((await all()).find((x: any) => x.id === elsewhere.id).updated_at).toBe(elsewhere.updated_at);

      // What a deal does not show (a description, a stage's colour, probability or place) changes
      // the pipeline, not its deals.
      for (const patch of [
        async () => ({ description: 'Sellers and landlords' }),
        async () => ({ stages: (await stages({ [stA.id]: { color: '#ff0000', probability: 30 } })).reverse() }),
      ]) {
        const body = await patch();
        const after = await since();
        const r = await c.patch(`/v1/pipelines/${p.id}`, body);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        expect(await changed(after), JSON.stringify(body)).toEqual([]);
      }
      const detail = (await c.get(`/v1/pipelines/${p.id}`)).body;
      expect(detail.description).toBe('Sellers and landlords');
      expect(detail.stages.find((x: any) => x.id === stA.id)).toMatchObject({ color: '#ff0000', probability: 30 });

      // A PATCH that changes nothing writes nothing: not the pipeline, not its stages, not a deal.
      const versions = async () =>
        (
          await s.store.db.query(
            `SELECT 'pipeline ' || id AS id, xmin::text AS v FROM pipelines WHERE workspace_id = $1
         UNION ALL SELECT 'stage ' || id, xmin::text FROM pipeline_stages WHERE workspace_id = $1
         UNION ALL SELECT 'deal ' || id, xmin::text FROM deals WHERE workspace_id = $1 ORDER BY 1`,
            [W.id],
          )
        ).rows;
      const rows = await versions();
      const same = await stages();
      // An OPEN stage may leave its type out (the default), a won or lost stage its probability (fixed).
      const implicit = same.map(({ type, probability, ...x }: any) => ({
        ...x,
        ...(type === 'OPEN' ? {} : { type }),
        ...(type === 'OPEN' ? { probability } : {}),
      }));
      for (const body of [
        {},
        { name: 'Houses' },
        { description: 'Sellers and landlords' },
        { stages: same },
        { stages: implicit },
        { name: 'Houses', description: 'Sellers and landlords', stages: same },
      ]) {
        const after = await since();
        const r = await c.patch(`/v1/pipelines/${p.id}`, body);
        expect(r.status, JSON.stringify(body)).toBe(200);
        expect(r.body).toEqual(detail);
        expect(await changed(after), JSON.stringify(body)).toEqual([]);
        expect(await versions(), JSON.stringify(body)).toEqual(rows);
      }
      expect(new Map((await all()).map((x: any) => [x.id, x.updated_at]))).toEqual(updatedAt);
      // Deals changed by their pipeline are no event (docs/events.md: deal.created is a deal's only event); nor is a PATCH.
      expect(await events()).toEqual(eventsBefore);
    });

    it('concurrent PATCHes of a pipeline and deal creations in its stages neither deadlock nor leave the status of a deal behind the type of its stage', async () => {
      const W = await s.workspace();
      const c = W.client;
      const p = (
        await c.post('/v1/pipelines', {
          name: 'Busy',
          stages: [{ name: 'A' }, { name: 'Won', type: 'CLOSED_WON' }, { name: 'Lost', type: 'CLOSED_LOST' }],
        })
      ).body;
      const [stA, stWon, stLost] = p.stages;
      const patch = (name: string, type: string) =>
        c.patch(`/v1/pipelines/${p.id}`, {
          name: `Busy ${name}`,
          stages: [
            { id: stA.id, name, type },
            { id: stWon.id, name: 'Won', type: 'CLOSED_WON' },
            { id: stLost.id, name: 'Lost', type: 'CLOSED_LOST' },
          ],
        });
      const replies = await Promise.all([
        ...Array.from({ length: 6 }, (_, i) => c.post('/v1/deals', { name: `D${i}`, stage_id: stA.id })),
        patch('A1', 'CLOSED_LOST'),
        patch('A2', 'OPEN'),
        patch('A3', 'CLOSED_WON'),
        patch('A4', 'OPEN'),
        ...Array.from({ length: 6 }, (_, i) => c.post('/v1/deals', { name: `E${i}`, stage_id: stA.id })),
      ]);
      expect(replies.map((r) => r.status)).toEqual([...Array(6).fill(201), 200, 200, 200, 200, ...Array(6).fill(201)]);
      const now = (await c.get(`/v1/pipelines/${p.id}`)).body;
      const a = now.stages.find((x: any) => x.id === stA.id);
      const status = ({ OPEN: 'open', CLOSED_WON: 'won', CLOSED_LOST: 'lost' } as Record<string, string>)[a.type];
      const deals = (await c.get(`/v1/deals?limit=100&pipeline_id=${p.id}`)).body.data;
      expect(deals).toHaveLength(12);
      for (const d of deals)
        expect(d, d.name).toMatchObject({ status, pipeline: { name: now.name }, stage: { id: stA.id, name: a.name, type: a.type } });
    });

    it('lists deals by created_after, created_before and updated_after, inclusive, as contacts', async () => {
      const W = await s.workspace();
      const c = W.client;
      const open = (await lookups(c)).pipelines[0].stages[0];
      s.clock.advance(60_000);
      const first = (await c.post('/v1/deals', { name: 'First', stage_id: open.id })).body;
      s.clock.advance(60_000);
      const second = (await c.post('/v1/deals', { name: 'Second', stage_id: open.id })).body;
      const ids = async (q: string) => (await c.get(`/v1/deals?limit=100&${q}`)).body.data.map((x: any) => x.id);
      expect(await ids(`created_after=${first.created_at}`)).toEqual([second.id, first.id]);
      expect(await ids(`created_after=${second.created_at}`)).toEqual([second.id]);
      expect(await ids(`created_before=${first.created_at}`)).toEqual([first.id]);
      expect(await ids(`updated_after=${second.updated_at}`)).toEqual([second.id]);
      expect(await ids(`created_after=${first.created_at}&created_before=${first.created_at}&updated_after=${first.updated_at}`)).toEqual([
        first.id,
      ]);
      const page = (await c.get(`/v1/deals?limit=1&updated_after=${first.updated_at}`)).body;
      expect(page).toMatchObject({ has_more: true, total_count: 2 });
      expect(
        (await c.get(`/v1/deals?limit=1&updated_after=${first.updated_at}&cursor=${page.next_cursor}`)).body.data.map((x: any) => x.id),
      ).toEqual([first.id]);
      expectError(await c.get('/v1/deals?updated_after=yesterday'), 400, 'invalid_request_error', 'updated_after');
    });

    it('moves updated_at of the deals a deleted contact was the contact of, as their contact_id goes', async () => {
      const W = await s.workspace();
      const c = W.client;
      const open = (await lookups(c)).pipelines[0].stages[0];
      const gone = (await c.post('/v1/contacts', { first_name: 'Gone', last_name: 'Soon' })).body;
      const kept = (await c.post('/v1/contacts', { first_name: 'Kept', last_name: 'Here' })).body;
      const hers = (await c.post('/v1/deals', { name: 'Hers', stage_id: open.id, contact_id: gone.id })).body;
      const other = (await c.post('/v1/deals', { name: 'Other', stage_id: open.id, contact_id: kept.id })).body;
      s.clock.advance(60_000);
      expect((await c.del(`/v1/contacts/${gone.id}`)).status).toBe(200);
      const deals = (await c.get('/v1/deals?limit=100')).body.data;
      const after = deals.find((d: any) => d.id === hers.id);
      expect(after.contact_id).toBeNull();
      expect(after.updated_at > hers.updated_at).toBe(true);
      const changed = (await c.get(`/v1/deals?limit=100&updated_after=${after.updated_at}`)).body.data.map((d: any) => d.id);
      expect(changed).toEqual([hers.id]);
      expect(deals.find((d: any) => d.id === other.id)).toEqual(other);
    });

    it("filters the event log by created_after and created_before inclusive, as every list's timestamps", async () => {
      const W = await s.workspace();
      const c = W.client;
      s.clock.advance(60_000);
      await c.post('/v1/contacts', { first_name: 'Ev', last_name: 'One' });
      s.clock.advance(60_000);
      await c.post('/v1/contacts', { first_name: 'Ev', last_name: 'Two' });
      const [second, first] = (await c.get('/v1/events?type=contact.created&limit=100')).body.data;
      expect(first.created_at < second.created_at).toBe(true);
      const ids = async (q: string) => (await c.get(`/v1/events?type=contact.created&limit=100&${q}`)).body.data.map((e: any) => e.id);
      expect(await ids(`created_after=${second.created_at}`)).toEqual([second.id]);
      expect(await ids(`created_before=${first.created_at}`)).toEqual([first.id]);
      expect(await ids(`created_after=${first.created_at}&created_before=${first.created_at}`)).toEqual([first.id]);
    });
  });

  describe('transactions', () => {
    it('names, stages and checklists a new transaction; money is derived with decimals', async () => {
      const { settings } = await lookups(a);
      const contact = await newContact(a, { first_name: 'Nina', last_name: 'Holm', email: 'nina@x.test' });
      await s.store.db.query(
        `INSERT INTO listings (workspace_id, listing_key, label, photo_path) VALUES ($1, 'MLS-9', '9 Bay Rd', '/p/9.jpg')`,
        [A.id],
      );
      const byListing = await a.post('/v1/transactions', {
        listing_key: 'MLS-9',
        contact_id: contact.id,
        sale_price: '333333.33',
        commission_rate: '2.75',
      });
      expect(byListing.status).toBe(200);
      expect(byListing.body).toMatchObject({
        name: '9 Bay Rd',
        listing_key: 'MLS-9',
        listing_label: '9 Bay Rd',
        listing_photo_path: '/p/9.jpg',
        side: 'buyer',
        status: 'active',
        contact_id: contact.id,
        contact_first_name: 'Nina',
        contact_last_name: 'Holm',
        contact_email: 'nina@x.test',
        sale_price: '333333.33',
        commission_rate: '2.75',
        gross_commission: '9166.67',
        gci_override: false,
        net_commission: '9166.67',
        deal_id: '',
        deal_name: '',
        deal_status: '',
        fell_through_reason: '',
        actual_close_date: '',
        document_count: 0,
      });
      const { pipelines } = await lookups(a);
      const deal = (await a.post('/v1/deals', { name: 'Deal Name', stage_id: pipelines[0].stages[0].id })).body;
      expect((await a.post('/v1/transactions', { deal_id: deal.id })).body).toMatchObject({
        name: 'Deal Name',
        deal_id: deal.id,
        deal_name: 'Deal Name',
        deal_status: 'open',
      });
      expect((await a.post('/v1/transactions', { contact_id: contact.id, name: '' })).body.name).toBe('Nina Holm');

      const pending = settings.closing_stages.find((x: any) => x.status === 'pending');
      const tpl = settings.checklist_templates[0];
      const t = await a.post('/v1/transactions', {
        name: 'Staged',
        stage_id: pending.id,
        checklist_template_id: tpl.id,
        projected_close_date: '2026-06-30',
        side: 'seller',
      });
      expect(t.body).toMatchObject({
        status: 'pending',
        stage_id: pending.id,
        stage_name: pending.name,
        side: 'seller',
        projected_close_date: '2026-06-30',
      });
      const wf = (await a.get(`/v1/transactions/${t.body.id}/workflow`)).body;
      expect(wf.tasks).toHaveLength(tpl.items.length);
      const closingTask = wf.tasks.find((x: any) => x.milestone === 'projected_close_date');
      const item = tpl.items.find((x: any) => x.milestone === 'projected_close_date');
      expect(closingTask.offset_days).toBe(item.offset_days);
      expect(closingTask.due_date).toBe(new Date(Date.UTC(2026, 5, 30 + item.offset_days)).toISOString().slice(0, 10));
      expect(wf.activities[0].title).toBe('Transaction opened');
      expect(wf).toMatchObject({ default_reopen_stage_id: '', reopen_stages: [], parties: [] });
      expect((await a.post('/v1/transactions', { status: 'closed' })).body).toMatchObject({
        status: 'closed',
        actual_close_date: s.clock.now().toISOString().slice(0, 10),
      });

      expectError(await a.post('/v1/transactions', { stage_id: 'cls_nope' }), 400, 'invalid_request_error', 'stage_id');
      expectError(
        await a.post('/v1/transactions', { checklist_template_id: 'ckt_nope' }),
        400,
        'invalid_request_error',
        'checklist_template_id',
      );
      expectError(await a.post('/v1/transactions', { side: 'landlord' }), 400, 'invalid_request_error', 'side');
      expectError(await a.post('/v1/transactions', { sale_price: '12,000' }), 400, 'invalid_request_error', 'sale_price');
      expectError(await a.post('/v1/transactions', { sale_price: 12000 }), 400, 'invalid_request_error', 'sale_price');
      expectError(
        await a.post('/v1/transactions', { projected_close_date: '2026-02-30' }),
        400,
        'invalid_request_error',
        'projected_close_date',
      );
      expectError(await a.post('/v1/transactions', { deal_id: 'deal_nope' }), 400, 'invalid_request_error', 'deal_id');
      expectError(await a.post('/v1/transactions', { bogus: 1 }), 400, 'invalid_request_error', 'bogus');
    });

    it('retries one creation safely with idempotency_key', async () => {
      const results = await Promise.all(
        Array.from({ length: 6 }, () => a.post('/v1/transactions', { name: 'Once', idempotency_key: `idem-${kind}` })),
      );
      const ids = new Set(results.map((r) => r.body.id));
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(ids.size).toBe(1);
      const n = await s.store.db.query(`SELECT count(*)::int AS n FROM transactions WHERE workspace_id = $1 AND idempotency_key = $2`, [
        A.id,
        `idem-${kind}`,
      ]);
      expect(n.rows[0].n).toBe(1);
      // The same key in another workspace is another creation.
      const other = await B.client.post('/v1/transactions', { name: 'Once', idempotency_key: `idem-${kind}` });
      expect(other.body.id).not.toBe([...ids][0]);
    });

    it('writes nothing for a PATCH of a transaction that changes nothing: no updated_at, no event', async () => {
      const t = (
        await a.post('/v1/transactions', {
          name: 'Same',
          sale_price: '500000',
          commission_rate: '3',
          notes: 'n',
          projected_close_date: '2026-06-30',
        })
      ).body;
      const events = async () =>
        (await a.get('/v1/events?type=transaction.updated&limit=100')).body.data.filter((e: any) => e.data.id === t.id).length;
      s.clock.advance(60_000);
      const same = await a.patch(`/v1/transactions/${t.id}`, {
        name: 'Same',
        sale_price: '500000.00',
        commission_rate: '3',
        notes: 'n',
        projected_close_date: '2026-06-30',
        side: t.side,
      });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(t);
      expect(await events()).toBe(0);
      const moved = await a.patch(`/v1/transactions/${t.id}`, { notes: 'changed' });
      expect(moved.body.updated_at > t.updated_at).toBe(true);
      expect(await events()).toBe(1);
    });

    it('updates money, stage, status and dates by the spec rules', async () => {
      const { settings } = await lookups(a);
      const closed = settings.closing_stages.find((x: any) => x.status === 'closed');
      const t = (
        await a.post('/v1/transactions', {
          name: 'Money',
          sale_price: '500000',
          commission_rate: '3',
          checklist_template_id: settings.checklist_templates[0].id,
        })
      ).body;
      expect(t.gross_commission).toBe('15000.00');
      const r1 = await a.patch(`/v1/transactions/${t.id}`, {
        referral_fee: '1000.10',
        brokerage_split_rate: '20',
        team_split_rate: '10.5',
        transaction_fees: '395.55',
      });
      // (15000 − 1000.10) × (1 − 0.20 − 0.105) − 395.55 = 9334.3805 → 9334.38
      expect(r1.body.net_commission).toBe('9334.38');
      const r2 = await a.patch(`/v1/transactions/${t.id}`, { gross_commission: '12000' });
      expect(r2.body).toMatchObject({ gross_commission: '12000.00', gci_override: true });
      const r3 = await a.patch(`/v1/transactions/${t.id}`, { sale_price: '600000' });
      expect(r3.body.gross_commission).toBe('12000.00');
      const r4 = await a.patch(`/v1/transactions/${t.id}`, { gross_commission: '' });
      expect(r4.body).toMatchObject({ gross_commission: '18000.00', gci_override: false });
      // (18000 − 1000.10) × 0.695 − 395.55 = 11419.3805 → 11419.38
      expect(r4.body.net_commission).toBe('11419.38');
      const r5 = await a.patch(`/v1/transactions/${t.id}`, { commission_rate: '0.1', sale_price: '0.05' });
      expect(r5.body.gross_commission).toBe('0.00');

      const moved = await a.patch(`/v1/transactions/${t.id}`, { stage_id: closed.id });
      expect(moved.body).toMatchObject({
        status: 'closed',
        stage_id: closed.id,
        stage_name: closed.name,
        actual_close_date: s.clock.now().toISOString().slice(0, 10),
      });
      const back = await a.patch(`/v1/transactions/${t.id}`, { status: 'pending' });
      expect(back.body.status).toBe('pending');
      expect(back.body.stage_id).toBe(settings.closing_stages.find((x: any) => x.status === 'pending').id);
      const dated = await a.patch(`/v1/transactions/${t.id}`, { inspection_date: '2026-04-10', notes: 'n', name: 'Renamed', side: 'both' });
      expect(dated.body).toMatchObject({ inspection_date: '2026-04-10', notes: 'n', name: 'Renamed', side: 'both' });
      const wf = (await a.get(`/v1/transactions/${t.id}/workflow`)).body;
      const task = wf.tasks.find((x: any) => x.milestone === 'inspection_date');
      expect(task.due_date).toBe(new Date(Date.UTC(2026, 3, 10 + task.offset_days)).toISOString().slice(0, 10));
      expect((await a.patch(`/v1/transactions/${t.id}`, { inspection_date: '' })).body.inspection_date).toBe('');

      expectError(await a.patch(`/v1/transactions/${t.id}`, { commission_rate: '101' }), 400, 'invalid_request_error', 'commission_rate');
      expectError(
        await a.patch(`/v1/transactions/${t.id}`, { contract_date: '04/10/2026' }),
        400,
        'invalid_request_error',
        'contract_date',
      );
      expectError(await a.patch(`/v1/transactions/${t.id}`, { stage_id: 'cls_nope' }), 400, 'invalid_request_error', 'stage_id');
      expectError(await a.patch(`/v1/transactions/${t.id}`, { status: 'done' }), 400, 'invalid_request_error', 'status');
      expectError(await a.patch('/v1/transactions/txn_nope', { notes: 'x' }), 404, 'invalid_request_error');
      const events = await s.store.db.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY created_at`, [t.id]);
      expect(events.rows.map((e) => e.type)).toContain('transaction.updated');
    });

    it('requires a deal disposition when a transaction with a won deal falls through', async () => {
      const { pipelines, settings } = await lookups(a);
      const p = pipelines[0];
      const won = p.stages.find((x: any) => x.type === 'CLOSED_WON');
      const open = p.stages.filter((x: any) => x.type === 'OPEN');
      const fell = settings.closing_stages.find((x: any) => x.status === 'fell_through');
      const mk = async () => {
        const deal = (await a.post('/v1/deals', { name: 'Won', stage_id: won.id })).body;
        const txn = (await a.post('/v1/transactions', { deal_id: deal.id })).body;
        return { deal, txn };
      };
      const dealOf = async (id: string) => (await a.get('/v1/deals?limit=100')).body.data.find((x: any) => x.id === id);
      const noDeals = (await s.key(A.id, ['write_transactions'])).client;

      const x = await mk();
      const wf = (await a.get(`/v1/transactions/${x.txn.id}/workflow`)).body;
      expect(wf.reopen_stages.map((r: any) => r.id)).toEqual(open.map((r: any) => r.id));
      expect(wf.default_reopen_stage_id).toBe(open[0].id);
      expectError(await a.patch(`/v1/transactions/${x.txn.id}`, { stage_id: fell.id }), 400, 'invalid_request_error', 'deal_disposition');
      expectError(
        await noDeals.patch(`/v1/transactions/${x.txn.id}`, { stage_id: fell.id, deal_disposition: 'reopen', reopen_stage_id: open[1].id }),
        403,
        'permission_error',
      );
      expectError(
        await noDeals.patch(`/v1/transactions/${x.txn.id}`, { status: 'fell_through', deal_disposition: 'lost' }),
        403,
        'permission_error',
      );
      expectError(
        await a.patch(`/v1/transactions/${x.txn.id}`, { stage_id: fell.id, deal_disposition: 'reopen' }),
        400,
        'invalid_request_error',
        'reopen_stage_id',
      );
      expectError(
        await a.patch(`/v1/transactions/${x.txn.id}`, { stage_id: fell.id, deal_disposition: 'reopen', reopen_stage_id: won.id }),
        400,
        'invalid_request_error',
        'reopen_stage_id',
      );
      // Nothing changed after the refusals.
      expect((await a.get(`/v1/transactions/${x.txn.id}`)).body.status).toBe('active');
      expect((await dealOf(x.deal.id)).status).toBe('won');
      const reopened = await a.patch(`/v1/transactions/${x.txn.id}`, {
        stage_id: fell.id,
        fell_through_reason: 'Financing',
        deal_disposition: 'reopen',
        reopen_stage_id: open[1].id,
      });
      expect(reopened.body).toMatchObject({ status: 'fell_through', fell_through_reason: 'Financing', deal_status: 'open' });
      expect(await dealOf(x.deal.id)).toMatchObject({ status: 'open', stage: { id: open[1].id }, closed_at: null });

      const y = await mk();
      const lost = await a.patch(`/v1/transactions/${y.txn.id}`, {
        status: 'fell_through',
        deal_disposition: 'lost',
        deal_lost_reason: 'Buyer walked',
      });
      expect(lost.body.deal_status).toBe('lost');
      expect(await dealOf(y.deal.id)).toMatchObject({ status: 'lost', lost_reason: 'Buyer walked', stage: { type: 'CLOSED_LOST' } });

      const z = await mk();
      const kept = await noDeals.patch(`/v1/transactions/${z.txn.id}`, { status: 'fell_through', deal_disposition: 'leave_won' });
      expect(kept.status).toBe(200);
      expect(kept.body.deal_status).toBe('won');
      const back = await a.patch(`/v1/transactions/${z.txn.id}`, { status: 'active' });
      expect(back.body.fell_through_reason).toBe('');
    });

    it('lists by offset with filters and string counts over every match; 400 for non-int32 parameters', async () => {
      const W = await s.workspace();
      const c = W.client;
      const contact = await newContact(c, { first_name: 'Search', last_name: 'Target' });
      const made: any[] = [];
      const statusesFor = ['active', 'active', 'pending', 'closed', 'fell_through', 'active'];
      for (const [i, st] of statusesFor.entries()) {
        s.clock.advance(1000);
        made.push(
          (
            await c.post('/v1/transactions', {
              name: `Deal ${i}`,
              status: st,
              side: i % 2 ? 'seller' : 'buyer',
              projected_close_date: `2026-0${i + 1}-10`,
              contact_id: i === 2 ? contact.id : null,
            })
          ).body,
        );
      }
      const r = await c.get('/v1/transactions');
      expect(r.status).toBe(200);
      expect(r.body.data.map((x: any) => x.id)).toEqual(made.map((x) => x.id).reverse());
      expect(r.body.counts).toEqual({ active: '3', pending: '1', closed: '1', fell_through: '1' });
      const p1 = (await c.get('/v1/transactions?limit=2')).body;
      const p2 = (await c.get('/v1/transactions?limit=2&offset=2')).body;
      const p4 = (await c.get('/v1/transactions?limit=2&offset=6')).body;
      expect([...p1.data, ...p2.data].map((x: any) => x.id)).toEqual(
        made
          .slice(2)
          .map((x) => x.id)
          .reverse(),
      );
      expect(p4.data).toEqual([]);
      expect(p1.counts).toEqual(r.body.counts);
      const ids = async (q: string) => (await c.get(`/v1/transactions?${q}`)).body.data.map((x: any) => x.name);
      expect(await ids('status=active')).toEqual(['Deal 5', 'Deal 1', 'Deal 0']);
      expect((await c.get('/v1/transactions?status=active')).body.counts).toEqual({
        active: '3',
        pending: '0',
        closed: '0',
        fell_through: '0',
      });
      expect(await ids('side=seller')).toEqual(['Deal 5', 'Deal 3', 'Deal 1']);
      expect(await ids('search=target')).toEqual(['Deal 2']);
      expect(await ids('search=DEAL%204')).toEqual(['Deal 4']);
      expect(await ids(`contact_id=${contact.id}`)).toEqual(['Deal 2']);
      expect(await ids(`stage_id=${made[2].stage_id}`)).toEqual(['Deal 2']);
      // Deal 3 closed today, early March: its actual date wins over its projected 2026-04-10.
      const today = s.clock.now().toISOString().slice(0, 10);
      expect(today.startsWith('2026-03')).toBe(true);
      expect(await ids('closing_from=2026-04-01&closing_to=2026-05-31')).toEqual(['Deal 4']);
      expect(await ids('closing_from=2026-02-01&closing_to=2026-03-31')).toEqual(['Deal 3', 'Deal 2', 'Deal 1']);
      expect(await ids(`closing_from=${today}&closing_to=${today}`)).toEqual(['Deal 3']);
      for (const q of ['limit=abc', 'limit=1.5', 'offset=2147483648', 'offset=-1', 'limit=99999999999', 'limit=201', 'limit=-1']) {
        expectError(await c.get(`/v1/transactions?${q}`), 400, 'invalid_request_error', q.split('=')[0]);
      }
      // Integers are written as decimal digits: Number() would read these as 2, 100, 3, 2 and 0.
      for (const q of ['offset=0x2', 'limit=1e2', 'limit=0b11', 'limit=2.0', 'limit=%20', 'offset=', 'limit=+5']) {
        const r = await c.get(`/v1/transactions?${q}`);
        expectError(r, 400, 'invalid_request_error', q.split('=')[0]);
        expect(r.body.error.message).toBe(`Invalid ${q.split('=')[0]}: must be an integer`);
      }
      expect((await c.get('/v1/transactions?limit=002&offset=0')).body.data).toHaveLength(2);
      expectError(await c.get('/v1/transactions?closing_from=March'), 400, 'invalid_request_error', 'closing_from');
      expectError(await c.get('/v1/transactions?offset=1&offset=2'), 400, 'invalid_request_error', 'offset');
    });

    it('gets and deletes; workflow and settings', async () => {
      const contact = await newContact(a, { first_name: 'Party', last_name: 'One' });
      const t = (await a.post('/v1/transactions', { name: 'Del', contact_id: contact.id })).body;
      expect((await a.get(`/v1/transactions/${t.id}`)).body).toEqual(t);
      const wf = (await a.get(`/v1/transactions/${t.id}/workflow`)).body;
      expect(wf.parties).toEqual([
        { id: expect.any(String), contact_id: contact.id, name: 'Party One', role: 'Buyer', relationship_label_id: '' },
      ]);
      const d = await a.del(`/v1/transactions/${t.id}`);
      expect(d.status).toBe(200);
      expect(d.body).toEqual({ deleted_id: t.id, success: true });
      expectError(await a.get(`/v1/transactions/${t.id}`), 404, 'invalid_request_error');
      expectError(await a.get(`/v1/transactions/${t.id}/workflow`), 404, 'invalid_request_error');
      expectError(await a.del(`/v1/transactions/${t.id}`), 404, 'invalid_request_error');
      const ev = await s.store.db.query(`SELECT type FROM events WHERE data->>'id' = $1 ORDER BY created_at, type`, [t.id]);
      expect(ev.rows.map((e) => e.type)).toEqual(['transaction.created', 'transaction.deleted']);
    });

    it('deleting a contact unlinks it from its transactions and from their parties', async () => {
      const contact = await newContact(a, { first_name: 'Ada', last_name: 'Lovelace' });
      const t = (await a.post('/v1/transactions', { name: 'Unlink', contact_id: contact.id })).body;
      expect((await a.del(`/v1/contacts/${contact.id}`)).status).toBe(200);
      expect((await a.get(`/v1/transactions/${t.id}`)).body).toMatchObject({
        contact_id: '',
        contact_first_name: '',
        contact_last_name: '',
      });
      const wf = (await a.get(`/v1/transactions/${t.id}/workflow`)).body;
      expect(wf.parties).toEqual([
        { id: expect.any(String), contact_id: '', name: 'Ada Lovelace', role: 'Buyer', relationship_label_id: '' },
      ]);
      // Plain SQL deletes unlink too: the store does it, not the route.
      const other = await newContact(a, { first_name: 'Sql', last_name: 'Deleted' });
      const t2 = (await a.post('/v1/transactions', { name: 'Unlink 2', contact_id: other.id })).body;
      await s.store.db.query('DELETE FROM contacts WHERE id = $1', [other.id]);
      expect((await a.get(`/v1/transactions/${t2.id}/workflow`)).body.parties[0].contact_id).toBe('');
    });

    it('names the allowed values of a field that may be null, null among them', async () => {
      const t = (await a.post('/v1/transactions', {})).body;
      const r = await a.patch(`/v1/transactions/${t.id}`, { side: '' });
      expectError(r, 400, 'invalid_request_error', 'side');
      expect(r.body.error.message).toBe('Invalid side: must be one of buyer, seller, both, null');
    });

    it('names the limit of an amount that is too large', async () => {
      const t = (await a.post('/v1/transactions', { name: 'Big' })).body;
      for (const f of ['sale_price', 'referral_fee', 'transaction_fees', 'gross_commission']) {
        const r = await a.patch(`/v1/transactions/${t.id}`, { [f]: '9999999999999999' });
        expectError(r, 400, 'invalid_request_error', f);
        expect(r.body.error.message).toBe(
          `Invalid ${f}: must be less than 1,000,000,000,000,000 (at most 15 digits before the decimal point)`,
        );
      }
      expectError(await a.post('/v1/transactions', { sale_price: '999999999999999.995' }), 400, 'invalid_request_error', 'sale_price');
      expect((await a.patch(`/v1/transactions/${t.id}`, { sale_price: '999999999999999.99', commission_rate: '100' })).body).toMatchObject({
        sale_price: '999999999999999.99',
        gross_commission: '999999999999999.99',
      });
      const rate = await a.patch(`/v1/transactions/${t.id}`, { commission_rate: '9999999999999999' });
      expect(rate.body.error.message).toBe('Invalid commission_rate: must be a percentage of at most 100');
      for (const date of ['0000-01-01', '2026-02-30', '2026-04-31']) {
        const r = await a.patch(`/v1/transactions/${t.id}`, { projected_close_date: date });
        expectError(r, 400, 'invalid_request_error', 'projected_close_date');
      }
    });
  });

  describe('isolation between workspaces', () => {
    it('answers 404 for every id of another workspace and never lists its records', async () => {
      const b = B.client;
      const c = await newContact(a, { first_name: 'Hidden', last_name: 'Person', email: 'hidden@x.test' });
      const t = (await a.post('/v1/transactions', { name: 'Hidden txn' })).body;
      const tag = await createTag(s.store.db, A.id, 'hidden-tag', null, s.clock.now());
      const bTag = await createTag(s.store.db, B.id, 'b-tag', null, s.clock.now());
      const bContact = await newContact(b);
      expectError(await b.get(`/v1/contacts/${c.id}`), 404, 'invalid_request_error');
      expectError(await b.patch(`/v1/contacts/${c.id}`, { notes: 'x' }), 404, 'invalid_request_error');
      expectError(await b.del(`/v1/contacts/${c.id}`), 404, 'invalid_request_error');
      expectError(await b.get(`/v1/contacts/${c.id}/activities`), 404, 'invalid_request_error');
      expectError(await b.post(`/v1/contacts/${c.id}/notes`, { body: 'x' }), 404, 'invalid_request_error');
      expectError(await b.put(`/v1/contacts/${c.id}/tags/${bTag.id}`), 404, 'invalid_request_error');
      expectError(await b.put(`/v1/contacts/${bContact.id}/tags/${tag.id}`), 404, 'invalid_request_error', 'tag_id');
      expectError(await b.get(`/v1/transactions/${t.id}`), 404, 'invalid_request_error');
      expectError(await b.patch(`/v1/transactions/${t.id}`, { notes: 'x' }), 404, 'invalid_request_error');
      expectError(await b.del(`/v1/transactions/${t.id}`), 404, 'invalid_request_error');
      expectError(await b.get(`/v1/transactions/${t.id}/workflow`), 404, 'invalid_request_error');
      expectError(await b.post('/v1/transactions', { contact_id: c.id }), 400, 'invalid_request_error', 'contact_id');
      const aStages = (await a.get('/v1/contact-stages')).body.data;
      expectError(await b.patch(`/v1/contacts/${bContact.id}`, { stage_id: aStages[0].id }), 400, 'invalid_request_error', 'stage_id');
      const all = JSON.stringify([
        (await b.get('/v1/contacts?limit=100')).body,
        (await b.get('/v1/transactions?limit=200')).body,
        (await b.get('/v1/tags')).body,
      ]);
      expect(all).not.toContain(c.id);
      expect(all).not.toContain(t.id);
      expect(all).not.toContain(tag.id);
      expect((await b.get('/v1/contacts?email=hidden@x.test')).body.total_count).toBe(0);
      expect((await a.get(`/v1/contacts/${c.id}`)).status).toBe(200);
    });
  });

  describe('errors, headers and rate limit', () => {
    it('carries rate-limit headers on every response and answers 404 for unknown routes', async () => {
      for (const r of [
        await a.get('/v1/me'),
        await s.anon.get('/v1/me'),
        await a.get('/v1/nothing-here'),
        await a.get('/v1/contacts/con_nope'),
      ]) {
        expect(r.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
        expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
        expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(s.clock.now().getTime() / 1000);
      }
      expectError(await a.get('/v1/nothing-here'), 404, 'invalid_request_error');
    });

    it('takes Content-Type: application/json with no body on an endpoint without a payload, as many clients send it on every call', async () => {
      const json = { 'content-type': 'application/json' };
      const c = await newContact(a);
      const tag = (await a.post('/v1/tags', { name: `Empty body ${kind}` })).body;
      const put = await a.call('PUT', `/v1/contacts/${c.id}/tags/${tag.id}`, undefined, json);
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.tags.map((t: { id: string }) => t.id)).toEqual([tag.id]);
      const untag = await a.call('DELETE', `/v1/contacts/${c.id}/tags/${tag.id}`, undefined, json);
      expect(untag.status, JSON.stringify(untag.body)).toBe(200);
      expect(untag.body.tags).toEqual([]);
      const txn = (await a.post('/v1/transactions', {})).body;
      expect((await a.call('DELETE', `/v1/transactions/${txn.id}`, undefined, json)).body).toEqual({ deleted_id: txn.id, success: true });
      expect((await a.call('DELETE', `/v1/contacts/${c.id}`, undefined, json)).body).toEqual({ id: c.id, deleted: true });
      // A GET is no different, and a missing object is still the path's 404.
      expect((await a.call('GET', '/v1/me', undefined, json)).status).toBe(200);
      expectError(await a.call('DELETE', `/v1/contacts/${c.id}`, undefined, json), 404, 'invalid_request_error', 'contact_id');
      // An endpoint that needs a body still says so, in the API's words.
      const create = await a.call('POST', '/v1/contacts', undefined, json);
      expectError(create, 400, 'invalid_request_error');
      expect(create.body.error.message).toBe('The request body must be an object');
      expectError(await a.call('POST', `/v1/contacts/${c.id}/notes`, undefined, json), 400, 'invalid_request_error');
    });

    it('reads an empty text filter as no filter, and refuses an empty enumerated or integer one (docs/api.md)', async () => {
      await newContact(a);
      await a.post('/v1/transactions', {});
      const contacts = (await a.get('/v1/contacts')).body.total_count;
      expect(contacts).toBeGreaterThan(0);
      expect((await a.get('/v1/contacts?q=&email=&stage_id=&lead_source_id=&owner_id=&tag_id=')).body.total_count).toBe(contacts);
      const counts = (await a.get('/v1/transactions')).body.counts;
      expect(Object.values(counts).some((n) => n !== '0')).toBe(true);
      expect((await a.get('/v1/transactions?search=&contact_id=&deal_id=&stage_id=&closing_from=&closing_to=')).body.counts).toEqual(
        counts,
      );
      for (const q of ['status=', 'side=', 'limit=', 'offset='])
        expectError(await a.get(`/v1/transactions?${q}`), 400, 'invalid_request_error', q.slice(0, -1));
      expectError(await a.get('/v1/deals?status='), 400, 'invalid_request_error', 'status');
    });

    it('limits each workspace across all its keys and recovers in the next window', async () => {
      s.clock.set('2026-03-02T11:00:10.000Z');
      const W = await s.workspace({ rate_limit_per_minute: 4 });
      const k2 = (await s.key(W.id, ['read_contacts'])).client;
      const seen: number[] = [];
      for (const c of [W.client, k2, W.client, k2]) {
        const r = await c.get('/v1/contacts');
        expect(r.status).toBe(200);
        expect(r.headers.get('x-ratelimit-limit')).toBe('4');
        expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-02T11:01:00.000Z') / 1000));
        seen.push(Number(r.headers.get('x-ratelimit-remaining')));
      }
      expect(seen).toEqual([3, 2, 1, 0]);
      s.clock.advance(15_000);
      const limited = await k2.get('/v1/me');
      expectError(limited, 429, 'rate_limit_error');
      expect(limited.headers.get('retry-after')).toBe('35');
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      // Another workspace is unaffected.
      expect((await a.get('/v1/me')).status).toBe(200);
      s.clock.advance(35_000);
      const again = await W.client.get('/v1/me');
      expect(again.status).toBe(200);
      expect(again.headers.get('x-ratelimit-remaining')).toBe('3');
    });

    it('counts a query parameter sent twice like every other refused request (docs/api.md: every authenticated request counts)', async () => {
      s.clock.set('2026-03-02T12:00:10.000Z');
      const W = await s.workspace({ rate_limit_per_minute: 5 });
      // A route that authenticates in its own statement (contacts) and one that does not (deals).
      for (const [path, param] of [
        ['/v1/contacts?limit=1&limit=2', 'limit'],
        ['/v1/deals?status=open&status=won', 'status'],
      ] as const) {
        const dup = await W.client.get(path);
        expectError(dup, 400, 'invalid_request_error', param);
        expect(dup.body.error.message).toBe(`Query parameter ${param} was sent more than once`);
      }
      const other400 = await W.client.get('/v1/contacts?limit=abc');
      expectError(other400, 400, 'invalid_request_error', 'limit');
      expect(other400.headers.get('x-ratelimit-remaining')).toBe('2');
      expect((await W.client.get('/v1/contacts?limit=1&limit=2')).headers.get('x-ratelimit-remaining')).toBe('1');
      // Without a key it is refused as any keyless request is, before its query is read.
      expectError(await s.anon.get('/v1/contacts?limit=1&limit=2'), 401, 'authentication_error');
    });

    it('answers a store that is gone 503 service_unavailable with Retry-After, never a 500 or a stack trace', async () => {
      const broken = await startServer(kind === 'postgres' ? 'postgres' : 'pglite');
      const W = await broken.workspace();
      await broken.store.close();
      for (const r of [
        await W.client.get('/v1/contacts'),
        await W.client.post('/v1/contacts', { first_name: 'A', last_name: 'B' }),
        await broken.admin.post('/admin/workspaces', { name: 'X', slug: 'x-after-close' }),
      ]) {
        expectError(r, 503, 'service_unavailable');
        expect(r.headers.get('retry-after')).toBe('1');
        expect(JSON.stringify(r.body)).not.toMatch(/\bat \S+ \(|\.ts:\d+|node_modules/);
      }
      await broken.app.close();
    });

    it('serves an OpenAPI 3.1 document generated from the route schemas', async () => {
      const r = await s.anon.get('/v1/openapi.json');
      expect(r.status).toBe(200);
      const doc = r.body;
      expect(doc.openapi).toBe('3.1.0');
      const expected = [
        ['get', '/v1/me'],
        ['get', '/v1/contacts'],
        ['post', '/v1/contacts'],
        ['get', '/v1/contacts/{contact_id}'],
        ['patch', '/v1/contacts/{contact_id}'],
        ['delete', '/v1/contacts/{contact_id}'],
        ['put', '/v1/contacts/{contact_id}/tags/{tag_id}'],
        ['delete', '/v1/contacts/{contact_id}/tags/{tag_id}'],
        ['get', '/v1/contacts/{contact_id}/activities'],
        ['post', '/v1/contacts/{contact_id}/notes'],
        ['get', '/v1/transactions'],
        ['post', '/v1/transactions'],
        ['get', '/v1/transactions/{id}'],
        ['patch', '/v1/transactions/{id}'],
        ['delete', '/v1/transactions/{id}'],
        ['get', '/v1/transactions/{id}/workflow'],
        ['get', '/v1/transaction-settings'],
        ['get', '/v1/deals'],
        ['post', '/v1/deals'],
        ['get', '/v1/tags'],
        ['get', '/v1/contact-stages'],
        ['get', '/v1/lead-sources'],
        ['get', '/v1/members'],
        ['get', '/v1/pipelines'],
        ['post', '/admin/workspaces'],
        ['post', '/admin/workspaces/{workspace_id}/api-keys'],
        ['delete', '/admin/api-keys/{key_id}'],
        ['post', '/admin/workspaces/{workspace_id}/members'],
        ['get', '/healthz'],
        ['get', '/readyz'],
      ];
      for (const [m, p] of expected) expect(doc.paths[p]?.[m], `${m} ${p}`).toBeDefined();
      const create = doc.paths['/v1/contacts'].post;
      const body = create.requestBody.content['application/json'].schema;
      expect(body.additionalProperties).toBe(false);
      expect(body.required).toEqual(['first_name', 'last_name']);
      expect(create.responses['201'].content['application/json'].schema.$ref).toBe('#/components/schemas/Contact');
      expect(doc.components.schemas.Contact.properties.emails).toBeDefined();
      const limit = doc.paths['/v1/transactions'].get.parameters.find((x: any) => x.name === 'limit');
      expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', maximum: 200 } });
      expect(doc.paths['/v1/contacts'].get['x-required-scopes']).toEqual(['read_contacts']);
      // No reference is left dangling.
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
      for (const ref of refs) {
        const [, kind, name] = /"#\/components\/(\w+)\/([^"]+)"/.exec(ref) ?? [];
        expect(doc.components[kind]?.[name], ref).toBeDefined();
      }
      // Every operation has a unique operationId, lists its error statuses and the rate-limit headers.
      const ops = Object.values<Record<string, any>>(doc.paths).flatMap((m) => Object.values<any>(m));
      const ids = ops.map((o) => o.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(doc.paths['/v1/contacts/{contact_id}'].get.operationId).toBe('getContactsById');
      // Every operation carries one tag the document declares.
      const tagNames = doc.tags.map((t: any) => t.name);
      for (const o of ops) expect(tagNames).toContain(o.tags[0]);
      expect(doc.paths['/v1/contacts/{contact_id}'].get.tags).toEqual(['contacts']);
      expect(doc.paths['/admin/workspaces'].post.tags).toEqual(['admin']);
      expect(Object.keys(doc.paths['/v1/contacts'].post.responses).sort()).toEqual([
        '201',
        '400',
        '401',
        '403',
        '413',
        '415',
        '429',
        '500',
        '503',
      ]);
      expect(doc.paths['/v1/contacts'].get.responses['200'].headers['X-RateLimit-Remaining']).toBeDefined();
      expect(doc.components.responses.RateLimited.headers['Retry-After']).toBeDefined();
      expect(doc.components.responses.ServiceUnavailable.headers['Retry-After']).toBeDefined();
      expect(doc.components.schemas.Error.properties.error.properties.type.enum).toContain('service_unavailable');
      // A route that never asks the store never answers 503.
      expect(Object.keys(doc.paths['/healthz'].get.responses).sort()).toEqual(['200', '400', '413', '415', '500']);
      expect(Object.keys(doc.paths['/readyz'].get.responses).sort()).toEqual(['200', '400', '413', '415', '500', '503']);
      expect(doc.servers).toHaveLength(1);
      // Fields that are always present are required, so generated clients do not make them optional.
      expect(doc.components.schemas.Contact.required).toEqual(expect.arrayContaining(['id', 'first_name', 'emails', 'tags', 'created_at']));
      expect(doc.components.schemas.Deal.required).toEqual(expect.arrayContaining(['id', 'status', 'pipeline', 'stage']));
    });
  });

  describe('ordinary bad input never reaches a 5xx', () => {
    it('NUL characters and lone surrogates in a path id, a body string, a field name or a query are a 400 naming the field', async () => {
      expectError(await a.get('/v1/contacts/con_x%00'), 400, 'invalid_request_error', 'contact_id');
      const tag = await a.post('/v1/tags', '{"name":"a\\u0000b"}');
      expectError(tag, 400, 'invalid_request_error', 'name');
      expect(tag.body.error.message).toBe('Invalid name: contains a NUL character (U+0000)');
      expectError(await a.post('/v1/tags', '{"name":"a\\ud800b"}'), 400, 'invalid_request_error', 'name');
      expectError(
        await a.post('/v1/contacts', '{"first_name":"a","last_name":"b","custom_fields":{"k\\u0000":1}}'),
        400,
        'invalid_request_error',
        'custom_fields["k\\u0000"]',
      );
      expectError(await a.get('/v1/contacts?q=harbor%00'), 400, 'invalid_request_error', 'q');
      // Nesting deeper than a pack may have is refused at its top field (5,000 levels were a 500),
      // and a NUL found however deep (the walk stopped at 64 levels).
      const nested = (depth: number, leaf: string) => `${'{"x":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
      const deep = await a.post('/v1/contacts', `{"first_name":"a","last_name":"b","custom_fields":${nested(5000, '1')}}`);
      expectError(deep, 400, 'invalid_request_error', 'custom_fields');
      expect(deep.body.error.message).toBe('Invalid custom_fields: is nested deeper than 512 levels');
      expectError(
        await a.post('/v1/contacts', `{"first_name":"a","last_name":"b","custom_fields":${nested(100, '"a\\u0000"')}}`),
        400,
        'invalid_request_error',
      );
      expect((await a.post('/v1/contacts', `{"first_name":"a","last_name":"b","custom_fields":${nested(100, '1')}}`)).status).toBe(201);
      const created = await newContact(a);
      expectError(await a.patch(`/v1/contacts/${created.id}`, '{"notes":"x\\u0000"}'), 400, 'invalid_request_error', 'notes');
    });

    it('a field whose name is no identifier is quoted in the param, as core describes a place in a document', async () => {
      // The param is core's pointerParam of the failing place: an identifier joins with a dot, an
      // array index in brackets, any other key as a quoted JSON string (so "/" and "~" are the
      // key's own characters, not a pointer's escapes or path steps).
      const unknown = await a.post('/v1/contacts', { first_name: 'x', last_name: 'y', 'a.b/c~d': 1 });
      expectError(unknown, 400, 'invalid_request_error', '["a.b/c~d"]');
      expect(unknown.body.error.message).toBe('Received unknown parameter: ["a.b/c~d"]');
      const brand = await a.put('/v1/brand', { fields: {}, asset_urls: { 'logo/dark~1': 5 } });
      expectError(brand, 400, 'invalid_request_error', 'asset_urls["logo/dark~1"]');
      expect(brand.body.error.message).toBe('Invalid asset_urls["logo/dark~1"]: must be a string');
      expectError(await a.put('/v1/brand', { fields: {}, asset_urls: { logo: 5 } }), 400, 'invalid_request_error', 'asset_urls.logo');
      // Types in words, as the pack's findings say them.
      const list = await a.post('/v1/contacts', []);
      expectError(list, 400, 'invalid_request_error');
      expect(list.body.error.message).toBe('The request body must be an object');
      expect((await a.get('/v1/contacts?limit=abc')).body.error.message).toBe('Invalid limit: must be an integer');
      const document = {
        format: 'service.automation-template',
        version: 1,
        name: 'Quoted',
        'x/y': 1,
        graph: { nodes: [{ id: 't', kind: 'trigger.manual', position: { x: 0, y: 0 } }], edges: [] },
      };
      expectError(await a.post('/v1/automations', { document }), 400, 'invalid_request_error', 'document["x/y"]');
      expectError(
        await a.post('/v1/contacts', '{"first_name":"a","last_name":"b","custom_fields":{"x/y":{"k\\u0000":1}}}'),
        400,
        'invalid_request_error',
        'custom_fields["x/y"]["k\\u0000"]',
      );
    });

    it('pages install ledgers past the first page, and a cursor of another list or a garbled one is a 400 naming cursor', async () => {
      const ws = await s.workspace();
      const c = ws.client;
      for (let i = 0; i < 3; i++) {
        const packId = `0000000${i}-1a2b-4c3d-9e4f-5a6b7c8d9e0f`;
        const lock = await c.post(`/v1/install-ledgers/${packId}/lock`, { holder: 'test' });
        expect(lock.status, JSON.stringify(lock.body)).toBe(200);
        const put = await c.put(`/v1/install-ledgers/${packId}`, {
          lock_token: lock.body.token,
          ledger: { packId, version: '1.0.0', items: {} },
        });
        expect(put.status, JSON.stringify(put.body)).toBe(200);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = await c.get(`/v1/install-ledgers?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        seen.push(...page.body.data.map((l: { pack_id: string }) => l.pack_id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen.sort()).toEqual(['00000000', '00000001', '00000002'].map((p) => `${p}-1a2b-4c3d-9e4f-5a6b7c8d9e0f`));
      await newContact(c);
      await newContact(c);
      const contactCursor = (await c.get('/v1/contacts?limit=1')).body.next_cursor;
      const foreign = await c.get(`/v1/install-ledgers?cursor=${contactCursor}`);
      expectError(foreign, 400, 'invalid_request_error', 'cursor');
      expect(foreign.body.error.message).toMatch(/belongs to another list/);
      expectError(await c.get('/v1/deals?cursor=not-a-cursor'), 400, 'invalid_request_error', 'cursor');
    });

    it("breaks an install lock by naming its holder: only that holder's, and exactly one of lock_token or holder", async () => {
      const ws = await s.workspace();
      const c = ws.client;
      const packId = 'b7e4c1d2-5a6b-4c3d-9e4f-0a1b2c3d4e5f';
      const unlock = (body: unknown) => c.post(`/v1/install-ledgers/${packId}/unlock`, body);
      // No lock ever taken: as the token's unlock answers.
      expectError(await unlock({ holder: 'run-a' }), 404, 'invalid_request_error', 'pack_id');
      const taken = await c.post(`/v1/install-ledgers/${packId}/lock`, { holder: 'run-a', ttl_seconds: 60 });
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
      const put = await c.put(`/v1/install-ledgers/${packId}`, {
        lock_token: taken.body.token,
        ledger: { packId, items: {} },
        ttl_seconds: 60,
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const until = put.body.lock.expires_at;
      // Neither, or both: a 400 that says which two.
      for (const body of [{}, { lock_token: taken.body.token, holder: 'run-a' }]) {
        const r = await unlock(body);
        expectError(r, 400, 'invalid_request_error');
        expect(r.body.error.message, JSON.stringify(body)).toBe('Send exactly one of lock_token or holder');
      }
      expectError(await unlock({ holder: '' }), 400, 'invalid_request_error', 'holder');
      expectError(await unlock({ holder: 'run-a', force: true }), 400, 'invalid_request_error', 'force');
      // Another holder's name breaks nothing: a 409 naming who holds it and until when.
      const wrong = await unlock({ holder: 'run-b' });
      expectError(wrong, 409, 'invalid_request_error', 'lock');
      expect(wrong.body.error.message).toBe(`Another install of this pack holds the lock (run-a) until ${until}`);
      expect((await c.get(`/v1/install-ledgers/${packId}`)).body.lock).toEqual({ holder: 'run-a', expires_at: until });
      // The holder's name releases it, and the next run takes it at once; the broken run's token writes nothing.
      const broken = await unlock({ holder: 'run-a' });
      expect(broken.status, JSON.stringify(broken.body)).toBe(200);
      expect(broken.body).toEqual({ pack_id: packId, released: true });
      const ledger = await c.get(`/v1/install-ledgers/${packId}`);
      expect(ledger.body.lock).toBeNull();
      expect(ledger.body.revision).toBe(1);
      const next = await c.post(`/v1/install-ledgers/${packId}/lock`, { holder: 'run-b', ttl_seconds: 60 });
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expectError(
        await c.put(`/v1/install-ledgers/${packId}`, { lock_token: taken.body.token, ledger: { packId, items: {} } }),
        409,
        'invalid_request_error',
        'lock',
      );
      expectError(await unlock({ holder: 'run-a' }), 409, 'invalid_request_error', 'lock');
      // Nothing held: the 409 the token's unlock answers, naming holder.
      expect((await unlock({ holder: 'run-b' })).body).toEqual({ pack_id: packId, released: true });
      const free = await unlock({ holder: 'run-b' });
      expectError(free, 409, 'invalid_request_error', 'holder');
      expect(free.body.error.message).toMatch(/^The lock is not held/);
      // An expired lock is nobody's: another name is told it is not held (not who held it once);
      // its own holder's name clears it, as that holder's token would.
      const stale = await c.post(`/v1/install-ledgers/${packId}/lock`, { holder: 'run-c', ttl_seconds: 5 });
      expect(stale.status).toBe(200);
      s.clock.advance(6000);
      expectError(await unlock({ holder: 'run-d' }), 409, 'invalid_request_error', 'holder');
      expect((await unlock({ holder: 'run-c' })).body).toEqual({ pack_id: packId, released: true });
      // The token's unlock is unchanged.
      const t = await c.post(`/v1/install-ledgers/${packId}/lock`, { holder: 'run-e' });
      expect((await unlock({ lock_token: t.body.token })).body).toEqual({ pack_id: packId, released: true });
      // The same scope as the token's unlock.
      const reader = await s.key(ws.id, ['read_install_ledgers']);
      expectError(await reader.client.post(`/v1/install-ledgers/${packId}/unlock`, { holder: 'run-e' }), 403, 'permission_error');
    });

    /** A validator of the served OpenAPI document's schema at `pointer` (a JSON pointer into it). */
    const documented = async (pointer: string) => {
      const doc = (await s.anon.get('/v1/openapi.json')).body;
      const ajv = addFormats(new Ajv2020({ strict: false }));
      ajv.addSchema({ ...doc, $id: 'https://workspace.test/openapi.json' });
      return ajv.compile({ $ref: `https://workspace.test/openapi.json#${pointer}` });
    };

    it('a refusal because another holder has the install lock carries it as data: error.lock {holder, expires_at}', async () => {
      const ws = await s.workspace();
      const c = ws.client;
      const packId = 'c8f5d2e3-6b7c-4d8e-9f0a-1b2c3d4e5f6a';
      const at = `/v1/install-ledgers/${packId}`;
      // A run that held the lock once: its token is stale now.
      const before = await c.post(`${at}/lock`, { holder: 'run-z', ttl_seconds: 60 });
      expect((await c.post(`${at}/unlock`, { lock_token: before.body.token })).status).toBe(200);
      const taken = await c.post(`${at}/lock`, { holder: 'run-a', ttl_seconds: 60 });
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
      const held = { holder: 'run-a', expires_at: taken.body.expires_at };
      const envelopeSchema = await documented('/components/schemas/Error');
      // Every answer that refuses because run-a holds the lock, with no ledger written yet and with one.
      for (const written of [false, true]) {
        if (written)
          expect((await c.put(at, { lock_token: taken.body.token, ledger: { packId, items: {} }, ttl_seconds: 60 })).status).toBe(200);
        const lock = written ? { ...held, expires_at: (await c.get(at)).body.lock.expires_at } : held;
        const refusals = {
          'the lock request': await c.post(`${at}/lock`, { holder: 'run-b' }),
          'a checkpoint with a stale token': await c.put(at, { lock_token: before.body.token, ledger: { packId, items: {} } }),
          'the unlock of a stale token': await c.post(`${at}/unlock`, { lock_token: before.body.token }),
          'the delete of a stale token': await c.post(`${at}/delete`, { lock_token: before.body.token }),
          'the unlock of another holder': await c.post(`${at}/unlock`, { holder: 'run-b' }),
        };
        for (const [what, r] of Object.entries(refusals)) {
          expectError(r, 409, 'invalid_request_error', 'lock');
          expect(r.body.error, what).toEqual({
            type: 'invalid_request_error',
            message: `Another install of this pack holds the lock (run-a) until ${lock.expires_at}`,
            param: 'lock',
            lock,
          });
          expect(envelopeSchema(r.body) ? [] : envelopeSchema.errors, what).toEqual([]);
        }
      }
      // A refusal that is not about another holder's lock carries none.
      expect((await c.post(`${at}/unlock`, { lock_token: taken.body.token })).status).toBe(200);
      for (const r of [
        await c.post(`${at}/unlock`, { holder: 'run-a' }),
        await c.put(at, { lock_token: taken.body.token, ledger: { packId, items: {} } }),
      ]) {
        expect(r.status).toBe(409);
        expect(r.body.error.param).not.toBe('lock');
        expect(r.body.error).not.toHaveProperty('lock');
      }
      // The OpenAPI document states the field once, in the error envelope every error answer refers to.
      const doc = (await s.anon.get('/v1/openapi.json')).body;
      expect(doc.components.schemas.Error.properties.error.properties.lock).toMatchObject({
        type: 'object',
        required: ['holder', 'expires_at'],
        properties: { holder: { type: 'string' }, expires_at: { type: 'string', format: 'date-time' } },
      });
      expect(doc.paths['/v1/install-ledgers/{pack_id}/lock'].post.responses['409']).toEqual({ $ref: '#/components/responses/Conflict' });
    });

    it('a pack locked before its first ledger write is a record with ledger null, in GET and in the list, while the lock lives', async () => {
      const ws = await s.workspace();
      const c = ws.client;
      const packId = 'd9a6e3f4-7c8d-4e9f-8a1b-2c3d4e5f6a7b';
      const at = `/v1/install-ledgers/${packId}`;
      expectError(await c.get(at), 404, 'invalid_request_error', 'pack_id');
      // Another pack, installed, lists beside it.
      const other = 'e0b7f4a5-8d9e-4f0a-9b2c-3d4e5f6a7b8c';
      const t = await c.post(`/v1/install-ledgers/${other}/lock`, { holder: 'done' });
      expect((await c.put(`/v1/install-ledgers/${other}`, { lock_token: t.body.token, ledger: { packId: other, items: {} } })).status).toBe(
        200,
      );
      expect((await c.post(`/v1/install-ledgers/${other}/unlock`, { lock_token: t.body.token })).status).toBe(200);
      s.clock.advance(1000);
      // A run takes the lock and is killed before its first checkpoint.
      const taken = await c.post(`${at}/lock`, { holder: 'run-killed', ttl_seconds: 60 });
      expect(taken.status, JSON.stringify(taken.body)).toBe(200);
      const one = await c.get(at);
      expect(one.status, JSON.stringify(one.body)).toBe(200);
      const when = s.clock.now().toISOString();
      expect(one.body).toEqual({
        pack_id: packId,
        revision: 0,
        ledger: null,
        lock: { holder: 'run-killed', expires_at: taken.body.expires_at },
        created_at: when,
        updated_at: when,
      });
      const record = await documented('/paths/~1v1~1install-ledgers~1{pack_id}/get/responses/200/content/application~1json/schema');
      expect(record(one.body) ? [] : record.errors).toEqual([]);
      const list = await c.get('/v1/install-ledgers');
      expect(list.body.data.map((r: { pack_id: string }) => r.pack_id)).toEqual([packId, other]);
      expect(list.body.data[0]).toEqual(one.body);
      expect(list.body.total_count).toBe(2);
      const page = await documented('/paths/~1v1~1install-ledgers/get/responses/200/content/application~1json/schema');
      expect(page(list.body) ? [] : page.errors).toEqual([]);
      // Once the lock expires there is nothing left to show: 404, and not listed.
      s.clock.advance(61_000);
      expectError(await c.get(at), 404, 'invalid_request_error', 'pack_id');
      const after = await c.get('/v1/install-ledgers');
      expect(after.body.data.map((r: { pack_id: string }) => r.pack_id)).toEqual([other]);
      expect(after.body.total_count).toBe(1);
      // Nor once it is released.
      const again = await c.post(`${at}/lock`, { holder: 'run-next' });
      expect((await c.get(at)).body.lock.holder).toBe('run-next');
      expect((await c.post(`${at}/unlock`, { holder: 'run-next' })).status).toBe(200);
      expectError(await c.get(at), 404, 'invalid_request_error', 'pack_id');
      expect((await c.get('/v1/install-ledgers')).body.total_count).toBe(1);
      expect(again.body.revision).toBe(0);
    });

    it('the router’s and the HTTP parser’s refusals are in the error envelope too', async () => {
      for (const bad of ['/v1/contacts/%nl', '/v1/contacts/%ED%A0%80']) {
        const r = await a.get(bad);
        expectError(r, 400, 'invalid_request_error');
        expect(r.body.error.message).toMatch(/^Malformed URL/);
        // Refused before routing, never authenticated nor counted: the default limit, nothing used.
        expect(r.headers.get('x-ratelimit-limit'), bad).toBe('120');
        expect(r.headers.get('x-ratelimit-remaining'), bad).toBe('120');
        expect(Number(r.headers.get('x-ratelimit-reset')), bad).toBeGreaterThan(s.clock.now().getTime() / 1000);
      }
      const long = await a.get(`/v1/contacts/con_${'a'.repeat(150)}`);
      expectError(long, 404, 'invalid_request_error', 'contact_id');
      expect(long.headers.get('x-ratelimit-remaining')).not.toBeNull();
      const tooLong = await a.get(`/v1/contacts/${'a'.repeat(3000)}`);
      expectError(tooLong, 414, 'invalid_request_error');
      expect(tooLong.headers.get('x-ratelimit-limit')).toBe('120');
      // Headers over 16 KB never reach Fastify: Node's parser refuses them, answered on the socket.
      const { connect } = await import('node:net');
      const url = new URL(s.base);
      const raw = await new Promise<string>((resolve, reject) => {
        const sock = connect(Number(url.port), url.hostname, () =>
          sock.write(`GET /v1/contacts?q=${'a'.repeat(20000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
        );
        let text = '';
        sock.on('data', (d) => (text += d));
        sock.on('close', () => resolve(text));
        sock.on('error', reject);
      });
      expect(raw).toMatch(/^HTTP\/1\.1 431 /);
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: { type: 'invalid_request_error' } });
    });

    it('an unknown workspace in an admin path is a 404; an empty member_id is no member (docs/api.md, "Empty strings")', async () => {
      expectError(
        await s.admin.post('/admin/workspaces/ws_nope/lookups/teams', { name: 'x' }),
        404,
        'invalid_request_error',
        'workspace_id',
      );
      const none = await s.admin.post(`/admin/workspaces/${A.id}/api-keys`, { scopes: ['full_access'], member_id: '' });
      expect(none.status).toBe(201);
      expect((await s.admin.withKey(none.body.secret).get('/v1/me')).status).toBe(200);
      const unknown = await s.admin.post(`/admin/workspaces/${A.id}/api-keys`, { scopes: ['full_access'], member_id: 'mem_nope' });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.message).toMatch(/^No such member/);
    });

    it('timestamps the store cannot hold are a 400 naming the field, in every query filter and body field', async () => {
      const W = await s.workspace();
      const c = W.client;
      // Year 0, an offset past PostgreSQL's ±15:59 (RFC 3339 allows ±23:59), an instant before year 1 or after 9999 in UTC.
      const refused = [
        '0000-01-01T00:00:00Z',
        '2026-01-01T00:00:00+23:59',
        '2026-01-01T00:00:00-16:00',
        '0001-01-01T00:00:00+00:01',
        '9999-12-31T23:59:59-00:01',
        '2026-02-30T00:00:00Z',
      ];
      const accepted = [
        '0001-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999Z',
        '2026-01-01T00:00:00+15:59',
        '2026-01-01T00:00:00-15:59',
        '2016-12-31T23:59:60Z',
        '2026-01-01 10:00:00+01:00',
      ];
      const queries = [
        '/v1/contacts?created_after=',
        '/v1/contacts?created_before=',
        '/v1/contacts?updated_after=',
        '/v1/deals?created_after=',
        '/v1/deals?created_before=',
        '/v1/deals?updated_after=',
        '/v1/events?created_after=',
        '/v1/events?created_before=',
      ];
      for (const q of queries) {
        const param = q.slice(q.indexOf('?') + 1, -1);
        for (const v of refused) {
          const r = await c.get(`${q}${encodeURIComponent(v)}`);
          expectError(r, 400, 'invalid_request_error', param);
          expect(r.body.error.message, `${q}${v}`).toMatch(new RegExp(`^Invalid ${param}: `));
        }
        for (const v of accepted) expect((await c.get(`${q}${encodeURIComponent(v)}`)).status, `${q}${v}`).toBe(200);
      }
      const expiry = (v: string) => s.admin.post(`/admin/workspaces/${W.id}/api-keys`, { scopes: ['read_contacts'], expires_at: v });
      for (const v of ['0000-01-01T00:00:00Z', '2027-01-01T00:00:00+23:00'])
        expectError(await expiry(v), 400, 'invalid_request_error', 'expires_at');
      expect((await expiry('9999-12-31T23:59:59Z')).status).toBe(201);
      // A leap second is RFC 3339 (and PostgreSQL rolls it over); Date.parse took none, and the key's creation was a 500.
      expect((await expiry('2030-12-31T23:59:60Z')).status).toBe(201);
      // Every date-time a request carries states the store's range, so none can be missed: the OpenAPI document shows it.
      const doc = (await s.anon.get('/v1/openapi.json')).body;
      const missing: string[] = [];
      const walk = (x: unknown, at: string) => {
        if (!x || typeof x !== 'object') return;
        const o = x as Record<string, unknown>;
        if (o.format === 'date-time' && o['x-stored'] !== 'date-time') missing.push(at);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      };
      for (const [path, ops] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(ops)) {
          walk(op.parameters, `${method} ${path} parameters`);
          walk(op.requestBody, `${method} ${path} body`);
        }
      }
      expect(missing).toEqual([]);
    });
  });

  describe('what an API client found (search, page sizes, sync, bounds)', () => {
    it('q finds a phone whatever its punctuation: as written, digits only, or in another format', async () => {
      const W = await s.workspace();
      const c = W.client;
      const phoned = await newContact(c, { first_name: 'Phoebe', phone: '+1 (555) 010-2030' });
      await newContact(c, { first_name: 'Other', phone: '+1 (555) 999-0000', company: '7-11 Stores' });
      const found = async (q: string) => (await c.get(`/v1/contacts?limit=100&q=${encodeURIComponent(q)}`)).body;
      for (const q of ['5550102030', '555-010-2030', '(555) 010', '555.010.2030', '+1 555 010 2030', '010-2030', '(555) 010-2030']) {
        const r = await found(q);
        expect(
          r.data.map((x: any) => x.id),
          q,
        ).toEqual([phoned.id]);
        expect(r.total_count, q).toBe(1);
      }
      // Text with digits is still matched as written: a company named with a dash.
      expect((await found('7-11')).data.map((x: any) => x.first_name)).toEqual(['Other']);
      // Punctuation alone, or a number no phone holds, finds nothing it should not.
      expect((await found('555-010-2031')).total_count).toBe(0);
      expect((await found('(555) 011')).total_count).toBe(0);
    });

    it('limit=0 on transactions is "up to 200": no rows, the counts over every match; cursor lists keep 1 to 100', async () => {
      const W = await s.workspace();
      const c = W.client;
      await c.post('/v1/transactions', { name: 'Counted', status: 'pending' });
      const r = await c.get('/v1/transactions?limit=0');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({ data: [], counts: { active: '0', pending: '1', closed: '0', fell_through: '0' } });
      expectError(await c.get('/v1/transactions?limit=201'), 400, 'invalid_request_error', 'limit');
      expectError(await c.get('/v1/transactions?limit=-1'), 400, 'invalid_request_error', 'limit');
      for (const path of ['/v1/contacts', '/v1/deals', '/v1/tags', '/v1/contacts/x/activities', '/v1/webhooks', '/v1/events']) {
        expectError(await c.get(`${path}?limit=0`), 400, 'invalid_request_error', 'limit');
        expectError(await c.get(`${path}?limit=101`), 400, 'invalid_request_error', 'limit');
      }
    });

    it('a lookup renamed in plain SQL moves updated_at of the contacts that show it, so updated_after finds them', async () => {
      const W = await s.workspace();
      const c = W.client;
      const tag = (await c.post('/v1/tags', { name: 'Plain tag', color: '#00ff00' })).body;
      const stage = (await c.post('/v1/contact-stages', { name: 'Plain stage' })).body;
      const source = (await c.post('/v1/lead-sources', { name: 'Plain source' })).body;
      const member = await addMember(W.id, 'Plainowner');
      const tagged = await newContact(c, { first_name: 'Tagged' });
      await c.put(`/v1/contacts/${tagged.id}/tags/${tag.id}`);
      const staged = await newContact(c, { first_name: 'Staged', stage_id: stage.id });
      const sourced = await newContact(c, { first_name: 'Sourced', lead_source_id: source.id });
      const owned = await newContact(c, { first_name: 'Owned', owner_id: member.id });
      await newContact(c, { first_name: 'Untouched' });
      for (const [sql, id, contact] of [
        ['UPDATE tags SET name = $2 WHERE id = $1', tag.id, tagged],
        ['UPDATE tags SET color = $2 WHERE id = $1', tag.id, tagged],
        ['UPDATE contact_stages SET name = $2 WHERE id = $1', stage.id, staged],
        ['UPDATE lead_sources SET name = $2 WHERE id = $1', source.id, sourced],
        ['UPDATE members SET name = $2 WHERE id = $1', member.id, owned],
      ] as const) {
        const before = (await c.get(`/v1/contacts/${contact.id}`)).body.updated_at;
        const latest = (await c.get('/v1/contacts?limit=100')).body.data
          .map((x: any) => x.updated_at)
          .sort()
          .pop();
        const since = new Date(new Date(latest).getTime() + 1).toISOString();
        await s.store.db.query(sql, [id, `#${sql.length}x${Math.random().toString(16).slice(2, 8)}`]);
        const seen = (await c.get(`/v1/contacts?limit=100&updated_after=${since}`)).body.data;
        expect(
          seen.map((x: any) => x.id),
          sql,
        ).toEqual([contact.id]);
        expect(seen[0].updated_at > before, sql).toBe(true);
      }
    });

    it("a transaction's updated_at moves when what it shows of its deal, contact or closing stage changes, by the API or plain SQL", async () => {
      const W = await s.workspace();
      const c = W.client;
      const made = (
        await c.post('/v1/pipelines', {
          name: 'Sync',
          stages: [{ name: 'A' }, { name: 'Won', type: 'CLOSED_WON' }, { name: 'Lost', type: 'CLOSED_LOST' }],
        })
      ).body;
      const contact = await newContact(c, { first_name: 'Sally', last_name: 'Seller', email: 'sally@x.test' });
      const deal = (await c.post('/v1/deals', { name: 'Sync deal', stage_id: made.stages[0].id, contact_id: contact.id })).body;
      const t = (await c.post('/v1/transactions', { deal_id: deal.id, contact_id: contact.id })).body;
      const other = (await c.post('/v1/transactions', { name: 'Unrelated' })).body;
      const read = async () => (await c.get(`/v1/transactions/${t.id}`)).body;
      const moved = async (what: string, change: () => Promise<unknown>, check: (x: any) => void) => {
        const before = await read();
        s.clock.advance(60_000);
        await change();
        const after = await read();
        check(after);
        expect(after.updated_at > before.updated_at, what).toBe(true);
        expect((await c.get(`/v1/transactions/${other.id}`)).body.updated_at, what).toBe(other.updated_at);
      };
      const stages = (types: string[]) => made.stages.map((x: any, i: number) => ({ id: x.id, name: x.name, type: types[i] }));
      await moved(
        'a stage type change moves the deal status',
        () => c.patch(`/v1/pipelines/${made.id}`, { stages: stages(['CLOSED_WON', 'CLOSED_WON', 'CLOSED_LOST']) }),
        (x) => expect(x.deal_status).toBe('won'),
      );
      expect((await read()).updated_at).toBe(s.clock.now().toISOString());
      await moved(
        'a contact renamed by PATCH',
        () => c.patch(`/v1/contacts/${contact.id}`, { last_name: 'Sold' }),
        (x) => expect(x.contact_last_name).toBe('Sold'),
      );
      expect((await read()).updated_at).toBe(s.clock.now().toISOString());
      await moved(
        'a new primary email by PATCH',
        () => c.patch(`/v1/contacts/${contact.id}`, { email: 'sally@new.test' }),
        (x) => expect(x.contact_email).toBe('sally@new.test'),
      );
      // A PATCH of the contact that changes nothing the transaction shows leaves it.
      const before = await read();
      s.clock.advance(60_000);
      await c.patch(`/v1/contacts/${contact.id}`, { company: 'Elsewhere' });
      expect((await read()).updated_at).toBe(before.updated_at);
      await moved(
        'its contact deleted',
        () => c.del(`/v1/contacts/${contact.id}`),
        (x) => expect(x).toMatchObject({ contact_id: '', contact_first_name: '' }),
      );
      expect((await read()).updated_at).toBe(s.clock.now().toISOString());
      // Plain SQL (no API renames a deal, and none a closing stage) moves them at the database's clock.
      const next = await newContact(c, { first_name: 'Nora', last_name: 'Next' });
      await c.patch(`/v1/transactions/${t.id}`, { contact_id: next.id, status: 'pending' });
      await moved(
        'a deal renamed in plain SQL',
        () => s.store.db.query('UPDATE deals SET name = $2 WHERE id = $1', [deal.id, 'Renamed deal']),
        (x) => expect(x.deal_name).toBe('Renamed deal'),
      );
      await moved(
        'a contact renamed in plain SQL',
        () => s.store.db.query('UPDATE contacts SET first_name = $2 WHERE id = $1', [next.id, 'Nor']),
        (x) => expect(x.contact_first_name).toBe('Nor'),
      );
      const stageId = (await read()).stage_id;
      await moved(
        'a closing stage renamed in plain SQL',
        () => s.store.db.query('UPDATE closing_stages SET name = $2 WHERE id = $1', [stageId, 'Underway']),
        (x) => expect(x.stage_name).toBe('Underway'),
      );
    });

    it('an empty idempotency_key is no key: every such creation opens its own transaction', async () => {
      const W = await s.workspace();
      const c = W.client;
      const one = await c.post('/v1/transactions', { name: 'First', idempotency_key: '' });
      s.clock.advance(1000);
      const two = await c.post('/v1/transactions', { name: 'Second', idempotency_key: '' });
      s.clock.advance(1000);
      expect([one.status, two.status]).toEqual([200, 200]);
      expect(two.body.id).not.toBe(one.body.id);
      expect(two.body.name).toBe('Second');
      // A real key still retries one creation, after the empty ones.
      const keyed = await c.post('/v1/transactions', { name: 'Keyed', idempotency_key: 'k1' });
      expect((await c.post('/v1/transactions', { name: 'Again', idempotency_key: 'k1' })).body.id).toBe(keyed.body.id);
      expect((await c.get('/v1/transactions')).body.data.map((x: any) => x.name)).toEqual(['Keyed', 'Second', 'First']);
    });

    it('a deal created with contact_id "" has no contact, as a transaction shows none ("") and takes "" as none', async () => {
      const W = await s.workspace();
      const c = W.client;
      const stage = (await lookups(c)).pipelines[0].stages[0].id;
      const r = await c.post('/v1/deals', { name: 'No contact', stage_id: stage, contact_id: '' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.contact_id).toBeNull();
      expectError(
        await c.post('/v1/deals', { name: 'Missing', stage_id: stage, contact_id: 'con_missing' }),
        400,
        'invalid_request_error',
        'contact_id',
      );
    });

    it('timestamp bounds finer than a microsecond are exact, not rounded by the store', async () => {
      const W = await s.workspace();
      const c = W.client;
      s.clock.advance(60_000);
      const contact = await newContact(c);
      const at = contact.created_at as string; // e.g. 2026-03-02T10:05:00.000Z, stored to the microsecond
      const base = at.replace('Z', '');
      const ids = async (q: string) => (await c.get(`/v1/contacts?limit=100&${q}`)).body.data.map((x: any) => x.id);
      const before = new Date(Date.parse(at) - 1).toISOString().replace('Z', ''); // a millisecond earlier: …59.999
      // 0.4 µs before the row: PostgreSQL rounded the bound to the row's microsecond and included it.
      expect(await ids(`created_before=${before}9996Z`)).toEqual([]);
      expect(await ids(`created_before=${base}0004Z`)).toEqual([contact.id]);
      // 0.4 µs after the row: rounded down to it, an "after" bound took the row in.
      expect(await ids(`created_after=${base}0004Z`)).toEqual([]);
      expect(await ids(`updated_after=${base}0004Z`)).toEqual([]);
      expect(await ids(`created_after=${before}9996Z&created_before=${base}0004Z`)).toEqual([contact.id]);
      // Nine digits and an offset: the same instant, exact.
      expect(await ids(`created_before=${new Date(Date.parse(at) - 1 + 3_600_000).toISOString().replace('Z', '')}999600%2B01:00`)).toEqual(
        [],
      );
      const deal = (await c.post('/v1/deals', { name: 'Bound', stage_id: (await lookups(c)).pipelines[0].stages[0].id })).body;
      const dealBase = (deal.created_at as string).replace('Z', '');
      expect((await c.get(`/v1/deals?created_after=${dealBase}0001Z`)).body.data).toEqual([]);
      expect((await c.get(`/v1/deals?created_before=${dealBase}0004Z`)).body.data.map((x: any) => x.id)).toEqual([deal.id]);
    });
  });
}
