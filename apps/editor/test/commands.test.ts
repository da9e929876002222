// Moving around and how the editor looks, in headless Chromium, as an author uses them: the command
// palette (add a block by name, go to a template, jump to a finding, run Simulate and Export), the
// shortcuts list, the theme toggle, ids on request, one findings badge per block, readable
// buttons in every state, and what an empty automation or pack says to do next.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { join } from 'node:path';
import { artifacts, packOf, poll, useEditor } from './support/editor.js';

const editor = useEditor('editor commands and look');

type Full = { automations: { document: { graph: { nodes: { id: string; kind: string }[] } } }[] };
const kinds = async (page: Page) => (await packOf<Full>(page)).automations[0]!.document.graph.nodes.map((n) => n.kind);
const palette = (page: Page) => page.getByRole('dialog', { name: 'Command palette' });
const search = async (page: Page, text: string) => {
  await page.keyboard.press('Control+k');
  await palette(page).getByRole('combobox').fill(text);
};

describe.skipIf(editor.missing)(editor.title, () => {
  it('adds a block by name, goes to a template and to a finding, and runs Simulate and Export from the command palette', async () => {
    const { page, errors } = await editor.open(undefined, { acceptDownloads: true });
    // Add a block by its name: it lands on the canvas, selected.
    const before = await kinds(page);
    await search(page, 'add wait');
    expect(await palette(page).getByRole('option').first().textContent()).toMatch(/^Wait/);
    await page.screenshot({ path: join(artifacts, 'command-palette.png') });
    await page.keyboard.press('Enter');
    await poll(() => kinds(page)).toEqual([...before, 'control.wait']);
    await poll(() => page.locator('.react-flow__node.selected .label').textContent()).toBe('Wait');
    expect(await palette(page).count()).toBe(0);

    // Go to a template by its name.
    await search(page, 'welcome text');
    await palette(page)
      .getByRole('option', { name: /Welcome text/ })
      .click();
    await page.getByRole('heading', { name: 'Message template', exact: true }).waitFor();
    expect(await page.locator('.editor-pane').getByLabel('Name', { exact: true }).inputValue()).toBe('Welcome text');

    // A finding: the pack's name emptied, then found by its words; Enter focuses the field.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    await page.locator('.editor-pane').getByLabel('Name', { exact: true }).fill('');
    await poll(() => page.getByTestId('error-count').textContent()).toBe('1 error');
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/new-lead-welcome"]').click();
    await search(page, 'name must have');
    expect(await palette(page).getByRole('option').first().textContent()).toContain('schema/too-short');
    await page.keyboard.press('Enter');
    await poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.dataset.path)).toBe('name');

    // Run Simulate and Export.
    await search(page, 'simulate');
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'Simulate' }).waitFor();
    const download = page.waitForEvent('download');
    await search(page, 'export');
    await page.keyboard.press('Enter');
    expect((await download).suggestedFilename()).toMatch(/\.json$/);
    expect(errors).toEqual([]);
  });

  it('offers Connect before a workspace is connected, and closes with Escape, giving the focus back', async () => {
    const { page, errors } = await editor.open();
    const button = page.getByRole('button', { name: /^Command palette/ });
    await button.click();
    expect(await palette(page).getByRole('option', { name: /^Plan/ }).count()).toBe(0);
    await palette(page).getByRole('combobox').fill('connect');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Connect to workspace' }).waitFor();
    await button.click();
    await page.keyboard.press('Escape');
    await poll(() => palette(page).count()).toBe(0);
    await poll(() => button.evaluate((b) => b === document.activeElement)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('lists every shortcut on ?, not while typing in a field', async () => {
    const { page, errors } = await editor.open();
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    const tag = page.getByRole('complementary', { name: 'Inspector' }).getByLabel('Tag *');
    await tag.focus();
    await page.keyboard.press('?');
    expect(await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).count()).toBe(0);
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (const does of ['Command palette', 'Undo', 'Add a block (the block palette)', 'Duplicate the selected blocks'])
      await dialog.getByText(does, { exact: false }).first().waitFor();
    await page.screenshot({ path: join(artifacts, 'shortcuts.png') });
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('switches to the dark theme and back, remembers the choice, and keeps every button readable on hover', async () => {
    const { context, page, errors } = await editor.open();
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const light = await background();
    await page.getByRole('button', { name: 'Switch to the dark theme' }).click();
    await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    const dark = await background();
    expect(dark).not.toBe(light);
    // Remembered in this browser: a new page opens dark.
    const other = await context.newPage();
    await other.goto(page.url());
    await poll(() => other.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(dark);
    // Back to the device's (light) theme: the choice is forgotten.
    await page.getByRole('button', { name: 'Switch to the light theme' }).click();
    await poll(() => page.evaluate(() => document.documentElement.dataset.theme ?? 'system')).toBe('system');
    expect(await background()).toBe(light);

    // A primary button keeps its label's colour apart from its fill while hovered and pressed.
    const exportButton = page.getByRole('button', { name: 'Export pack' });
    const look = () => exportButton.evaluate((b) => ({ color: getComputedStyle(b).color, fill: getComputedStyle(b).backgroundColor }));
    const rest = await look();
    await exportButton.hover();
    await poll(async () => (await look()).fill).not.toBe(rest.fill);
    const hovered = await look();
    expect(hovered.color).toBe(rest.color);
    expect(hovered.color).not.toBe(hovered.fill);
    expect(errors).toEqual([]);
  });

  it('shows block ids only when asked, one findings badge with the count and the worst severity, and a focus ring on a block', async () => {
    const { page, errors } = await editor.open();
    const id = page.locator('[data-testid="node-tag"] .node-id');
    expect(await id.isVisible()).toBe(false);
    const toggle = page.getByRole('button', { name: 'Show ids' });
    await toggle.click();
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await poll(() => id.isVisible()).toBe(true);
    expect(await id.textContent()).toBe('tag');
    await toggle.click();
    await poll(() => id.isVisible()).toBe(false);

    // A block with a warning: its badge says so, in the warning's colour.
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    await inspector.getByLabel('Tag *').fill('');
    const badge = page.locator('[data-testid="node-tag"] .badge');
    await poll(() => badge.getAttribute('aria-label')).toBe('1 warning');
    expect(await badge.getAttribute('class')).toContain('warning');
    await page.keyboard.press('Control+z');

    // A block with an error (its id repeats an earlier block's) and a warning (no template): one
    // badge, red, counting both, each said in words.
    const dup = await editor.open('?pack=/fixtures/invalid/graph-duplicate-node-id.json');
    const email = dup.page.locator('.react-flow__node', { hasText: 'Send email' });
    await email.locator('.label').click();
    await dup.page.getByRole('complementary', { name: 'Inspector' }).getByLabel('Template *').fill('');
    const both = email.locator('.badge');
    await poll(() => both.getAttribute('aria-label')).toBe('1 error, 1 warning');
    expect(await both.count()).toBe(1);
    expect(await both.getAttribute('class')).toContain('error');
    expect(await both.textContent()).toBe('2');
    await dup.page.screenshot({ path: join(artifacts, 'findings-badge.png') });
    expect(dup.errors).toEqual([]);

    // A block focused from the keyboard shows the focus ring.
    await page.getByRole('button', { name: 'Show ids' }).focus();
    await page.keyboard.press('Tab');
    const ring = await page.evaluate(() => {
      const block = document.activeElement?.querySelector('.block');
      return block ? getComputedStyle(block).outlineStyle : 'no block focused';
    });
    expect(ring).toBe('solid');
    expect(errors).toEqual([]);
  });

  it('says what to do in an automation with no blocks and in an empty pack, with one button each', async () => {
    const { page, errors } = await editor.open();
    // Every block of the first automation deleted: the canvas says to add a trigger.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    const empty = page.getByRole('region', { name: 'No blocks yet' });
    await empty.waitFor();
    await empty.getByRole('button', { name: 'Add a trigger' }).click();
    await page.getByRole('dialog', { name: 'Add a block' }).waitFor();
    await page.getByLabel('Search blocks').fill('manual start');
    await page.keyboard.press('Enter');
    await poll(() => empty.count()).toBe(0);

    // A pack with nothing in it: the pack's form says to start with an automation.
    await page.evaluate(() =>
      (window as unknown as { __openPackText: (t: string, s: string) => void }).__openPackText(
        JSON.stringify({
          format: 'service.setup-pack',
          schemaVersion: 2,
          packId: '6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12',
          name: 'Empty',
          version: '1.0.0',
        }),
        'empty.json',
      ),
    );
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    const first = page.getByRole('region', { name: 'This pack is empty' });
    await first.waitFor();
    await page.screenshot({ path: join(artifacts, 'empty-pack.png') });
    await first.getByRole('button', { name: 'Add an automation' }).click();
    await page.locator('.react-flow__node').first().waitFor();
    expect((await packOf<{ automations: unknown[] }>(page)).automations).toHaveLength(1);
    expect(errors).toEqual([]);
  });
});
