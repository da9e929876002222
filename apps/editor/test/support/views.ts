// The editor's views as the screenshot test shows them (test/screenshots.test.ts): each opens a
// page at a fixed viewport and theme, brings it to one state as an author would, and says what
// to crop or hide (a time of day, a port, a random id). The views docs/editor.md shows are saved
// to docs/img, the others to test/screenshots; the test compares each with its committed image,
// and `npm run screenshots -w apps/editor` writes them all anew.
import type { Locator, Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { install, WorkspaceClient } from '@setup-pack/installer';
import { repoRoot } from './harness.mjs';
import { dragConnect } from './editor.js';

export interface Shot {
  /** A part of the page only (the block cards). */
  clip?: { x: number; y: number; width: number; height: number };
  /** What changes from run to run (a time, a port, a workspace's ids): painted over. */
  mask?: Locator[];
  /** Taken by the view itself, in the middle of a gesture (a connection being dragged). */
  image?: Buffer;
}

/** How every view is taken: no animation, no caret, at the device's own pixels. */
export const SHOT = { animations: 'disabled', caret: 'hide', scale: 'css' } as const;

/** What a view needs beyond the editor: a workspace server with an admin token. */
export interface ViewContext {
  editorUrl: string;
  api: { base: string; admin: string };
}

export interface View {
  name: string;
  /** The file under docs/img that docs/editor.md shows; views without one are saved under test/screenshots. */
  docs?: string;
  colorScheme?: 'light' | 'dark';
  /** Brings a fresh page to the view's state. */
  show(page: Page, ctx: ViewContext): Promise<Shot | void>;
}

export const VIEWPORT = { width: 1280, height: 800 };
const STARTER = '/?pack=/fixtures/valid/buyer-lead-starter.json';
const starterPack = () => JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));

/** Opens `query` and waits for the blocks and the first validation, as an author waits for them. */
async function open(page: Page, ctx: ViewContext, query = STARTER) {
  await page.goto(`${ctx.editorUrl}${query}`);
  await page.locator('.react-flow__node').first().waitFor();
  await page.waitForFunction(() => !/checking/.test(document.querySelector('.diagnostics summary')?.textContent ?? 'checking'));
}

