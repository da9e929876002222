// Ids in blocks' reference fields, against the real server: a pack key lands on the created object
// whether or not the automation lists it (items refer to each other by key), export gives the key
// back, and an id that is neither a pack key nor listed stops the plan before any write.
import { describe, expect, it } from 'vitest';
import { canonicalize, itemId, type Pack } from '@setup-pack/core';
import { exportWorkspace, install, planInstall, PlanFailedError, readLedger, type WorkspaceClient } from '../src/index.js';
import { cli, clientFor, loadPack, useServer } from './harness.js';

const v100 = loadPack('releases/buyer-lead-1.0.0.json');
const server = useServer();

/** v100 with the automations listing only what the workspace must bind: no pack key is listed. */
function unlisted(): Pack {
  const p = structuredClone(v100);
  const keys = new Set([
    ...(p.resources ?? []).map((r) => r.key),
    ...(p.messageTemplates ?? []).map((t) => t.key),
    ...(p.pipelines ?? []).flatMap((pl) => [pl.key, ...pl.stages.map((s) => s.key)]),
  ]);
  for (const a of p.automations ?? []) {
    if (!a.document.references) continue;
    a.document.references = a.document.references.filter((r) => !keys.has(r.id));
  }
  return p;
}

const config = (a: any, node: string) => a.document.graph.nodes.find((n: any) => n.id === node).config;

describe('pack keys in block reference fields', () => {
  it("installs an unlisted pack key as the created object's id, and exports it back as the key", async () => {
    const ws = await server().workspace();
    const c: WorkspaceClient = clientFor(server(), ws.key);
    const pack = unlisted();
    await install(c, pack);
    const ledger = (await readLedger(c, pack.packId))!.ledger;
    const idOf = (kind: string, key: string) => ledger.items[itemId(kind as never, key)].workspaceId;
    const autos = await c.listAll<any>('/v1/automations');
    const welcome = autos.find((a) => a.name === 'New lead welcome');
    expect(config(welcome, 'sms').template_id).toBe(idOf('template', 'tpl-welcome-sms'));
    expect(config(welcome, 'tag').tag_id).toBe(idOf('resource', 'tag-buyer-lead'));
    // Every stored block id names an object that exists in the workspace.
    const templates = await c.listAll<any>('/v1/message-templates');
    expect(templates.map((t) => t.id)).toContain(config(welcome, 'sms').template_id);
    const nurture = autos.find((a) => a.name === 'Stage nurture');
    const pipeline = (await c.listAll<any>('/v1/pipelines')).find((p) => p.id === idOf('pipeline', 'buyer-pipeline'));
    expect(config(nurture, 'deal').pipeline_id).toBe(pipeline.id);
    expect(pipeline.stages.map((s: any) => s.id)).toContain(config(nurture, 'deal').stage_id);

    const again = await planInstall(c, pack);
    expect(again.plan.hasChanges).toBe(false);
    const exported = await exportWorkspace(c, { packId: pack.packId, exportedAt: pack.exportedAt });
    expect(exported.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(canonicalize(exported.pack as never).automations).toEqual(canonicalize(pack as never).automations);
  });

  it("a typo in a block's template_id fails the plan naming the automation, block and field, before any write", async () => {
    const ws = await server().workspace();
    const c = clientFor(server(), ws.key);
    const pack = structuredClone(v100);
    config(pack.automations![0], 'sms').template_id = 'tpl-welcom-sms';
    const run = install(c, pack);
    await expect(run).rejects.toBeInstanceOf(PlanFailedError);
    const errors = ((await run.catch((e) => e)) as PlanFailedError).plan.errors;
    expect(errors).toEqual([
      {
        code: 'plan/unresolved-id',
        message:
          'automation new-lead-welcome ("New lead welcome"): config.template_id of action.send_sms node "sms" is "tpl-welcom-sms", which is neither the key of an email_template in this pack nor an id the automation lists in its references, so installing cannot point the block at anything; did you mean "tpl-welcome-sms"?',
      },
    ]);
    expect(await c.listAll('/v1/message-templates')).toEqual([]);
    expect(await readLedger(c, pack.packId)).toBeNull();
  });

  it('the CLI: validate warns with the nearest key, plan exits 1 with the error', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const validate = await cli(['validate', 'invalid/reference-unresolved-id.json'], env);
    expect(validate.code).toBe(0);
    expect(validate.stdout).toMatch(
      /warning config\.template_id of action\.send_sms node "sms" is "tpl-welcom-sms", .*did you mean "tpl-welcome-sms"\? reference\/unresolved-id/,
    );
    const plan = await cli(['plan', 'invalid/reference-unresolved-id.json'], env);
    expect(plan.code).toBe(1);
    expect(plan.stdout + plan.stderr).toMatch(
      /automation new-lead-welcome \("New lead welcome"\): config\.template_id of action\.send_sms node "sms" is "tpl-welcom-sms"/,
    );
  });
});
