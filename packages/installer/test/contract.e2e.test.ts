// What `setup-pack validate` accepts installs: the catalog routes take the pack's own rules (they
// $ref the published schemas), and where the API is stricter than the format the plan says so
// before anything is written.
import { describe, expect, it } from 'vitest';
import { base64Length, stringsInConfig, validateAutomationDocument, validatePack, WORKSPACE_LIMITS, type Pack } from '@setup-pack/core';
import { install, planInstall } from '../src/index.js';
import { clientFor, loadPack, useServer } from './harness.js';

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
      fetch(`${server().base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const tooLong = await post('/v1/message-templates', { name: 'x'.repeat(201), channel: 'sms', body: 'hi' });
    expect(tooLong.status).toBe(400);
    expect((await tooLong.json()).error).toMatchObject({ param: 'name', message: 'Invalid name: must NOT have more than 200 characters' });
    const longBody = await post('/v1/message-templates', { name: 'Long', channel: 'sms', body: 'b'.repeat(20001) });
    expect((await longBody.json()).error).toMatchObject({ param: 'body', message: 'Invalid body: must NOT have more than 20000 characters' });
    const badColor = await post('/v1/tags', { name: 'Red', color: 'red' });
    expect(badColor.status).toBe(400);
    expect((await badColor.json()).error).toMatchObject({ param: 'color', message: expect.stringContaining('must match pattern') });
    const cleared = await post('/v1/tags', { name: 'Plain', color: null });
    expect(cleared.status).toBe(201);
    // Base64 as strict as the pack's asset rule: non-canonical bits, whitespace or base64url are refused.
    expect(validatePack({ ...loadPack('valid/buyer-lead-starter.json'), assets: [{ key: 'a', role: 'team_photo', fileName: 'a.bin', mimeType: 'application/octet-stream', byteSize: 1, sha256: '0'.repeat(64), data: 'QR==' }] }).diagnostics.map((d) => d.code)).toContain('asset/invalid-base64');
    for (const data of ['QR==', 'QQ= =', 'a-_b']) {
      const media = await post('/v1/media', { file_name: 'a.bin', mime_type: 'application/octet-stream', data });
      expect(media.status, data).toBe(400);
      expect((await media.json()).error).toMatchObject({ param: 'data' });
    }
    expect((await post('/v1/media', { file_name: 'a.bin', mime_type: 'application/octet-stream', data: 'QQ==' })).status).toBe(201);
  });

  it('an asset larger than the media library takes is refused at plan time, before any write', async () => {
    const pack = structuredClone(loadPack('valid/buyer-lead-starter.json'));
    const bytes = WORKSPACE_LIMITS.mediaFileBytes + 3;
    const data = 'A'.repeat(base64Length(bytes));
    pack.assets = [{ key: 'huge', role: 'team_photo', fileName: 'huge.bin', mimeType: 'application/octet-stream', byteSize: bytes, sha256: '0'.repeat(64), data }];
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const { plan } = await planInstall(c, pack);
    expect(plan.ok).toBe(false);
    expect(plan.errors.map((e) => e.code)).toEqual(['plan/api-limit']);
    expect(plan.errors[0].message).toMatch(/^Asset huge \(huge\.bin\) is 10 MiB; the workspace's media library takes files up to 10 MiB/);
  });

  it('a stored automation document agrees with itself: it validates, and every reference names an id its graph writes', async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    for (const file of ['releases/buyer-lead-1.0.0.json', 'valid/listing-marketing.json']) await install(c, loadPack(file));
    const autos = await c.listAll<any>('/v1/automations');
    expect(autos.length).toBeGreaterThan(3);
    let checked = 0;
    for (const a of autos) {
      expect(validateAutomationDocument(a.document).diagnostics.filter((d) => d.severity === 'error'), a.name).toEqual([]);
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
});