/** A workspace on the test's server with the members the starter pack names, and a full_access key. */
async function workspace(ctx: ViewContext, name: string): Promise<{ key: string; client: WorkspaceClient }> {
  const headers = { authorization: `Bearer ${ctx.api.admin}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) =>
    (await fetch(`${ctx.api.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json();
  const ws = await post('/admin/workspaces', { name, slug: name.toLowerCase().replace(/\W+/g, '-') });
  for (const [i, member] of ['Jordan Lee', 'Avery Brooks'].entries())
    await post(`/admin/workspaces/${ws.id}/members`, { name: member, email: `m${i}@${ws.slug}.test` });
  const key = (await post(`/admin/workspaces/${ws.id}/api-keys`, { scopes: ['full_access'] })).secret as string;
  return { key, client: new WorkspaceClient({ baseUrl: ctx.api.base, apiKey: key }) };
}

/** Opens the starter pack connected to a workspace, as npm start does (the address's fragment). */
async function openConnected(page: Page, ctx: ViewContext, key: string, name: string) {
  await open(page, ctx, `${STARTER}#workspace=${encodeURIComponent(ctx.api.base)}&key=${encodeURIComponent(key)}`);
  await page.getByTestId('connect-button').filter({ hasText: name }).waitFor();
}

/** The plan panel opened and its plan on screen; the time it was read painted over. */
async function openPlan(page: Page): Promise<Shot> {
  await page.getByTestId('plan-button').click();
  const panel = page.getByRole('region', { name: 'Plan preview' });
  await panel.getByTestId('plan-summary').waitFor();
  return { mask: [panel.locator('p .help').first(), panel.getByTestId('plan-references').locator('code')] };
}

/** A pack of 50 automations × 200 blocks, each block with two config fields the catalog does not know: 19,900 findings of two kinds. */
function noisyPack() {
  const automations = Array.from({ length: 50 }, (_, a) => {
    const nodes: unknown[] = [{ id: 'n0', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } }];
    const edges: unknown[] = [];
    for (let i = 1; i < 200; i++) {
      nodes.push({
        id: `n${i}`,
        kind: 'action.add_note',
        config: { body: `Step ${i}`, legacy_color: 'red', legacy_weight: i },
        position: { x: 0, y: i * 120 },
      });
      edges.push({ id: `e${i}`, source: `n${i - 1}`, target: `n${i}` });
    }
    return {
      key: `a${a}`,
      document: { format: 'service.automation-template', version: 1, name: `Automation ${a}`, graph: { nodes, edges } },
    };
  });
  return {
    format: 'service.setup-pack',
    schemaVersion: 2,
    packId: '8d0c2f3e-1a2b-4c3d-9e4f-5a6b7c8d9e0f',
    name: 'Many findings',
    version: '1.0.0',
    automations,
  };
}

export const VIEWS: View[] = [
  { name: 'editor', docs: 'editor.png', show: (page, ctx) => open(page, ctx) },
  {
    name: 'editor-dark',
    docs: 'editor-dark.png',
    colorScheme: 'dark',
    async show(page, ctx) {
      await open(page, ctx);
      await page.getByRole('group', { name: 'Wait block wait' }).click();
      await page.getByRole('complementary', { name: 'Inspector' }).getByRole('heading', { name: 'Wait' }).waitFor();
    },
  },
  {
    name: 'block-cards',
    docs: 'block-cards.png',
    async show(page, ctx) {
      await open(page, ctx);
      const first = (await page.getByRole('group', { name: 'Contact created block start' }).boundingBox())!;
      const last = (await page.getByRole('group', { name: 'Send email block email' }).boundingBox())!;
      return { clip: { x: first.x - 190, y: first.y - 12, width: 600, height: last.y + last.height - first.y + 24 } };
    },
  },
  {
    name: 'palette',
    docs: 'palette.png',
    async show(page, ctx) {
      await open(page, ctx);
      await page.locator('[data-testid="node-email"]').click();
      await page.getByRole('button', { name: 'Add block' }).click();
      await page.getByRole('dialog', { name: 'Add a block' }).waitFor();
    },
  },
  {
    name: 'command-palette',
    docs: 'command-palette.png',
    async show(page, ctx) {
      await open(page, ctx);
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox').fill('tag');
    },
  },
  {
    name: 'shortcuts',
    async show(page, ctx) {
      await open(page, ctx);
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    },
  },
  {
    name: 'invalid-connection',
    docs: 'invalid-connection.png',
    async show(page, ctx) {
      await open(page, ctx);
      let image: Buffer | undefined;
      // Taken while the pointer is over the block the connection would close a cycle through.
      await dragConnect(page, 'email', 'tag', async () => {
        await page.getByRole('status').filter({ hasText: "Can't connect" }).waitFor();
        image = await page.screenshot(SHOT);
      });
      return { image };
    },
  },
  {
    name: 'canvas',
    docs: 'canvas.png',
    async show(page, ctx) {
      await open(page, ctx);
      await dragConnect(page, 'email', 'tag');
      await page.getByRole('status').filter({ hasText: 'Not connected:' }).waitFor();
    },
  },
  {
    name: 'selected-edge',
    docs: 'selected-edge.png',
    async show(page, ctx) {
      await open(page, ctx);
      const edge = page.locator('.react-flow__edge[aria-label="Connection start next to tag"]');
      await edge.locator('.react-flow__edge-interaction').dispatchEvent('click');
      await page.locator('.react-flow__edge.selected').waitFor();
    },
  },
  {
    name: 'field-errors',
    docs: 'field-errors.png',
    async show(page, ctx) {
      await open(page, ctx);
      await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="pipelines/buyer-pipeline"]').click();
      await page.getByLabel('Stage 2 key').fill('new');
      await page.locator('[aria-invalid="true"]').first().waitFor();
      await page.waitForFunction(() => !/checking/.test(document.querySelector('.diagnostics summary')?.textContent ?? 'checking'));
    },
  },
  {
    name: 'many-findings',
    docs: 'many-findings.png',
    async show(page, ctx) {
      await page.goto(`${ctx.editorUrl}/`);
      await page.locator('.react-flow').waitFor();
      await page
        .getByTestId('open-file')
        .setInputFiles({ name: 'many.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(noisyPack())) });
      await page.waitForFunction(() => /19,900 infos$/.test(document.querySelector('.diagnostics summary')?.textContent ?? ''));
      const list = page.getByRole('list', { name: 'Findings' });
      await list
        .getByRole('button', { name: /Show all 9,950 findings like this/ })
        .first()
        .click();
      await list.getByRole('listitem').nth(3).waitFor();
    },
  },
  {
    name: 'diff',
    docs: 'diff.png',
    async show(page, ctx) {
      await page.goto(`${ctx.editorUrl}/?old=/fixtures/releases/buyer-lead-1.0.0.json&new=/fixtures/releases/buyer-lead-1.1.0.json`);
      await page.getByRole('list', { name: 'Item changes' }).waitFor();
      await page.locator('.react-flow__node').first().waitFor();
    },
  },
  {
    name: 'flow-map',
    docs: 'flow-map.png',
    async show(page, ctx) {
      await open(page, ctx, '/?pack=/fixtures/invalid/flow-cascade-loop.json');
      await page.getByRole('button', { name: 'Flow map' }).click();
      await page.getByText('adds tag Warm').first().waitFor();
    },
  },
  {
    name: 'simulate',
    docs: 'simulate.png',
    async show(page, ctx) {
      await open(page, ctx, '/?pack=/fixtures/invalid/flow-cascade-loop.json');
      await page.getByRole('button', { name: 'Simulate' }).click();
      const panel = page.getByRole('region', { name: 'Simulate' });
      await panel.getByRole('textbox', { name: /When the event happens/ }).fill('2026-12-04T18:45:00-05:00');
      await panel.getByRole('textbox', { name: 'Time zone' }).fill('America/New_York');
      await panel.getByTestId('simulate-loop').waitFor();
    },
  },
  {
    name: 'editor-connect',
    docs: 'editor-connect.png',
    async show(page, ctx) {
      const { key } = await workspace(ctx, 'Harbor Realty');
      await openConnected(page, ctx, key, 'Harbor Realty');
      await page.getByTestId('connect-button').click();
      const dialog = page.getByRole('dialog', { name: 'Connect to workspace' });
      await dialog.getByTestId('connect-scopes').waitFor();
      // The server's port changes from run to run.
      return { mask: [dialog.locator('p').first(), dialog.getByLabel('Workspace base URL')] };
    },
  },
  {
    name: 'editor-plan',
    docs: 'editor-plan.png',
    async show(page, ctx) {
      // Installed, then a template edited in the workspace: the plan shows the conflict.
      const { key, client } = await workspace(ctx, 'Bayside Homes');
      await install(client, starterPack());
      const template = (await client.listAll<{ id: string; name: string }>('/v1/message-templates')).find(
        (t) => t.name === 'Welcome text',
      )!;
      await client.patch(`/v1/message-templates/${template.id}`, { body: 'Edited in the workspace' });
      await openConnected(page, ctx, key, 'Bayside Homes');
      const shot = await openPlan(page);
      await page.locator('li[data-action="conflict"]').first().waitFor();
      return shot;
    },
  },
  {
    name: 'editor-plan-warning',
    docs: 'editor-plan-warning.png',
    async show(page, ctx) {
      // Installed, then a stage removed by hand that an unchanged automation names.
      const { key, client } = await workspace(ctx, 'Mesa Realty');
      await install(client, starterPack());
      const buyers = (
        await client.listAll<{ id: string; name: string; stages: { id: string; name: string; type: string }[] }>('/v1/pipeline-details')
      ).find((p) => p.name === 'Buyers')!;
      await client.patch(`/v1/pipelines/${buyers.id}`, {
        stages: buyers.stages.filter((s) => s.name !== 'Showing homes').map(({ id, name, type }) => ({ id, name, type })),
      });
      await openConnected(page, ctx, key, 'Mesa Realty');
      const shot = await openPlan(page);
      await page.getByRole('list', { name: 'Warnings' }).waitFor();
      return shot;
    },
  },
  {
    name: 'editor-ref-picker',
    docs: 'editor-ref-picker.png',
    async show(page, ctx) {
      const { key, client } = await workspace(ctx, 'Cove Realty');
      await client.post('/v1/tags', { name: 'VIP client', color: '#f59e0b' });
      await openConnected(page, ctx, key, 'Cove Realty');
      await page.locator('[data-testid="node-tag"]').click();
      const inspector = page.getByRole('complementary', { name: 'Inspector' });
      await inspector.getByRole('button', { name: 'Choose Tag' }).click();
      const picker = inspector.getByRole('dialog', { name: 'Choose Tag' });
      await picker.getByRole('list', { name: 'In Cove Realty' }).waitFor();
      await picker.getByRole('searchbox', { name: 'Search tags' }).fill('vip');
      // The workspace's tags are read once the picker opens: shown once they are listed.
      await picker
        .getByRole('list', { name: 'In Cove Realty' })
        .getByRole('button', { name: /VIP client/ })
        .waitFor();
    },
  },
  {
    name: 'editor-ref-marks',
    docs: 'editor-ref-marks.png',
    async show(page, ctx) {
      const { key } = await workspace(ctx, 'Dune Realty');
      await openConnected(page, ctx, key, 'Dune Realty');
      await page.locator('[data-testid="node-tag"]').click();
      const inspector = page.getByRole('complementary', { name: 'Inspector' });
      await inspector.getByLabel('Tag *').fill('tag-brand-new');
      await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
      const row = inspector.locator('[data-ref="tag:tag-brand-new"]');
      await row.getByLabel('Name of tag-brand-new').fill('Brand new');
      // The workspace's tags are read when asked (Check), then the mark says what installing does.
      await row.getByRole('button', { name: 'Check' }).click();
      await row.locator('.ref-mark').filter({ hasText: 'Installing creates' }).waitFor();
      await row.getByRole('button', { name: 'Check' }).waitFor({ state: 'detached' });
      // The inspector scrolled to its end, wherever the fills above left it: the same picture each run.
      await row.locator('.ref-mark').evaluate((mark) => {
        let el: HTMLElement | null = mark as HTMLElement;
        while (el && !(el.scrollHeight > el.clientHeight && /auto|scroll/.test(getComputedStyle(el).overflowY))) el = el.parentElement;
        if (el) el.scrollTop = el.scrollHeight;
      });
    },
  },
];
