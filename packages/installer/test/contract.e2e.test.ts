// What `setup-pack validate` accepts installs: the catalog routes take the pack's own rules (they
// $ref the published schemas), and where the API is stricter than the format the plan says so
// before anything is written.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  base64Length,
  canonicalize,
  MAX_DEPTH,
  roundTripForm,
  stringsInConfig,
  validateAutomationDocument,
  validatePack,
  WORKSPACE_LIMITS,
  type Pack,
} from '@setup-pack/core';
import { exportWorkspace, install, planInstall } from '../src/index.js';
import { clientFor, loadPack, upToWorkspaceIds, useServer } from './harness.js';

const server = useServer();

/** The starter pack with every colour and name at the pack's own boundaries. */
function boundaryPack(): Pack {
  const pack = structuredClone(loadPack('valid/buyer-lead-starter.json'));
  pack.packId = 'c0ffee00-1a2b-4c3d-9e4f-000000000011';
  for (const s of pack.smartLists ?? []) s.color = '#ef4444cc';
  for (const p of pack.pipelines ?? []) {
    p.stages[0].color = '#abcd';
    p.stages[1].color = '#f0a';
    p.stages[0].name = '';
  }
  const t = pack.messageTemplates![0];
  t.name = 'T'.repeat(120);
  t.body = 'B'.repeat(20000);
  t.category = 'C'.repeat(60);
  pack.resources = [...(pack.resources ?? []), { key: 'vip', kind: 'tag', name: 'N'.repeat(200), data: { color: '#11223344' } }];
  return pack;
}

