// The setup-pack plan / install / uninstall / status commands against the real server.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, clientFor, FIXTURES_DIR, useServer } from './harness.js';

const server = useServer();

describe('setup-pack plan / install / uninstall / status', () => {
  it('plans, installs, re-plans, upgrades and uninstalls with Terraform-style output and exit codes', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };

    const plan = await cli(['plan', 'releases/buyer-lead-1.0.0.json', '--detailed-exitcode'], env);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/^ {2}\+ automation new-lead-welcome "New lead welcome" \(new\)$/m);
    expect(plan.stdout).toMatch(/^ {2}= resource src-zillow "Zillow" \(existing workspace object with the same name\)$/m);
    expect(plan.stdout).toMatch(/user usr_8841 "Jordan Lee" → mem_\w+ \(name\)/);
    expect(plan.stdout).toMatch(/^Plan: 10 to create, 0 to update, 0 to remove, 1 unchanged\.$/m);

    const inst = await cli(['install', 'releases/buyer-lead-1.0.0.json', '--format', 'json'], env);
    expect(inst.code).toBe(0);
    const result = JSON.parse(inst.stdout);
    expect(result.written).toBe(10);

    const again = await cli(['plan', 'releases/buyer-lead-1.0.0.json', '--detailed-exitcode'], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^No changes\. 11 items up to date\.$/m);

    const up = await cli(['plan', 'releases/buyer-lead-1.1.0.json', '--prune', '--url', server().base, '--key', ws.key], {});
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/version: 1\.0\.0 → 1\.1\.0 \(upgrade\)/);
    expect(up.stdout).toMatch(/^ {2}~ template tpl-follow-up "Follow-up email \(buyers\)" \(content changed: [a-z_, ]+\)$/m);
    expect(up.stdout).toMatch(/^ {2}- automation old-reminder "Old reminder" \(gone from the release\)$/m);

    const tty = await cli(['install', 'releases/buyer-lead-1.1.0.json', '--prune'], env, FIXTURES_DIR, true);
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/\[#+-*\] 1\/\d+ /);
    expect(tty.stdout).toMatch(/Applied: \d+ item writes; Buyer Lead Starter 1\.1\.0 is installed/);

    const status = await cli(['status'], env);
    expect(status.stdout).toMatch(/^Buyer Lead Starter 1\.1\.0 installed 6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12, \d+ items/m);

    // The user edits one installed tag: uninstall keeps it, in uninstall's words (it has no --overwrite).
    const tag = (await clientFor(server(), ws.key).listAll<any>('/v1/tags')).find((t) => t.name === 'Buyer lead');
    await clientFor(server(), ws.key).patch(`/v1/tags/${tag.id}`, { name: 'Buyer lead (mine)' });
    const un = await cli(['uninstall', '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12'], env);
    expect(un.code).toBe(0);
    expect(un.stdout).toMatch(/^version: 1\.1\.0 → not installed \(uninstall\)$/m);
    expect(un.stdout).toMatch(
      /^ {2}! resource tag-buyer-lead "Buyer lead \(mine\)" \(edited in the workspace: kept, as it belongs to the workspace now\)$/m,
    );
    expect(un.stdout).not.toContain('--overwrite');
    expect(un.stdout).toMatch(/Removed \d+ items; kept 1 edited in the workspace\./);
    expect((await cli(['status', '--format', 'json'], env)).stdout).toContain('"packs": []');
  });

  it('fails a plan with every unresolved reference and a usage error without a workspace', async () => {
    const ws = await server().workspace({ members: [] });
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const r = await cli(['install', 'valid/listing-marketing.json'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/The plan failed \(1 problem\)/);
    expect(r.stderr).toMatch(/user "Avery Brooks" \(usr_listing_coord\).*--bind user:usr_listing_coord=<workspace id>/);
    expect(r.stderr).toContain(
      'or add the member to the workspace: workspace-server add-member --workspace <workspace id> --name "Avery Brooks" --email <address>',
    );
    const json = await cli(['plan', 'valid/listing-marketing.json', '--format', 'json', '--detailed-exitcode'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).errors[0].code).toBe('plan/unresolved-reference');
    const bad = await cli(['plan', 'valid/listing-marketing.json', '--bind', 'nonsense'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--bind expects type:id=workspaceId/);
    // A bindings file resolves it; the install then succeeds.
    const member = await server().admin('POST', `/admin/workspaces/${ws.id}/members`, { name: 'Pat Doe', email: 'pat@example.test' });
    const file = join(mkdtempSync(join(tmpdir(), 'bind-')), 'bindings.json');
    writeFileSync(file, JSON.stringify({ 'user:usr_listing_coord': member.id }));
    const bound = await cli(['install', 'valid/listing-marketing.json', '--bindings', file], env);
    expect(bound.code).toBe(0);
    expect(bound.stdout).toMatch(new RegExp(`user usr_listing_coord "Avery Brooks" → ${member.id} \\(option\\)`));
    const none = await cli(['status'], {});
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/WORKSPACE_URL/);
  });
});

