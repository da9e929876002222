// The editor connected to a live workspace, in Debian's headless Chromium against the real
// workspace server (started here, allowing the editor's origin): connect with a key and see the
// workspace's name and the key's scopes; the key stays in the tab's session only; a wrong key and
// an origin the server does not allow each get a sentence, never a blank panel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { canonicalize, roundTripForm } from '@setup-pack/core';
import { install, planInstall, summaryLine, WorkspaceClient } from '@setup-pack/installer';
import { buildServer, openStore, type Store } from '@setup-pack/workspace-server';
import { join } from 'node:path';
import { chromiumMissing, editorRoot, repoRoot, startEditor } from './support/harness.mjs';

type Editor = Awaited<ReturnType<typeof startEditor>>;
const missing = chromiumMissing();
if (missing) console.warn(`editor connect end to end: SKIPPED, ${missing}`);
let editor: Editor;
let store: Store;
let api: { base: string; key: string; close(): Promise<void> };
let closed: { base: string; close(): Promise<void> };
let full: { key: string; workspace: string };
let cove: { key: string };

/** How far behind real time the `skewed` server's clock runs (set by a test). */
let skewMs = 0;
let skewed: { base: string; close(): Promise<void> };

async function serve(corsOrigins: string[], clock?: { now(): Date }) {
  const app = await buildServer({ store, adminToken: 'adm', corsOrigins, clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
}

beforeAll(async () => {
  if (missing) return;
  editor = await startEditor();
  store = await openStore({ memory: true });
  const s = await serve([editor.url]);
  const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
  const ws = await (
    await fetch(`${s.base}/admin/workspaces`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Harbor Realty', slug: 'harbor' }),
    })
  ).json();
  const key = (
    await (
      await fetch(`${s.base}/admin/workspaces/${ws.id}/api-keys`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ scopes: ['read_contacts', 'write_tags'] }),
      })
    ).json()
  ).secret;
  api = { ...s, key };
  // A second workspace with a full_access key and the members the fixture's automations name.
  const ws2 = await (
    await fetch(`${s.base}/admin/workspaces`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Bayside Homes', slug: 'bayside' }),
    })
  ).json();
  for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
    await fetch(`${s.base}/admin/workspaces/${ws2.id}/members`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name, email: `m${i}@example.test` }),
    });
  full = {
    workspace: ws2.id,
    key: (
      await (
        await fetch(`${s.base}/admin/workspaces/${ws2.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret,
  };
  // A third workspace for the reference pickers: the members, and a tag made by hand.
  const ws3 = await (
    await fetch(`${s.base}/admin/workspaces`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Cove Realty', slug: 'cove' }),
    })
  ).json();
  for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
    await fetch(`${s.base}/admin/workspaces/${ws3.id}/members`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name, email: `c${i}@example.test` }),
    });
  cove = {
    key: (
      await (
        await fetch(`${s.base}/admin/workspaces/${ws3.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret,
  };
  await new WorkspaceClient({ baseUrl: s.base, apiKey: cove.key }).post('/v1/tags', { name: 'VIP client', color: '#f59e0b' });
  closed = await serve([]); // same workspace, but this server allows no other origin
  // The same store on a clock the rate-limit test turns back, so that a minute's window ends when it says.
  skewed = await serve([editor.url], { now: () => new Date(Date.now() - skewMs) });
}, 180_000);
afterAll(async () => {
  await api?.close();
  await closed?.close();
  await skewed?.close();
  await store?.close();
  await editor?.close();
});

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15000, interval: 50 });

/**
 * A new tab on the starter pack, connected through the address's fragment as `npm start` does.
 * `packDelayMs` holds the pack's file back, so the workspace is connected while the pack is opening.
 */
async function openConnected(key: string, workspace: string, height = 900, base = api.base, packDelayMs = 0) {
  const context = await editor.browser.newContext({ viewport: { width: 1500, height } });
  const page = await context.newPage();
  if (packDelayMs > 0)
    await page.route('**/fixtures/valid/buyer-lead-starter.json', async (route) => {
      await new Promise((r) => setTimeout(r, packDelayMs));
      await route.continue();
    });
  await page.goto(
    `${editor.url}/?pack=/fixtures/valid/buyer-lead-starter.json#workspace=${encodeURIComponent(base)}&key=${encodeURIComponent(key)}`,
  );
  await poll(() => page.getByTestId('connect-button').textContent()).toContain(workspace);
  return { context, page };
}