describe('one contract: a pack that validates installs', () => {
  it('8- and 4-digit colours, an empty stage name and names at their maximum length validate and install with no failed write', async () => {
    const pack = boundaryPack();
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const result = await install(c, pack);
    expect(result.plan.ok).toBe(true);
    const lists = await c.listAll<any>('/v1/smart-lists');
    expect(lists.map((l) => l.color)).toContain('#ef4444cc');
    const templates = await c.listAll<any>('/v1/message-templates');
    expect(templates.map((x) => x.name)).toContain('T'.repeat(120));
    const again = await planInstall(c, pack);
    expect(again.plan.writes).toBe(0);
  });

  it('the server refuses what the pack refuses, with the pack rule’s message and the field', async () => {
    const ws = await server().workspace();
    const post = (path: string, body: unknown) =>
      fetch(`${server().base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const tooLong = await post('/v1/message-templates', { name: 'x'.repeat(201), channel: 'sms', body: 'hi' });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatchObject({
      param: 'name',
      message: 'Invalid name: must have at most 200 characters (it has 201)',
    });
    const longBody = await post('/v1/message-templates', { name: 'Long', channel: 'sms', body: 'b'.repeat(20001) });
    expect((await longBody.json()).error).toMatchObject({
      param: 'body',
      message: 'Invalid body: must have at most 20,000 characters (it has 20,001)',
    });
    const badColor = await post('/v1/tags', { name: 'Red', color: 'red' });
    expect(badColor.status).toBe(400);
    expect((await badColor.json()).error).toMatchObject({ param: 'color', message: 'Invalid color: must be a hex color such as #ef4444' });
    const cleared = await post('/v1/tags', { name: 'Plain', color: null });
    expect(cleared.status).toBe(201);
    // Base64 as strict as the pack's asset rule: non-canonical bits, whitespace or base64url are refused.
    expect(
      validatePack({
        ...loadPack('valid/buyer-lead-starter.json'),
        assets: [
          {
            key: 'a',
            role: 'team_photo',
            fileName: 'a.bin',
            mimeType: 'application/octet-stream',
            byteSize: 1,
            sha256: '0'.repeat(64),
            data: 'QR==',
          },
        ],
      }).diagnostics.map((d) => d.code),
    ).toContain('asset/invalid-base64');
    for (const data of ['QR==', 'QQ= =', 'a-_b']) {
      const media = await post('/v1/media', { file_name: 'a.bin', mime_type: 'application/octet-stream', data });
      expect(media.status, data).toBe(400);
      expect((await media.json()).error).toMatchObject({ param: 'data' });
    }
    expect((await post('/v1/media', { file_name: 'a.bin', mime_type: 'application/octet-stream', data: 'QQ==' })).status).toBe(201);
  });

  it('an asset of any mime type the format allows (empty, 300 characters) uploads and comes back', async () => {
    const bytes = Buffer.from('logo');
    const asset = (key: string, mimeType: string) => ({
      key,
      role: 'team_photo' as const,
      fileName: `${key}.bin`,
      mimeType,
      byteSize: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      data: bytes.toString('base64'),
    });
    const pack: Pack = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000031',
      name: 'Mime types',
      version: '1.0.0',
      brand: { name: 'Harbor' },
      assets: [asset('blank', ''), asset('long', `image/${'x'.repeat(294)}`)],
    };
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const c = clientFor(server(), (await server().workspace()).key);
    await install(c, pack);
    expect((await c.listAll<any>('/v1/media')).map((m) => m.mime_type).sort()).toEqual(['', `image/${'x'.repeat(294)}`]);
    const { exportedAt: _at, ...exported } = (await exportWorkspace(c, { packId: pack.packId })).pack;
    expect(canonicalize(exported)).toEqual(roundTripForm(pack));
  });

  it('open objects nested as deep as a valid pack may nest them install and come back (the ledger keeps resource data one level below its body)', async () => {
    const nest = (depth: number): Record<string, unknown> => {
      let v: Record<string, unknown> = { leaf: true };
      for (let i = 1; i < depth; i++) v = { a: v };
      return v;
    };
    /** make(d) at the largest d that still validates: the deepest the format allows there. */
    const deepest = (make: (d: number) => Pack): Pack => {
      let d = MAX_DEPTH - 8;
      while (validatePack(make(d + 1)).diagnostics.every((x) => x.severity !== 'error')) d++;
      expect(d).toBeGreaterThan(MAX_DEPTH - 8);
      return make(d);
    };
    const packs = [
      (d: number): Partial<Pack> => ({ resources: [{ key: 'f', kind: 'custom_field', name: 'Deep field', data: nest(d) }] }),
      (d: number): Partial<Pack> => ({
        resources: [{ key: 't', kind: 'tag', name: 'Deep tag', data: { color: '#112233', note: nest(d) } }],
      }),
      (d: number): Partial<Pack> => ({ resources: [{ key: 'e', kind: 'email_template', name: 'Deep design', data: nest(d) }] }),
      (d: number): Partial<Pack> => ({ brand: { name: 'Deep brand', theme: nest(d) } }),
      (d: number): Partial<Pack> => ({
        messageTemplates: [{ key: 'm', name: 'Deep rich text', channel: 'email', body: 'Hi', richTextDoc: nest(d) }],
      }),
    ];
    for (const [i, items] of packs.entries()) {
      const pack = deepest(
        (d) =>
          ({
            format: 'service.setup-pack',
            schemaVersion: 2,
            packId: `c0ffee00-1a2b-4c3d-9e4f-00000000005${i}`,
            name: 'Deep',
            version: '1.0.0',
            ...items(d),
          }) as Pack,
      );
      const c = clientFor(server(), (await server().workspace()).key);
      await install(c, pack);
      expect((await planInstall(c, pack)).plan.writes).toBe(0);
      const { exportedAt: _at, ...exported } = (await exportWorkspace(c, { packId: pack.packId })).pack;
      expect(canonicalize(exported)).toEqual(roundTripForm(pack));
    }
  });

  it('an asset larger than the media library takes is refused at plan time, before any write', async () => {
    const pack = structuredClone(loadPack('valid/buyer-lead-starter.json'));
    const bytes = WORKSPACE_LIMITS.mediaFileBytes + 3;
    const data = 'A'.repeat(base64Length(bytes));
    pack.assets = [
      {
        key: 'huge',
        role: 'team_photo',
        fileName: 'huge.bin',
        mimeType: 'application/octet-stream',
        byteSize: bytes,
        sha256: '0'.repeat(64),
        data,
      },
    ];
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    // The asset's hash and size are not made right (10 MiB to hash): what is checked is the planner's limit.
    const { plan } = await planInstall(c, pack, { validated: true });
    expect(plan.ok).toBe(false);
    expect(plan.errors.map((e) => e.code)).toEqual(['plan/api-limit']);
    expect(plan.errors[0].message).toMatch(/^Asset huge \(huge\.bin\) is 10 MiB; the workspace's media library takes files up to 10 MiB/);
  });

  it('text the workspace cannot store (NUL, a lone surrogate) validates, as the format allows, and is refused at plan time before any write', async () => {
    const pack = structuredClone(loadPack('valid/buyer-lead-starter.json'));
    pack.packId = 'c0ffee00-1a2b-4c3d-9e4f-000000000024';
    pack.messageTemplates![0].body = 'Hi\u0000there';
    pack.resources![0].data = { note: '\uD800' };
    expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const { plan } = await planInstall(c, pack);
    expect(plan.ok).toBe(false);
    expect(plan.errors.map((e) => e.message)).toEqual([
      `Resource ${pack.resources![0].key}: data.note is not valid Unicode text (a lone surrogate), which the workspace cannot store (its database holds valid Unicode text, without U+0000). Remove the character.`,
      `Message template ${pack.messageTemplates![0].key}: body contains a NUL character (U+0000), which the workspace cannot store (its database holds valid Unicode text, without U+0000). Remove the character.`,
    ]);
    await expect(install(c, pack)).rejects.toThrow();
    expect(await c.listAll<any>('/v1/message-templates')).toEqual([]);
  });

  it('a stored automation document agrees with itself: it validates, and every reference names an id its graph writes', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    for (const file of ['releases/buyer-lead-1.0.0.json', 'valid/listing-marketing.json']) await install(c, loadPack(file));
    const autos = await c.listAll<any>('/v1/automations');
    expect(autos.length).toBeGreaterThan(3);
    let checked = 0;
    for (const a of autos) {
      expect(
        validateAutomationDocument(a.document).diagnostics.filter((d) => d.severity === 'error'),
        a.name,
      ).toEqual([]);
      const written = new Set<string>();
      for (const n of a.document.graph.nodes) stringsInConfig(n.config, written);
      for (const r of a.document.references ?? []) {
        expect(written.has(r.id), `${a.name}: reference ${r.type} ${r.id} is not in its graph`).toBe(true);
        expect(r.id).toMatch(/^[a-z]+_[0-9a-f]+$/);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3);
  });

  // Found by the round-trip property (roundtrip.fuzz.test.ts); each kept as a fixed case.
  describe('packs the generator found that validated but did not install or come back', () => {
    const STAMP = '2026-11-22T12:00:00Z';
    async function roundTrip(pack: Pack) {
      expect(validatePack(pack).diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const ws = await server().workspace();
      const c = clientFor(server(), ws.key);
      const result = await install(c, pack);
      expect(result.plan.ok).toBe(true);
      const again = await planInstall(c, pack);
      expect(again.plan.writes).toBe(0);
      const r = await exportWorkspace(c, { packId: pack.packId, exportedAt: STAMP });
      const { exportedAt: _at, ...exported } = r.pack;
      expect(canonicalize(exported)).toEqual(roundTripForm(pack));
      return { c, result };
    }
    const auto = (key: string, runs: string[]) => ({
      key,
      document: {
        format: 'service.automation-template' as const,
        version: 1 as const,
        name: `Automation ${key}`,
        graph: {
          nodes: [
            { id: 't', kind: 'trigger.manual' },
            ...runs.map((r, i) => ({ id: `r${i}`, kind: 'action.run_automation', config: { automation_id: r } })),
          ],
          edges: runs.map((_, i) => ({ id: `e${i}`, source: i === 0 ? 't' : `r${i - 1}`, target: `r${i}` })),
        },
        references: runs.map((r) => ({ type: 'automation' as const, id: r })),
      },
    });

    it('an automation that runs itself, and two that run each other, install (a second write completes them) and come back', async () => {
      const pack: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000021',
        name: 'Loops',
        version: '1.0.0',
        automations: [auto('again', ['again']), auto('ping', ['pong']), auto('pong', ['ping'])],
      };
      const { c, result } = await roundTrip(pack);
      // Three creations (pong first: ping runs it), then the two whose ids were not known yet are completed.
      expect(result.plan.steps.filter((s) => s.write).map((s) => `${s.action} ${s.key}`)).toEqual([
        'create again',
        'create pong',
        'create ping',
        'update again',
        'update pong',
      ]);
      const stored = await c.listAll<any>('/v1/automations');
      const id = (name: string) => stored.find((a) => a.name === name).id;
      const runs = (name: string) => stored.find((a) => a.name === name).document.graph.nodes[1].config.automation_id;
      expect(runs('Automation again')).toBe(id('Automation again'));
      expect(runs('Automation ping')).toBe(id('Automation pong'));
      expect(runs('Automation pong')).toBe(id('Automation ping'));
    });

    it('a stage key several pipelines have binds to the same stage whatever the order of the pipelines, so an export plans no writes', async () => {
      const stages = [
        { key: 'won', name: 'Won', stageType: 'CLOSED_WON' as const },
        { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' as const },
      ];
      const pack: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000025',
        name: 'Shared stage keys',
        version: '1.0.0',
        // Listed out of key order: export lists them sorted, and the binding must not move.
        pipelines: [
          { key: 'zeta', name: 'Sellers', stages },
          { key: 'alpha', name: 'Buyers', stages },
        ],
        automations: [
          {
            key: 'on-won',
            document: {
              format: 'service.automation-template',
              version: 1,
              name: 'On won',
              graph: { nodes: [{ id: 't', kind: 'trigger.deal_stage_changed', config: { stage_id: 'won' } }] },
              references: [{ type: 'deal_stage', id: 'won' }],
            },
          },
        ],
      };
      const { c } = await roundTrip(pack);
      const stored = (await c.listAll<any>('/v1/automations'))[0].document.graph.nodes[0].config.stage_id;
      const alpha = (await c.listAll<any>('/v1/pipeline-details')).find((p) => p.name === 'Buyers');
      expect(stored).toBe(alpha.stages.find((st: any) => st.name === 'Won').id); // the lowest pipeline key
      const r = await exportWorkspace(c, { packId: pack.packId });
      expect((await planInstall(c, r.pack)).plan.writes).toBe(0);
    });

    it("two references of different types with the same id: each typed block field gets its own type's object, and a snapshot installs elsewhere", async () => {
      const pack: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000026',
        name: 'Shared ids',
        version: '1.0.0',
        resources: [{ key: 'buyers', kind: 'lead_source', name: 'Buyer leads' }],
        pipelines: [
          {
            key: 'buyers',
            name: 'Buyer deals',
            stages: [
              { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
              { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' },
            ],
          },
        ],
        automations: [
          {
            key: 'a',
            document: {
              format: 'service.automation-template',
              version: 1,
              name: 'Two of a name',
              graph: {
                nodes: [
                  { id: 't', kind: 'trigger.contact_created', config: { lead_source_id: 'buyers' } },
                  { id: 'd', kind: 'action.create_deal', config: { pipeline_id: 'buyers', stage_id: 'won' } },
                ],
                edges: [{ id: 'e', source: 't', target: 'd' }],
              },
              references: [
                { type: 'lead_source', id: 'buyers' },
                { type: 'pipeline', id: 'buyers' },
                { type: 'deal_stage', id: 'won' },
              ],
            },
          },
        ],
      };
      const { c } = await roundTrip(pack);
      const [auto] = await c.listAll<any>('/v1/automations');
      const source = (await c.listAll<any>('/v1/lead-sources')).find((x) => x.name === 'Buyer leads');
      const pipeline = (await c.listAll<any>('/v1/pipeline-details')).find((x) => x.name === 'Buyer deals');
      expect(auto.document.graph.nodes.map((n: any) => n.config)).toEqual([
        { lead_source_id: source.id },
        { pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id },
      ]);
      const snapshot = await exportWorkspace(c, { all: true, exportedAt: STAMP });
      const b = clientFor(server(), (await server().workspace()).key);
      await install(b, snapshot.pack);
      expect(upToWorkspaceIds((await exportWorkspace(b, { all: true, exportedAt: STAMP })).pack)).toEqual(upToWorkspaceIds(snapshot.pack));
      expect((await planInstall(c, snapshot.pack)).plan.writes).toBe(0);
    });

    it('a snapshot holding an automation that runs itself goes back into its own workspace with no writes', async () => {
      const pack: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000027',
        name: 'Self',
        version: '1.0.0',
        automations: [auto('again', ['again'])],
      };
      const { c } = await roundTrip(pack);
      const snapshot = await exportWorkspace(c, { all: true, exportedAt: STAMP });
      expect((await planInstall(c, snapshot.pack)).plan.steps.filter((x) => x.write).map((x) => `${x.action} ${x.itemId}`)).toEqual([]);
    });

    it('stage names that differ only by spaces are distinct, as the format compares them', async () => {
      const pack: Pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000022',
        name: 'Stages',
        version: '1.0.0',
        pipelines: [
          {
            key: 'p',
            name: 'Blank stages',
            stages: [
              { key: 'a', name: '' },
              { key: 'b', name: ' ' },
              { key: 'c', name: 'Won', stageType: 'CLOSED_WON' },
              { key: 'd', name: 'won', stageType: 'CLOSED_LOST' },
            ],
          },
        ],
      };
      await roundTrip(pack);
    });

    it('keys and fields named like Object.prototype members ("constructor", "__proto__") are kept as data', async () => {
      const bytes = Buffer.from('logo');
      const pack = {
        format: 'service.setup-pack',
        schemaVersion: 2,
        packId: 'c0ffee00-1a2b-4c3d-9e4f-000000000023',
        name: 'Proto',
        version: '1.0.0',
        brand: JSON.parse('{"name": "Brand", "__proto__": "kept", "constructor": {"prototype": {"x": 1}}}'),
        resources: [
          { key: 'constructor', kind: 'contact_stage', name: 'Constructor stage', data: { note: 'kept in the ledger' } },
          { key: 'toString', kind: 'custom_field', name: 'Field', data: JSON.parse('{"__proto__": {"type": "text"}}') },
        ],
        assets: [
          {
            key: '__proto__',
            role: 'source_document',
            fileName: 'doc.pdf',
            mimeType: 'application/pdf',
            byteSize: 3,
            sha256: '0'.repeat(64),
            url: 'https://cdn.example.com/doc.pdf',
          },
          {
            key: 'constructor',
            role: 'logo',
            fileName: 'logo.png',
            mimeType: 'image/png',
            byteSize: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            data: bytes.toString('base64'),
          },
        ],
        messageTemplates: [
          {
            key: 'hasOwnProperty',
            name: 'Template',
            channel: 'email',
            body: 'Hi',
            richTextDoc: JSON.parse('{"__proto__": ["a"], "type": "doc"}'),
          },
        ],
      } as unknown as Pack;
      await roundTrip(pack);
    });
  });
});