describe('setup-pack install: bad addresses and bad files say what is wrong', () => {
  it('with nothing listening, fails in a few seconds naming the address and the cause', async () => {
    // A port that was just free: nothing answers there.
    const probe = (await import('node:net')).createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const started = Date.now();
    const r = await cli(['install', 'valid/buyer-lead-starter.json', '--url', `http://127.0.0.1:${port}`, '--key', 'sk_test_nothing'], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`setup-pack: network_error: cannot reach http://127.0.0.1:${port} (connection refused)\n`);
    // Two quick retries, not the backoff for faults mid-run (which took 22-32 s here).
    expect(Date.now() - started).toBeLessThan(15000);
  });

  it('says on stderr how long it waits when the workspace refuses a request (429, Retry-After), then carries on', async () => {
    // A limit the plan's reads overrun once, two seconds before the server's minute ends: the
    // request past the limit is refused with Retry-After: 2. The CLI's client sleeps for real;
    // the server's clock turns to the next window as the refusal arrives, so the retry is answered.
    const ws = await server().workspace({ rateLimit: 8 });
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const clock = server().clock;
    clock.set(Math.ceil((clock.now().getTime() + 1) / 60000) * 60000 + 58000);
    const realFetch = globalThis.fetch;
    let refused = 0;
    globalThis.fetch = async (input, init) => {
      const res = await realFetch(input, init);
      if (res.status === 429 && refused++ === 0) clock.advance(3000);
      return res;
    };
    try {
      const started = Date.now();
      const r = await cli(['plan', 'releases/buyer-lead-1.0.0.json'], env);
      expect(refused).toBe(1);
      expect(r.stderr).toBe('setup-pack: waiting 2 s as the workspace asked (429, Retry-After)…\n');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Plan: 10 to create, 0 to update, 0 to remove, 1 unchanged\.$/m);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('on a terminal, a wait in the middle of the writes is said on a line of its own, not at the end of the progress bar', async () => {
    // As above, but with a limit spent after the plan's reads, while the bar is drawn.
    const ws = await server().workspace({ rateLimit: 18 });
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const clock = server().clock;
    clock.set(Math.ceil((clock.now().getTime() + 1) / 60000) * 60000 + 58000);
    const realFetch = globalThis.fetch;
    let refused = 0;
    globalThis.fetch = async (input, init) => {
      const res = await realFetch(input, init);
      if (res.status === 429 && refused++ === 0) clock.advance(3000);
      return res;
    };
    try {
      const r = await cli(['install', 'releases/buyer-lead-1.0.0.json'], env, FIXTURES_DIR, true);
      expect(r.code, r.stderr).toBe(0);
      expect(refused).toBe(1);
      const waitLine = r.stderr.split('\n').find((l) => l.includes('waiting'))!;
      expect(waitLine).toMatch(/\[#+-*\] \d+\/10 /); // the bar was drawn before the wait…
      // …and cleared: after the line's last carriage return comes the wait alone. Before, the wait
      // was written onto the end of the bar ("[####----] 4/10 create template:x setup-pack: waiting…").
      expect(waitLine.slice(waitLine.lastIndexOf('\r') + 1)).toBe('setup-pack: waiting 2 s as the workspace asked (429, Retry-After)…');
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('a file that is not JSON is named once, with its line and column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-install-'));
    writeFileSync(join(dir, 'broken.json'), '{\n  "format": "service.setup-pack",\n  oops\n}\n');
    const r = await cli(['install', join(dir, 'broken.json'), '--url', server().base, '--key', 'sk_test_unused'], {});
    // Invalid input, as validate says it: 1 (2 is for usage errors and files that cannot be read).
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/broken\.json:3:3: The file is not valid JSON: [^\n]+\n$/);
    expect(r.stderr.match(/not valid JSON/g)).toHaveLength(1);
  });

  it('plans and installs a source folder as the pack it builds, and names the file of a folder that is not a valid pack', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const dir = mkdtempSync(join(tmpdir(), 'setup-pack-install-'));
    const src = join(dir, 'src');
    expect((await cli(['unpack', 'releases/buyer-lead-1.0.0.json', src], {})).code).toBe(0);
    const fromFolder = await cli(['plan', src, '--format', 'json'], env);
    expect(fromFolder.code, fromFolder.stderr).toBe(0);
    const fromFile = await cli(['plan', 'releases/buyer-lead-1.0.0.json', '--format', 'json'], env);
    expect(JSON.parse(fromFolder.stdout)).toEqual(JSON.parse(fromFile.stdout));
    const inst = await cli(['install', src], env);
    expect(inst.code, inst.stderr).toBe(0);
    // What the folder installed is the release itself: the file plans to nothing.
    expect((await cli(['plan', 'releases/buyer-lead-1.0.0.json', '--detailed-exitcode'], env)).code).toBe(0);
    // A folder whose pack is not valid: refused before any request, at the file and line of the first error.
    const manifest = join(src, 'manifest.json');
    writeFileSync(manifest, readFileSync(manifest, 'utf8').replace(/"packId": "[^"]*"/, '"packId": "not-a-uuid"'));
    const bad = await cli(['plan', src], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      / does not build \(1 error, first: packId is "not-a-uuid"[^\n]* at [^\n]*manifest\.json:5:\d+\); run 'setup-pack validate [^\n]*src'\n$/,
    );
  });

  it('a downgrade refusal names the flag, not an internal option', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const installed = await cli(['install', 'releases/buyer-lead-1.1.0.json'], env);
    expect(installed.code, installed.stderr).toBe(0);
    const r = await cli(['install', 'releases/buyer-lead-1.0.0.json'], env);
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toContain('--allow-downgrade');
    expect(r.stderr + r.stdout).not.toContain('allowDowngrade');
  });

  it('uninstall says which installed pack holds what it keeps, and counts it apart from edited items', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const dir = mkdtempSync(join(tmpdir(), 'held-'));
    const pack = (packId: string, name: string) => ({
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId,
      name,
      version: '1.0.0',
      resources: [{ key: 'hot', kind: 'tag', name: 'Hot lead' }],
      messageTemplates: [{ key: 'welcome', name: 'Welcome', channel: 'sms', body: 'Hi' }],
    });
    writeFileSync(join(dir, 'a.json'), JSON.stringify(pack('c0ffee00-1a2b-4c3d-9e4f-000000000047', 'Pack A')));
    writeFileSync(join(dir, 'b.json'), JSON.stringify(pack('c0ffee00-1a2b-4c3d-9e4f-000000000048', 'Pack B')));
    expect((await cli(['install', 'a.json'], env, dir)).code).toBe(0);
    expect((await cli(['install', 'b.json'], env, dir)).code).toBe(0);
    const un = await cli(['uninstall', 'c0ffee00-1a2b-4c3d-9e4f-000000000047'], env, dir);
    expect(un.code).toBe(0);
    expect(un.stdout).toMatch(
      /resource hot "Hot lead" \(used by the installed pack "Pack B" \(c0ffee00-1a2b-4c3d-9e4f-000000000048\): kept\)/,
    );
    expect(un.stdout).not.toContain('gone from the release');
    expect(un.stdout).toMatch(/^Removed 0 items; kept 2 used by another installed pack\.$/m);
  });
});

describe('setup-pack plan / install: warnings', () => {
  it('an unchanged automation naming a stage removed by hand from a kept pipeline: a warning block (pretty) and a warnings array (json), exit 0; install goes through', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const c = clientFor(server(), ws.key);
    const dir = mkdtempSync(join(tmpdir(), 'warn-'));
    const v1 = {
      format: 'service.setup-pack',
      schemaVersion: 2,
      packId: 'c0ffee00-1a2b-4c3d-9e4f-0000000000d1',
      name: 'Stages',
      version: '1.0.0',
      pipelines: [
        {
          key: 'deals',
          name: 'Deals',
          stages: [
            { key: 'new', name: 'New' },
            { key: 'won', name: 'Won', stageType: 'CLOSED_WON' },
            { key: 'lost', name: 'Lost', stageType: 'CLOSED_LOST' },
          ],
        },
      ],
      automations: [
        {
          key: 'move',
          document: {
            format: 'service.automation-template',
            version: 1,
            name: 'Move deal',
            graph: {
              nodes: [
                { id: 't', kind: 'trigger.deal_created', config: { pipeline_id: 'deals' } },
                { id: 'm', kind: 'action.move_deal_stage', config: { stage_id: 'new' } },
              ],
              edges: [{ id: 'e', source: 't', target: 'm' }],
            },
            references: [
              { type: 'pipeline', id: 'deals' },
              { type: 'deal_stage', id: 'new' },
            ],
          },
        },
      ],
    };
    writeFileSync(join(dir, 'v1.json'), JSON.stringify(v1));
    writeFileSync(join(dir, 'v2.json'), JSON.stringify({ ...v1, version: '1.0.1' }));
    expect((await cli(['install', 'v1.json'], env, dir)).code).toBe(0);
    const pipeline = (await c.listAll<any>('/v1/pipeline-details')).find((p) => p.name === 'Deals');
    await c.patch(`/v1/pipelines/${pipeline.id}`, {
      stages: pipeline.stages.filter((s: any) => s.name !== 'New').map(({ id, name, type }: any) => ({ id, name, type })),
    });

    const message =
      'deal_stage new used by move: pipeline deals ("Deals") has no such stage in the workspace, where it was edited since it was installed and is kept; automation move "Move deal" is left as it is, still naming the removed stage: --overwrite replaces the pipeline with the release\'s, stages included, and points move at its stage new';
    const plan = await cli(['plan', 'v2.json', '--detailed-exitcode'], env, dir);
    // Only the ledger's version changes: changes (2), not an error (1), whatever the warning.
    expect(plan.code).toBe(2);
    const lines = plan.stdout.split('\n');
    expect(lines).toContain(`warning: ${message} [plan/missing-stage]`);
    // After the items, before the summary, which counts it.
    expect(lines.indexOf(`warning: ${message} [plan/missing-stage]`)).toBeGreaterThan(
      lines.findIndex((l) => l.startsWith('  ! pipeline deals')),
    );
    expect(lines.at(-2)).toBe(
      'Plan: 0 to create, 0 to update, 0 to remove, 1 conflict (kept), 1 unchanged. (Only the install ledger changes.) 1 warning.',
    );
    expect(plan.stderr).toBe('');

    const json = await cli(['plan', 'v2.json', '--format', 'json'], env, dir);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      errors: [],
      warnings: [
        {
          code: 'plan/missing-stage',
          item: { itemId: 'automation:move', kind: 'automation', key: 'move', name: 'Move deal' },
          message,
          reference: { type: 'deal_stage', id: 'new' },
        },
      ],
    });

    const inst = await cli(['install', 'v2.json'], env, dir);
    expect(inst.code).toBe(0);
    expect(inst.stdout).toContain(`warning: ${message} [plan/missing-stage]`);
    expect(inst.stdout).toMatch(/^Applied: 0 item writes; Stages 1\.0\.1 is installed/m);
    const again = await cli(['install', 'v2.json', '--format', 'json'], env, dir);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      ok: true,
      hasChanges: false,
      written: 0,
      warnings: [{ code: 'plan/missing-stage', message }],
    });
    // Nothing to do, a warning still said: --detailed-exitcode stays 0 (no changes).
    const none = await cli(['plan', 'v2.json', '--detailed-exitcode'], env, dir);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^No changes\. 1 item up to date, 1 edited in the workspace kept\. 1 warning\.$/m);

    // --overwrite puts the stage back: no warning left.
    const over = await cli(['install', 'v2.json', '--overwrite'], env, dir);
    expect(over.code).toBe(0);
    expect(over.stdout).not.toContain('warning:');
    expect(JSON.parse((await cli(['plan', 'v2.json', '--format', 'json'], env, dir)).stdout).warnings).toEqual([]);
  });

  it('a tag adopted by name whose color differs: said as a warning by plan and install, in both formats', async () => {
    const ws = await server().workspace();
    const env = { WORKSPACE_URL: server().base, WORKSPACE_API_KEY: ws.key };
    const mine = await clientFor(server(), ws.key).post<any>('/v1/tags', { name: 'Buyer lead', color: '#111111' });
    const message = `resource tag-buyer-lead "Buyer lead" is the workspace's own "Buyer lead" (${mine.id}), adopted by name, and differs from the pack's (color): the pack never writes an object it adopted, so the workspace's copy is kept as it is`;
    const plan = await cli(['plan', 'releases/buyer-lead-1.0.0.json'], env);
    expect(plan.code).toBe(0);
    expect(plan.stdout.split('\n')).toContain(`warning: ${message} [plan/adopted-differs]`);
    expect(plan.stdout).toMatch(/^Plan: 9 to create, 0 to update, 0 to remove, 2 unchanged\. 1 warning\.$/m);
    const inst = await cli(['install', 'releases/buyer-lead-1.0.0.json', '--format', 'json'], env);
    expect(inst.code).toBe(0);
    expect(JSON.parse(inst.stdout).warnings).toEqual([
      {
        code: 'plan/adopted-differs',
        item: { itemId: 'resource:tag-buyer-lead', kind: 'resource', key: 'tag-buyer-lead', name: 'Buyer lead' },
        message,
        fields: ['color'],
      },
    ]);
  });
});