describe.skipIf(missing)(`editor connected to a workspace${missing ? ` (skipped: ${missing})` : ''}`, () => {
  it("connects with a key, shows the workspace and the key's scopes, keeps the key in the tab only, and says why when it cannot", async () => {
    const context = await editor.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${editor.url}/?pack=/fixtures/valid/buyer-lead-starter.json`);
    await page.getByTestId('connect-button').click();
    const dialog = page.getByRole('dialog', { name: 'Connect to workspace' });

    // A wrong key: the workspace's refusal in words.
    await dialog.getByLabel('Workspace base URL').fill(api.base);
    await dialog.getByLabel('API key').fill('sk_wrong');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => page.getByTestId('connect-status').textContent()).toMatch(
      new RegExp(`The workspace at ${api.base} refused this API key`),
    );

    // A server that does not allow this origin: the browser blocks it; the editor says what to do.
    await dialog.getByLabel('Workspace base URL').fill(closed.base);
    await dialog.getByLabel('API key').fill(api.key);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => page.getByTestId('connect-status').textContent()).toContain(
      `Cannot reach ${closed.base}: the server is not running there, or it does not allow this editor's origin (${editor.url}). Start it with --cors-origin ${editor.url}`,
    );

    // The right server and key.
    await dialog.getByLabel('Workspace base URL').fill(api.base);
    await dialog.getByLabel('API key').fill(api.key);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await poll(() => page.getByTestId('connect-button').textContent()).toContain('Harbor Realty');
    await page.getByTestId('connect-button').click();
    expect(await page.getByTestId('connect-scopes').textContent()).toBe('READ_CONTACTS, WRITE_TAGS');
    await page.screenshot({ path: join(editorRoot, 'test-results', 'connect.png') });

    // The key: in this tab's session, nowhere else (not localStorage, not the pack).
    const stored = await page.evaluate(() => ({
      session: sessionStorage.getItem('setup-pack.workspace-connection') ?? '',
      local: JSON.stringify({ ...localStorage }),
      pack: JSON.stringify((window as unknown as { __editor: { pack: unknown } }).__editor.pack),
    }));
    expect(JSON.parse(stored.session)).toEqual({ baseUrl: api.base, apiKey: api.key });
    expect(stored.local).not.toContain(api.key);
    expect(stored.pack).not.toContain(api.key);

    // A reload in the same tab stays connected; a new tab (a new session) does not.
    await page.reload();
    await poll(() => page.getByTestId('connect-button').textContent()).toContain('Harbor Realty');
    const other = await (await editor.browser.newContext()).newPage();
    await other.goto(`${editor.url}/`);
    await poll(() => other.getByTestId('connect-button').textContent()).toBe('Connect to workspace');

    // npm start hands a connection over in the address's fragment, which is then removed.
    const handed = await context.newPage();
    await handed.goto(`${editor.url}/#workspace=${encodeURIComponent(api.base)}&key=${encodeURIComponent(api.key)}`);
    await poll(() => handed.getByTestId('connect-button').textContent()).toContain('Harbor Realty');
    expect(handed.url()).not.toContain(api.key);

    // Disconnect forgets the key.
    await page.getByTestId('connect-button').click();
    await page.getByRole('button', { name: 'Disconnect' }).click();
    expect(await page.evaluate(() => sessionStorage.getItem('setup-pack.workspace-connection'))).toBeNull();
    await context.close();
  }, 120_000);

  it("previews the plan with core's planner: all new, installs from the editor, then nothing to do, then a conflict when the workspace edits a template", async () => {
    const { context, page } = await openConnected(full.key, 'Bayside Homes');
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    // Opening the panel reads the workspace and plans.
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^Plan: \d+ to create, 0 to update/);
    expect(await panel.locator('li[data-action="create"]', { hasText: 'New lead welcome' }).count()).toBe(1);
    // The references the plan binds in the workspace are listed, as setup-pack plan lists them.
    expect(await panel.getByTestId('plan-references').textContent()).toMatch(/user Jordan Lee → mem_\w+ \(matched by name\)/);

    // Install from the editor (the installer the CLI uses); the plan then has nothing to do.
    await panel.getByRole('button', { name: 'Install', exact: true }).click();
    await poll(() => panel.getByTestId('install-summary').textContent()).toMatch(
      /^Installed Buyer Lead Starter 1\.0\.0 into Bayside Homes: \d+ writes\. Open the automations as installed$/,
    );
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^No changes\./);
    expect(await panel.getByRole('button', { name: 'Install', exact: true }).isDisabled()).toBe(true);
    // The workspace holds it, as the CLI would have installed it: a plan from Node agrees.
    const pack = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    const client = new WorkspaceClient({ baseUrl: api.base, apiKey: full.key });
    expect((await planInstall(client, pack)).plan.writes).toBe(0);
    // A later refresh says what the workspace holds now, not the install's summary of before.
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await poll(() => panel.getByTestId('install-summary').count()).toBe(0);
    await panel.getByRole('button', { name: 'Install', exact: true }).waitFor();

    // Open from the workspace: the installed pack comes back equal to the one installed.
    await panel.getByRole('button', { name: 'Open installed', exact: true }).click();
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('Bayside Homes: Buyer Lead Starter 1.0.0');
    const opened = (await page.evaluate(() => (window as unknown as { __editor: { pack: unknown } }).__editor.pack)) as Record<
      string,
      unknown
    >;
    const { exportedAt: _at, ...exported } = opened;
    expect(canonicalize(exported)).toEqual(roundTripForm(pack));

    // Someone edits a template in the workspace: the preview shows the conflict.
    const tpl = (await client.listAll<{ id: string; name: string }>('/v1/message-templates')).find((t) => t.name === 'Welcome text')!;
    await client.patch(`/v1/message-templates/${tpl.id}`, { body: 'Edited in the workspace' });
    await panel.getByRole('button', { name: 'Refresh' }).click();
    await poll(() => panel.locator('li[data-action="conflict"]').first().textContent()).toContain('Welcome text');
    await page.screenshot({ path: join(editorRoot, 'test-results', 'plan.png') });
    await context.close();
  }, 120_000);

  it("shows the plan's warnings apart from errors, in core's words: a stage removed by hand that an unchanged automation names; the item opens from the warning", async () => {
    // A workspace of its own: the starter pack installed from Node, then a stage removed by hand.
    const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
    const ws = await (
      await fetch(`${api.base}/admin/workspaces`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Mesa Realty', slug: 'mesa' }),
      })
    ).json();
    await fetch(`${api.base}/admin/workspaces/${ws.id}/members`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Jordan Lee', email: 'm0@example.test' }),
    });
    const key = (
      await (
        await fetch(`${api.base}/admin/workspaces/${ws.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret;
    const client = new WorkspaceClient({ baseUrl: api.base, apiKey: key });
    const pack = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    await install(client, pack);
    const buyers = (
      await client.listAll<{ id: string; name: string; stages: { id: string; name: string; type: string }[] }>('/v1/pipeline-details')
    ).find((p) => p.name === 'Buyers')!;
    await client.patch(`/v1/pipelines/${buyers.id}`, {
      stages: buyers.stages.filter((st) => st.name !== 'Showing homes').map(({ id, name, type }) => ({ id, name, type })),
    });
    // What the planner says, from Node: the editor must show this, not a sentence of its own.
    const expected = (await planInstall(client, pack)).plan.warnings;
    expect(expected.map((w) => w.code)).toEqual(['plan/missing-stage']);

    // Connected while the pack is still opening: Plan waits for the pack, so what it reads and plans
    // is for this pack, not for the one shown before.
    const { context, page } = await openConnected(key, 'Mesa Realty', 900, api.base, 2000);
    expect(await page.getByTestId('plan-button').isDisabled()).toBe(true);
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    // Opening the panel reads the workspace and plans.
    // The plan goes through: no errors, its summary counts the warning.
    await poll(() => panel.getByTestId('plan-summary').textContent()).toBe(
      'No changes. 10 items up to date, 1 edited in the workspace kept. 1 warning.',
    );
    expect(await panel.getByTestId('plan-errors').count()).toBe(0);
    const warnings = panel.getByRole('list', { name: 'Warnings' });
    await poll(() => warnings.getByRole('listitem').count()).toBe(1);
    const item = warnings.getByRole('listitem').first();
    expect(await item.getAttribute('data-code')).toBe('plan/missing-stage');
    expect(await item.textContent()).toBe(`⚠ Warning: ${expected[0].message} Open Stage nurture`);
    expect(expected[0].message).toContain(
      'deal_stage showing used by nurture-by-stage: pipeline buyer-pipeline ("Buyers") has no such stage in the workspace',
    );
    // Told apart from an error at a glance: amber on its own box, where errors are red text.
    const look = await warnings.evaluate((el) => ({ color: getComputedStyle(el).color, background: getComputedStyle(el).backgroundColor }));
    expect(look).toEqual({ color: 'rgb(120, 53, 15)', background: 'rgb(255, 251, 235)' });
    expect(await panel.locator('li[data-action="conflict"]', { hasText: 'Buyers' }).count()).toBe(1);
    await page.screenshot({ path: join(editorRoot, 'test-results', 'plan-warning.png') });

    // The warning opens the automation it is about.
    expect(await page.locator('[data-testid="node-deal"]').count()).toBe(0);
    await item.getByRole('button', { name: 'Open Stage nurture' }).click();
    await poll(() => page.locator('[data-testid="node-deal"]').count()).toBe(1);
    await context.close();
  }, 120_000);

  it("previews and installs with prune as `setup-pack plan --prune` does: what would be removed, core's prune-kept warning, and Install removing it", async () => {
    // A workspace with release 1.0.0 installed from Node; 1.1.0 drops the automation "Old reminder"
    // and the tag "Hot lead", which someone then edits in the workspace (an edited item is never pruned).
    const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
    const ws = await (
      await fetch(`${api.base}/admin/workspaces`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Prune Realty', slug: 'prune' }),
      })
    ).json();
    for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
      await fetch(`${api.base}/admin/workspaces/${ws.id}/members`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name, email: `p${i}@example.test` }),
      });
    const key = (
      await (
        await fetch(`${api.base}/admin/workspaces/${ws.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret;
    const client = new WorkspaceClient({ baseUrl: api.base, apiKey: key });
    const release = (v: string) => JSON.parse(readFileSync(join(repoRoot, `fixtures/releases/buyer-lead-${v}.json`), 'utf8'));
    await install(client, release('1.0.0'), { holder: 'test' });
    const hot = (await client.listAll<{ id: string; name: string }>('/v1/tags')).find((t) => t.name === 'Hot lead')!;
    await client.patch(`/v1/tags/${hot.id}`, { color: '#123456' });
    const next = release('1.1.0');
    // What the CLI's plan says with and without --prune (the same core options).
    const kept = (await planInstall(client, next)).plan;
    const pruned = (await planInstall(client, next, { prune: true })).plan;
    expect(pruned.steps.filter((st) => st.action === 'remove' && st.write).map((st) => st.name)).toEqual(['Old reminder']);
    expect(pruned.warnings.map((w) => w.code)).toEqual(['plan/prune-kept']);

    const context = await editor.browser.newContext({ viewport: { width: 1500, height: 900 } });
    const page = await context.newPage();
    await page.goto(
      `${editor.url}/?pack=/fixtures/releases/buyer-lead-1.1.0.json#workspace=${encodeURIComponent(api.base)}&key=${encodeURIComponent(key)}`,
    );
    await poll(() => page.getByTestId('connect-button').textContent()).toContain('Prune Realty');
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    // Opening the panel reads the workspace and plans.
    // Without prune: both kept, as `setup-pack plan` says.
    await poll(() => panel.getByTestId('plan-summary').textContent()).toBe(summaryLine(kept));
    const prune = panel.getByRole('checkbox', { name: /Remove items gone from this release/ });
    expect(await prune.isChecked()).toBe(false);
    expect(await panel.locator('li[data-action="remove"]').count()).toBe(0);

    // With prune: the automation would be removed, the edited tag kept with core's warning.
    await prune.check();
    await poll(() => panel.getByTestId('plan-summary').textContent()).toBe(summaryLine(pruned));
    const removed = panel.locator('li[data-action="remove"]');
    await poll(() => removed.count()).toBe(1);
    expect(await removed.textContent()).toBe('- Old reminder gone from the release');
    // It is not in the pack: nothing to open, so no button that does nothing.
    expect(await removed.getByRole('button').count()).toBe(0);
    const warnings = panel.getByRole('list', { name: 'Warnings' });
    expect(await warnings.getByRole('listitem').allTextContents()).toEqual([`⚠ Warning: ${pruned.warnings[0].message}`]);
    await page.screenshot({ path: join(editorRoot, 'test-results', 'plan-prune.png') });

    // Install uses the choice the preview shows: the automation goes, the edited tag stays.
    await panel.getByRole('button', { name: 'Install', exact: true }).click();
    await poll(() => panel.getByTestId('install-summary').textContent()).toMatch(
      /^Installed Buyer Lead Starter 1\.1\.0 into Prune Realty: \d+ writes\./,
    );
    const automations = (await client.listAll<{ name: string }>('/v1/automations')).map((a) => a.name);
    expect(automations).not.toContain('Old reminder');
    expect(automations).toContain('Deal won thank-you');
    expect((await client.listAll<{ name: string }>('/v1/tags')).map((t) => t.name)).toContain('Hot lead');
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^No changes\./);
    await context.close();
  }, 120_000);

  it("says while an install waits for the workspace's rate limit, then finishes it", async () => {
    // A workspace whose key may send 20 requests a minute: installing the starter pack takes
    // 24, so the install overruns one window and is refused (429, Retry-After) until the next,
    // where its last requests and the plan's refresh after it (about 12) fit. The server's clock
    // is turned back to 52 s into a minute no request of this workspace fell in, so that window
    // ends 8 s after the install starts.
    const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
    const ws = await (
      await fetch(`${skewed.base}/admin/workspaces`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Slow Realty', slug: 'slow', rate_limit_per_minute: 20 }),
      })
    ).json();
    for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
      await fetch(`${skewed.base}/admin/workspaces/${ws.id}/members`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name, email: `s${i}@example.test` }),
      });
    const key = (
      await (
        await fetch(`${skewed.base}/admin/workspaces/${ws.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret;
    const { context, page } = await openConnected(key, 'Slow Realty', 900, skewed.base);
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    // Opening the panel reads the workspace and plans.
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^Plan: \d+ to create, 0 to update/);
    const now = Date.now();
    skewMs = 120_000 + (((now % 60_000) - 52_000 + 60_000) % 60_000);
    const waiting = panel.getByTestId('workspace-waiting');
    try {
      await panel.getByRole('button', { name: 'Install', exact: true }).click();
      await poll(() => waiting.textContent()).toMatch(/^Waiting \d+ s as the workspace asked \(429, Retry-After\)…$/);
      expect(await panel.getByTestId('install-progress').textContent()).toMatch(/^Installing… \d+ of \d+: /);
      await page.screenshot({ path: join(editorRoot, 'test-results', 'install-waiting.png') });
      await expect
        .poll(() => panel.getByTestId('install-summary').textContent(), { timeout: 30_000, interval: 100 })
        .toMatch(/^Installed Buyer Lead Starter 1\.0\.0 into Slow Realty: \d+ writes\./);
      // The wait is over: its line goes.
      await poll(() => waiting.count()).toBe(0);
    } finally {
      skewMs = 0;
    }
    await context.close();
  }, 120_000);

  it("picks a real tag from the workspace in a block's config: marked bound by name, as the plan binds it; other references marked creatable or unresolved", async () => {
    const { context, page } = await openConnected(cove.key, 'Cove Realty', 950);
    await page.locator('[data-testid="node-tag"]').click();
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    // The picker reads the workspace's tags once, on opening, and lists them beside the pack's own.
    await inspector.getByRole('button', { name: 'Choose Tag' }).click();
    const picker = inspector.getByRole('dialog', { name: 'Choose Tag' });
    await poll(() => picker.getByRole('list', { name: 'In Cove Realty' }).getByRole('button').allTextContents()).toEqual(['VIP client']);
    expect(await picker.getByRole('list', { name: 'In this pack' }).getByRole('button').allTextContents()).toEqual([
      'Buyer lead tag-buyer-lead',
      'Hot lead tag-hot',
    ]);
    await picker.getByRole('searchbox', { name: 'Search tags' }).fill('vip');
    expect(await picker.getByRole('list', { name: 'In this pack' }).count()).toBe(0);
    await page.screenshot({ path: join(editorRoot, 'test-results', 'ref-picker.png') });
    await picker.getByRole('button', { name: 'VIP client' }).click();

    // The block writes the id export would derive, listed with the name it binds by.
    await poll(() => inspector.getByLabel('Tag *').inputValue()).toBe('tag-vip-client');
    await poll(() => inspector.locator('.ref-mark').first().textContent()).toBe('✓ VIP client in Cove Realty, matched by name.');
    const doc = async () =>
      (
        (await page.evaluate(() => (window as unknown as { __editor: { pack: unknown } }).__editor.pack)) as {
          automations: { document: { references: unknown[] } }[];
        }
      ).automations[0].document;
    await poll(async () => (await doc()).references).toContainEqual({ type: 'tag', id: 'tag-vip-client', name: 'VIP client' });
    expect((await doc()).references).not.toContainEqual(expect.objectContaining({ id: 'tag-buyer-lead' }));

    // The plan agrees: the tag is bound, not created (no step writes a "VIP client"). The picker
    // and the plan share one read of the workspace: the plan shows without reading it again.
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    expect(await panel.getByRole('button', { name: 'Refresh' }).count()).toBe(1);
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^Plan: \d+ to create/);
    expect(await panel.locator('li[data-action]', { hasText: 'VIP client' }).count()).toBe(0);
    expect(await panel.getByTestId('plan-references').textContent()).toMatch(/tag VIP client → tag_\w+ \(matched by name\)/);
    expect(await panel.locator('li[data-action="create"]', { hasText: 'New lead welcome' }).count()).toBe(1);
    await page.getByTestId('plan-button').click();

    // A tag the workspace does not have, with a name: creatable. A member with no name: unresolved.
    await inspector.getByLabel('Tag *').fill('tag-brand-new');
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const row = inspector.locator('[data-ref="tag:tag-brand-new"]');
    await row.getByLabel('Name of tag-brand-new').fill('Brand new');
    await poll(() => row.locator('.ref-mark').textContent()).toBe('+ Installing creates the tag “Brand new” in Cove Realty.');
    await row.locator('.ref-mark').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(editorRoot, 'test-results', 'ref-marks.png') });
    await page.locator('[data-testid="node-task"]').click();
    await inspector.getByRole('textbox', { name: 'Assignee' }).fill('usr_ghost');
    await poll(() => inspector.locator('.ref-mark[data-mark="unresolved"]').textContent()).toBe(
      '✗ usr_ghost has no name to find it by in Cove Realty: choose the user it means.',
    );
    // A reference with no name is an error of the pack (reference/missing-name); named, it is one
    // the plan cannot bind. The plan says so as the editor fixes it — the reference's mark and the
    // automation that uses it, to open — not with the command line's --bind.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await inspector.locator('[data-ref="user:usr_ghost"]').getByLabel('Name of usr_ghost').fill('Ghost Writer');
    await page.locator('[data-testid="node-task"]').click();
    await page.getByTestId('plan-button').click();
    await poll(() => panel.getByTestId('plan-summary').textContent()).toBe('The plan failed:');
    const problem = panel.locator('.plan-errors li', { hasText: 'usr_ghost' });
    await poll(() => problem.locator('.ref-mark').textContent()).toBe(
      '✗ No user named “Ghost Writer” in Cove Realty: choose one, or the install stops here.',
    );
    expect(await panel.locator('.plan-errors').textContent()).not.toContain('--bind');
    // The task's form is open; the button brings the automation's, with its references.
    await problem.getByRole('button', { name: 'New lead welcome' }).click();
    await poll(() => inspector.locator('[data-ref="user:usr_ghost"]').count()).toBe(1);
    expect(await page.locator('.react-flow__node.selected').count()).toBe(0); // no block still shown selected
    if (await panel.isVisible()) await page.getByTestId('plan-button').click();
    await poll(() => panel.isVisible()).toBe(false);
    await page.locator('[data-testid="node-task"]').click();
    // Choosing the member fixes it: bound by name, as the plan binds it.
    await inspector.getByRole('button', { name: 'Choose Assignee' }).click();
    await inspector.getByRole('dialog', { name: 'Choose Assignee' }).getByRole('button', { name: 'Avery Brooks' }).click();
    await poll(() => inspector.getByRole('textbox', { name: 'Assignee' }).inputValue()).toBe('user-avery-brooks');
    await poll(() => inspector.locator('.ref-mark').first().textContent()).toBe('✓ Avery Brooks in Cove Realty, matched by name.');
    await context.close();
  }, 120_000);
  it("simulates a real contact of the workspace: found by name, taken in the API's shape, named in the timeline", async () => {
    await new WorkspaceClient({ baseUrl: api.base, apiKey: cove.key }).post('/v1/contacts', { first_name: 'Rosa', last_name: 'Marquez' });
    const { context, page } = await openConnected(cove.key, 'Cove Realty', 950);
    await page.getByRole('button', { name: 'Simulate' }).click();
    const panel = page.getByRole('region', { name: 'Simulate' });
    const search = panel.getByRole('searchbox', { name: 'Search the contacts of Cove Realty' });
    await search.fill('Nobody');
    await panel.getByRole('button', { name: 'Find' }).click();
    await poll(() => panel.getByTestId('workspace-contact-status').textContent()).toBe('No contact of Cove Realty matches "Nobody".');
    await search.fill('rosa');
    await panel.getByRole('button', { name: 'Find' }).click();
    await panel.getByRole('list', { name: 'Contacts found' }).getByRole('button', { name: 'Rosa Marquez' }).click();
    // The contact box holds the workspace's contact as the API returns it, and the timeline follows her.
    const box = JSON.parse(await panel.getByRole('textbox', { name: /Contact \(JSON/ }).inputValue()) as { id: string; first_name: string };
    expect(box).toMatchObject({ first_name: 'Rosa', id: expect.stringMatching(/^con_/) });
    expect(await panel.getByTestId('workspace-contact-status').textContent()).toBe(
      `Simulating Rosa Marquez (${box.id}) as Cove Realty has them.`,
    );
    await poll(() => panel.locator('.simulate-summary').textContent()).toMatch(/^Rosa Marquez gets /);
    await page.screenshot({ path: join(editorRoot, 'test-results', 'simulate-workspace-contact.png') });
    await context.close();
  });

  it('never plans or opens one pack with the install ledger read for another: after Open… or Open workspace snapshot it asks to read again, and Open installed says the pack is not installed', async () => {
    // A workspace of its own, with the starter pack installed (as the CLI would install it). Two
    // installs, plans and a snapshot can pass the default 120 requests a minute on a loaded machine,
    // and waiting for the next window is another test's subject: this workspace allows more.
    const admin = { authorization: 'Bearer adm', 'content-type': 'application/json' };
    const ws = await (
      await fetch(`${api.base}/admin/workspaces`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name: 'Dune Realty', slug: 'dune', rate_limit_per_minute: 2000 }),
      })
    ).json();
    for (const [i, name] of ['Jordan Lee', 'Avery Brooks'].entries())
      await fetch(`${api.base}/admin/workspaces/${ws.id}/members`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ name, email: `d${i}@example.test` }),
      });
    const key = (
      await (
        await fetch(`${api.base}/admin/workspaces/${ws.id}/api-keys`, {
          method: 'POST',
          headers: admin,
          body: JSON.stringify({ scopes: ['full_access'] }),
        })
      ).json()
    ).secret;
    const starter = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    expect((await install(new WorkspaceClient({ baseUrl: api.base, apiKey: key }), starter, { holder: 'test' })).written).toBeGreaterThan(
      0,
    );

    const { context, page } = await openConnected(key, 'Dune Realty');
    page.on('dialog', (d) => void d.accept());
    // Planning a pack the workspace has no ledger for asks nothing the browser logs as a failed (404) load.
    const failedLoads: string[] = [];
    page.on('console', (m) => m.type() === 'error' && /\b404\b/.test(m.text()) && failedLoads.push(m.text()));
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    // Opening the panel reads the workspace and plans.
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^No changes\./);
    expect(await panel.getByRole('button', { name: 'Open installed' }).isEnabled()).toBe(true);

    // Another pack opened with Open…: the starter's ledger is not this pack's.
    await page.getByTestId('open-file').setInputFiles(join(repoRoot, 'fixtures/valid/listing-marketing.json'));
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('listing-marketing.json');
    expect(await panel.getByRole('button', { name: 'Open installed' }).isDisabled()).toBe(true);
    expect(await panel.getByTestId('plan-summary').count()).toBe(0);
    expect(await panel.textContent()).not.toMatch(/ledger is for pack/);
    await panel.getByRole('button', { name: 'Read the workspace and plan' }).click();
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^Plan: \d+ to create/);
    expect(await panel.getByRole('button', { name: 'Open installed' }).isDisabled()).toBe(true);
    expect(await panel.getByTestId('not-installed').textContent()).toBe('Listing Marketing is not installed in Dune Realty.');
    // Installing it (its first install) reads its ledger from the list too.
    await panel.getByRole('button', { name: 'Install', exact: true }).click();
    await poll(() => panel.getByTestId('install-summary').textContent()).toMatch(
      /^Installed Listing Marketing [\d.]+ into Dune Realty: \d+ writes\./,
    );
    expect(failedLoads).toEqual([]);

    // Open workspace snapshot: a pack of its own id, never planned against the last read.
    await panel.getByRole('button', { name: 'Open workspace snapshot' }).click();
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('Dune Realty (snapshot)');
    expect(await panel.textContent()).not.toMatch(/ledger is for pack|The plan failed/);
    expect(await panel.getByRole('button', { name: 'Read the workspace and plan' }).count()).toBe(1);
    expect(await panel.getByRole('button', { name: 'Open installed' }).isDisabled()).toBe(true);
    await context.close();
  }, 120_000);

  it('says once the server stops that it cannot be reached: the toolbar stops showing it connected, Install is not offered, and every read says it in the same words', async () => {
    const gone = await serve([editor.url]);
    const { context, page } = await openConnected(full.key, 'Bayside Homes', 900, gone.base);
    await page.getByTestId('plan-button').click();
    const panel = page.getByRole('region', { name: 'Plan preview' });
    await poll(() => panel.getByTestId('plan-summary').textContent()).toMatch(/^(Plan|No changes)/);
    expect(await page.locator('.connected-dot.down').count()).toBe(0);
    await gone.close();
    await panel.getByRole('button', { name: 'Refresh' }).click();
    const said = `Cannot reach ${gone.base}: the server stopped, or it no longer allows this editor's origin (${editor.url}).`;
    await poll(() => panel.locator('.connect-status').textContent()).toBe(said);
    await poll(() => page.locator('.connected-dot.down').count()).toBe(1);
    expect(await page.getByTestId('connect-button').textContent()).toContain('(cannot be reached)');
    expect(await panel.getByRole('button', { name: 'Install', exact: true }).isDisabled()).toBe(true);
    await panel.getByRole('button', { name: 'Open workspace snapshot' }).click();
    await poll(() => panel.locator('.connect-status').textContent()).toBe(said);
    await context.close();
  }, 120_000);
});
