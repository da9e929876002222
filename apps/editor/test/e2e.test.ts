// End to end in Debian's headless Chromium: open a fixture, add and connect a block, see a
// diagnostic appear and fix it, undo/redo, export and validate the file with core, reload and
// find the work restored; plus drop-to-add, opening a file, and the visual diff.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { sha256Hex, validatePack } from '@setup-pack/core';
import { repoRoot } from './support/harness.mjs';
import { artifacts, dragConnect, poll, useEditor } from './support/editor.js';
import { editorAddress, HandOff } from '../../vscode/src/hand-off.js';

const editor = useEditor('editor end to end');

/**
 * A pack of `count` automations of 200 blocks, each action block carrying two config fields the
 * catalog does not know (two infos per block: 398 per automation), laid out by `at`.
 */
function noisyPack(name: string, count: number, at: (i: number) => { x: number; y: number }) {
  const automations = Array.from({ length: count }, (_, a) => {
    const nodes: unknown[] = [{ id: 'n0', kind: 'trigger.contact_created', config: {}, position: { x: 0, y: 0 } }];
    const edges: unknown[] = [];
    for (let i = 1; i < 200; i++) {
      nodes.push({
        id: `n${i}`,
        kind: 'action.add_note',
        config: { body: `Step ${i}`, legacy_color: 'red', legacy_weight: i },
        position: at(i),
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
    name,
    version: '1.0.0',
    automations,
  };
}
const errorCount = (page: Page) => page.getByTestId('error-count');
const packOf = (page: Page) =>
  page.evaluate(() => (window as unknown as { __editor: { pack: unknown } }).__editor.pack) as Promise<{
    name?: string;
    automations: {
      document: {
        graph: {
          nodes: { id: string; kind: string; config?: Record<string, unknown> }[];
          edges: { source: string; target: string; handle?: string }[];
        };
        references: { type: string; id: string; name?: string }[];
      };
    }[];
  }>;

describe.skipIf(editor.missing)(editor.title, () => {
  it('opens a fixture, edits the graph, follows diagnostics, undoes, exports a valid pack and restores on reload', async () => {
    const { page, dialogs, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', { acceptDownloads: true });

    // Open: the canvas shows the first automation, styled by group, with kind-specific handles.
    await page.locator('.react-flow__node').first().waitFor();
    expect(await page.locator('.react-flow__node').count()).toBe(7);
    await poll(() => page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
    expect(await errorCount(page).textContent()).toBe('0 errors');
    expect(await page.locator('[data-testid="node-start"]').getAttribute('class')).toContain('trigger');
    // Nothing connects into a trigger: it has no input handle.
    expect(await page.locator('.react-flow__node[data-id="start"] .react-flow__handle.target').count()).toBe(0);
    expect(
      await page
        .locator('.react-flow__node[data-id="replied"] .react-flow__handle.source')
        .evaluateAll((hs) => hs.map((h) => h.getAttribute('data-handleid'))),
    ).toEqual(['true', 'false']);
    expect(await page.locator('.react-flow__edge-text').allTextContents()).toEqual(expect.arrayContaining(['true', 'false']));
    expect(await page.locator('.react-flow__minimap').count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Pack items' }).getByLabel('3 Automations').count()).toBe(1);

    // Add a block from the palette, below the selected "email" block.
    await page.locator('[data-testid="node-email"]').click();
    await page.getByRole('button', { name: 'Add block' }).click();
    // The palette is grouped by category; a search leaves only the groups with a match.
    const blockList = page.getByRole('listbox', { name: 'Blocks' });
    for (const group of ['Triggers', 'Actions', 'Controls'])
      expect(await blockList.getByRole('group', { name: group }).count(), group).toBe(1);
    expect(
      await blockList
        .getByRole('group', { name: 'Controls' })
        .getByRole('option', { name: /If \/ else/i })
        .count(),
    ).toBe(1);
    await page.screenshot({ path: join(artifacts, 'palette.png') });
    await page.getByLabel('Search blocks').fill('add tag');
    expect(await blockList.getByRole('group').count()).toBe(1);
    expect(
      await blockList
        .getByRole('group', { name: 'Actions' })
        .getByRole('option', { name: /Add tag/ })
        .count(),
    ).toBe(1);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="node-add_tag"]').waitFor();
    // "/" opens the palette with its search field focused; Escape closes it.
    await page.locator('[data-testid="node-add_tag"]').click();
    await page.keyboard.press('/');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')).toBe('Search blocks');
    await page.keyboard.press('Escape');
    await poll(() => page.getByRole('dialog', { name: 'Add a block' }).count()).toBe(0);
    // Its missing required tag id is a catalog warning, shown as a badge on the block.
    await poll(() => page.locator('.react-flow__node[data-id="add_tag"] .badge.warning').count()).toBe(1);
    // Clicking that finding selects the block and focuses its config field.
    await page.locator('.diagnostics button[data-code="catalog/config-field"]').click();
    await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('add_tag');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-path') ?? '')).toBe('config/tag_id');
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(300);

    // A connection that would make a cycle is refused; a valid one is made.
    await dragConnect(page, 'email', 'add_tag');
    await poll(async () =>
      (await packOf(page)).automations[0]!.document.graph.edges.some((e) => e.source === 'email' && e.target === 'add_tag'),
    ).toBe(true);
    const edgeCount = (await packOf(page)).automations[0]!.document.graph.edges.length;
    // Over a block that would close a cycle, the line and the handle show it, and say why (core's reason).
    await dragConnect(page, 'add_tag', 'tag', async () => {
      await poll(() => page.locator('.react-flow__connection.invalid').count()).toBe(1);
      await poll(() => page.getByRole('status').filter({ hasText: "Can't connect" }).textContent()).toMatch(
        /would create a cycle add_tag → tag → .* → add_tag/,
      );
      expect(
        await page.locator('.react-flow__connection.invalid .react-flow__connection-path').evaluate((p) => getComputedStyle(p).stroke),
      ).toBe('rgb(220, 38, 38)');
      await page.screenshot({ path: join(artifacts, 'invalid-connection.png') });
    });
    await poll(() => page.getByRole('status').filter({ hasText: 'Not connected:' }).count()).toBe(1);
    await page.waitForTimeout(200);
    expect((await packOf(page)).automations[0]!.document.graph.edges).toHaveLength(edgeCount);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(artifacts, 'canvas.png') });

    // The config form writes a tag id that is not in the pack: a reference without a name is added, and core reports it.
    await page.locator('[data-testid="node-add_tag"]').click();
    await page.getByLabel('Tag *').fill('tag-vip');
    await poll(() => errorCount(page).textContent()).toBe('1 error');
    await poll(() => page.locator('.react-flow__node[data-id="add_tag"] .badge.error').count()).toBe(0);
    const diag = page.locator('.diagnostics button[data-code="reference/missing-name"]');
    expect(await diag.count()).toBe(1);

    // Clicking the finding shows the references and focuses the reference's field; naming it fixes the error.
    await diag.click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('data-path') ?? '')).toMatch(/^document\/references\/5/);
    await page.getByLabel('Name of tag-vip').fill('VIP members');
    await poll(() => errorCount(page).textContent()).toBe('0 errors');

    // Undo brings the error back; redo fixes it again.
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(() => errorCount(page).textContent()).toBe('1 error');
    await page.getByRole('button', { name: 'Redo' }).click();
    await poll(() => errorCount(page).textContent()).toBe('0 errors');

    // Export: the downloaded file validates with core and carries the work.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    const text = readFileSync((await download.path())!, 'utf8');
    expect(download.suggestedFilename()).toBe('buyer-lead-starter-1.0.0.json');
    const result = validatePack(text);
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const exported = JSON.parse(text);
    expect(exported.automations[0].document.graph.nodes.map((n: { id: string }) => n.id)).toContain('add_tag');
    expect(exported.automations[0].document.references).toContainEqual({ type: 'tag', id: 'tag-vip', name: 'VIP members' });

    // More work without exporting, then reload: a warning first, and the work is restored.
    await page.locator('.react-flow__pane').click({ position: { x: 40, y: 300 } });
    await page.locator('[data-testid="node-add_tag"]').click();
    await page.keyboard.press('Control+d');
    await page.locator('[data-testid="node-add_tag_2"]').waitFor();
    await poll(() => page.getByTestId('draft-state').textContent()).toMatch(/draft kept/); // autosave is debounced
    await page.reload();
    await page.locator('[data-testid="node-add_tag_2"]').waitFor();
    expect(await page.getByRole('status').first().textContent()).toMatch(/Restored unsaved work/);
    expect(dialogs.map((d) => d.type)).toContain('beforeunload');
    const restored = await packOf(page);
    expect(restored.automations[0]!.document.references).toContainEqual({ type: 'tag', id: 'tag-vip', name: 'VIP members' });
    expect(errors).toEqual([]);
  });

  it('drags a block: the pack hears of it once, on drop (one undo step, position saved, then autosaved)', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json');
    await page.locator('[data-testid="node-task"]').waitFor();
    type Win = {
      __editor: {
        pack: { automations: { document: { graph: { nodes: { id: string; position?: { x: number; y: number } }[] } } }[] };
        getState(): { history: { past: unknown[] } };
        dirty: boolean;
      };
    };
    const state = () =>
      page.evaluate(() => {
        const ed = (window as unknown as Win).__editor;
        return {
          steps: ed.getState().history.past.length,
          pos: ed.pack.automations[0]!.document.graph.nodes.find((n) => n.id === 'task')!.position,
        };
      });
    const start = await state();
    const zoom = await page.evaluate(
      () => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__viewport')!).transform).a,
    );
    const b = (await page.locator('.react-flow__node[data-id="task"] .label').boundingBox())!;
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await page.mouse.down();
    await page.mouse.move(b.x + b.width / 2 + 60, b.y + b.height / 2 + 40, { steps: 10 });
    await page.mouse.move(b.x + b.width / 2 + 120, b.y + b.height / 2 + 80, { steps: 10 });
    // Mid-drag the block has moved on screen, but the pack and the history have not changed.
    await poll(async () => (await page.locator('.react-flow__node[data-id="task"] .label').boundingBox())!.x - b.x).toBeGreaterThan(100);
    const during = await state();
    expect(during.steps).toBe(start.steps);
    expect(during.pos).toEqual(start.pos);
    expect(await page.evaluate(() => (window as unknown as Win).__editor.dirty)).toBe(false);
    await page.mouse.up();
    await poll(async () => (await state()).steps).toBe(start.steps + 1);
    const after = await state();
    // Saved where it was dropped: the position the canvas shows (React Flow's translate), rounded.
    const shown = await page.evaluate(
      () => new DOMMatrixReadOnly(getComputedStyle(document.querySelector('.react-flow__node[data-id="task"]')!).transform),
    );
    expect(after.pos).toEqual({ x: Math.round(shown.e), y: Math.round(shown.f) });
    expect(after.pos!.x - start.pos!.x).toBeGreaterThan(80 / zoom);
    expect(after.pos!.y - start.pos!.y).toBeGreaterThan(50 / zoom);
    await poll(() => page.getByTestId('draft-state').textContent()).toMatch(/draft kept/); // autosaved after the drop
    // One undo takes the whole drag back.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+z');
    await poll(async () => (await state()).pos).toEqual(start.pos);
    expect((await state()).steps).toBe(start.steps);
    expect(errors).toEqual([]);
  });

  it('adds a connected block when a connection is dropped on empty canvas, and moves between blocks with the keyboard', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json');
    await page.locator('[data-testid="node-task"]').waitFor();
    const h = (await page.locator('.react-flow__node[data-id="task"] .react-flow__handle.source').boundingBox())!;
    await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
    await page.mouse.down();
    await page.mouse.move(h.x - 150, h.y + 60, { steps: 8 });
    await page.mouse.up();
    await page.getByLabel('Search blocks').fill('note');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="node-add_note"]').waitFor();
    const pack = await packOf(page);
    expect(pack.automations[0]!.document.graph.edges).toContainEqual(expect.objectContaining({ source: 'task', target: 'add_note' }));

    // Copy a block and paste it into another automation.
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(300);
    await page.locator('[data-testid="node-wait"]').click();
    await page.keyboard.press('Control+c');
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/nurture-by-stage"]').click();
    await page.locator('.react-flow__node').first().waitFor();
    await page.keyboard.press('Control+v');
    await page.locator('[data-testid="node-wait"]').waitFor();
    expect((await packOf(page)).automations[1]!.document.graph.nodes.find((n) => n.id === 'wait')).toMatchObject({
      kind: 'control.wait',
      config: { duration: 1, unit: 'days' },
    });
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/new-lead-welcome"]').click();
    await page.locator('[data-testid="node-start"]').waitFor();

    // An AI branch's outcomes are its outputs: declaring one adds a handle that takes connections.
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/nurture-by-stage"]').click();
    await page.locator('[data-testid="node-ai"]').click();
    await page.getByLabel('Outcomes *').fill('ready, later, never');
    await poll(() => page.locator('.react-flow__node[data-id="ai"] .react-flow__handle.source').count()).toBe(3);
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(300);
    const never = page.locator('.react-flow__node[data-id="ai"] .react-flow__handle.source[data-handleid="never"]');
    const nb = (await never.boundingBox())!;
    const pane = (await page.locator('.react-flow__pane').boundingBox())!;
    await page.mouse.move(nb.x + nb.width / 2, nb.y + nb.height / 2);
    await page.mouse.down();
    await page.mouse.move(pane.x + 30, pane.y + pane.height * 0.45, { steps: 8 }); // fit view leaves the edges of the pane empty
    await page.mouse.up();
    await page.getByLabel('Search blocks').fill('notify');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="node-notify"]').waitFor();
    await poll(async () =>
      (await packOf(page)).automations[1]!.document.graph.edges.some(
        (e) => e.source === 'ai' && e.handle === 'never' && e.target === 'notify',
      ),
    ).toBe(true);
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/new-lead-welcome"]').click();
    await page.locator('[data-testid="node-start"]').waitFor();

    // Arrow keys: from the trigger down to the next block.
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(300);
    await page.locator('[data-testid="node-start"]').click();
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('tag');
    // Select all, then Ctrl-click to take one block out of the selection.
    await page.keyboard.press('Control+a');
    const total = await page.locator('.react-flow__node').count();
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(total);
    // Control goes down and the page renders before the click, as with a person's hand: React Flow's
    // click handler reads whether Control is held from its store, set by an effect after the keydown,
    // not from the click. (This step once failed under a doubled test load with the click sent
    // carrying its modifier at once; it is not reproduced since, and this removes that race.)
    await page.keyboard.down('Control');
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.locator('[data-testid="node-wait"]').click();
    await page.keyboard.up('Control');
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(total - 1);
    // Clicking empty canvas clears the selection (clicking a selected block keeps the group, to drag it).
    await page.locator('.react-flow__pane').click({ position: { x: 30, y: 300 } });
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(0);
    await page.locator('[data-testid="node-tag"]').click();
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(1);

    // Shift+arrows nudge the selected block, saved into the pack.
    const before = (await packOf(page)).automations[0]!.document.graph.nodes.find((n) => n.id === 'tag') as unknown as {
      position: { x: number; y: number };
    };
    await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowRight');
    await poll(
      async () =>
        ((await packOf(page)).automations[0]!.document.graph.nodes.find((n) => n.id === 'tag') as unknown as { position: { x: number } })
          .position.x,
    ).toBe(before.position.x + 20);
    await page.keyboard.press('Control+z');
    await poll(
      async () =>
        ((await packOf(page)).automations[0]!.document.graph.nodes.find((n) => n.id === 'tag') as unknown as { position: { x: number } })
          .position.x,
    ).toBe(before.position.x);

    // Renaming a block keeps it selected and rewrites its edges.
    await page.keyboard.press('ArrowUp');
    await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('start');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('tag');
    // The inspector shows the selected block's fields a render after the canvas marks it selected:
    // type once it does, as a person would (under a loaded machine the text went into the
    // previous block's field, which the switch then reset, leaving Rename disabled).
    await poll(() => page.getByLabel('Block id').inputValue()).toBe('tag');
    await page.getByLabel('Block id').fill('tag_lead');
    await poll(() => page.getByRole('button', { name: 'Rename' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'Rename' }).click();
    await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('tag_lead');
    expect(
      (await packOf(page)).automations[0]!.document.graph.edges.filter((e) => e.source === 'tag_lead' || e.target === 'tag_lead'),
    ).toHaveLength(2);
    await page.keyboard.press('Control+z');
    await page.locator('[data-testid="node-tag"]').click();

    // Dragging an edge's end to another block moves it: "false" now leads to the task as well.
    await page.getByRole('button', { name: /fit view/i }).click();
    await page.waitForTimeout(300);
    const updater = page.locator('.react-flow__edge[data-id="e6"] .react-flow__edgeupdater-target');
    const ub = (await updater.boundingBox())!;
    const tb = (await page.locator('.react-flow__node[data-id="task"] .react-flow__handle.target').boundingBox())!;
    await page.mouse.move(ub.x + ub.width / 2, ub.y + 2); // the updater's top, clear of the block's own input handle
    await page.mouse.down();
    await page.mouse.move(tb.x + tb.width / 2, tb.y + tb.height / 2, { steps: 10 });
    await page.mouse.up();
    await poll(async () =>
      (await packOf(page)).automations[0]!.document.graph.edges.find((e) => (e as unknown as { id: string }).id === 'e6'),
    ).toMatchObject({ source: 'replied', target: 'task', handle: 'false' });
    await page.keyboard.press('Control+z');
    await poll(async () =>
      (await packOf(page)).automations[0]!.document.graph.edges.find((e) => (e as unknown as { id: string }).id === 'e6'),
    ).toMatchObject({ target: 'email' });
    await page.locator('[data-testid="node-tag"]').click();

    // Delete removes the selected block (and undo brings it back).
    await page.keyboard.press('Delete');
    await poll(() => page.locator('[data-testid="node-tag"]').count()).toBe(0);
    await page.keyboard.press('Control+z');
    await page.locator('[data-testid="node-tag"]').waitFor();
    expect(errors).toEqual([]);
  });

  it("keeps the keyboard's focus on the canvas after Delete or Cut: on the block that took the deleted one's place (the arrow keys go on from there), on a deleted edge's source, on + Add block when no block is left", async () => {
    const { page, errors } = await editor.open();
    /** The canvas block the focus is on (its canvas id), else what it is on instead. */
    const active = () =>
      page.evaluate(() => {
        const a = document.activeElement;
        return a?.matches('.react-flow__node') ? `block ${a.getAttribute('data-id')}` : (a?.getAttribute('aria-label') ?? a?.tagName);
      });
    const selected = () => page.locator('.react-flow__node.selected').evaluateAll((ns) => ns.map((n) => n.getAttribute('data-id')));
    const nodeIds = async () => (await packOf(page)).automations[0]!.document.graph.nodes.map((n) => n.id);

    // A selected edge deleted with the key: the focus (on no element after the click) goes to its source block, selected.
    await page.locator('.react-flow__edge[aria-label="Connection start next to tag"] .react-flow__edge-interaction').dispatchEvent('click');
    await poll(() => page.locator('.react-flow__edge.selected').getAttribute('aria-label')).toBe('Connection start next to tag');
    await page.keyboard.press('Delete');
    await poll(async () =>
      (await packOf(page)).automations[0]!.document.graph.edges.some((e) => e.source === 'start' && e.target === 'tag'),
    ).toBe(false);
    await poll(active).toBe('block start');
    await poll(selected).toEqual(['start']);

    // Tab from the toolbar onto the blocks, to "wait"; Enter selects it, Delete deletes it: the
    // next block in the graph's list ("replied") is selected and focused, not the page's body.
    const order = await nodeIds();
    expect(order).toEqual(['start', 'tag', 'sms', 'wait', 'replied', 'task', 'email']);
    await page.getByRole('button', { name: 'Tidy up layout' }).focus();
    for (let i = 0; i < 10 && (await active()) !== 'block wait'; i++) await page.keyboard.press('Tab');
    expect(await active()).toBe('block wait');
    await page.keyboard.press('Enter');
    await poll(selected).toEqual(['wait']);
    await page.keyboard.press('Delete');
    await poll(nodeIds).toEqual(order.filter((id) => id !== 'wait'));
    await poll(active).toBe('block replied');
    await poll(selected).toEqual(['replied']);
    await poll(() => page.locator('.inspector').getByLabel('Block id').inputValue()).toBe('replied');
    await page.screenshot({ path: join(artifacts, 'focus-after-canvas-delete.png') });
    // The arrow keys go on from there, the focus with the selection: up from "replied" is "sms".
    await page.keyboard.press('ArrowUp');
    await poll(selected).toEqual(['sms']);
    await poll(active).toBe('block sms');
    // Cut removes it as Delete does, and the focus goes on the same way: to "replied", which took its place.
    await page.keyboard.press('Control+x');
    await poll(nodeIds).toEqual(order.filter((id) => id !== 'wait' && id !== 'sms'));
    await poll(active).toBe('block replied');
    await poll(selected).toEqual(['replied']);

    // Delete, again and again: each time the block that took the deleted one's place (the next, else
    // the one before) has the focus and the selection, down to + Add block when none is left.
    let left = order.filter((id) => id !== 'wait' && id !== 'sms');
    let at = left.indexOf('replied');
    while (left.length > 0) {
      await page.keyboard.press('Backspace');
      left = left.filter((_, i) => i !== at);
      await poll(nodeIds).toEqual(left);
      if (left.length === 0) break;
      at = Math.min(at, left.length - 1);
      await poll(active).toBe(`block ${left[at]}`);
      await poll(selected).toEqual([left[at]]);
    }
    await poll(active).toBe('Add block');
    await page.screenshot({ path: join(artifacts, 'focus-after-canvas-delete-last.png') });
    expect(errors).toEqual([]);
  });

  it('copies blocks to the system clipboard as JSON and pastes them into another pack in another tab; plain text is not pasted as blocks', async () => {
    const a = await editor.page();
    await a.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: editor.url });
    await a.page.goto(`${editor.url}/?pack=/fixtures/valid/buyer-lead-starter.json`);
    await a.page.locator('[data-testid="node-wait"]').click();
    await a.page.keyboard.press('Control+c');
    const copied = JSON.parse(await a.page.evaluate(() => navigator.clipboard.readText()));
    expect(copied).toMatchObject({
      format: 'service.setup-pack-blocks',
      version: 1,
      nodes: [{ id: 'wait', kind: 'control.wait' }],
      edges: [],
    });

    const b = await editor.page('?pack=/fixtures/valid/listing-marketing.json', { context: a.context });
    await b.page.locator('[data-testid="node-match"]').waitFor();
    const before = (await packOf(b.page)).automations[0]!.document.graph.nodes.length;
    await b.page.locator('[data-testid="node-note"]').click();
    await b.page.keyboard.press('Control+v');
    await b.page.locator('[data-testid="node-wait"]').waitFor();
    const nodes = (await packOf(b.page)).automations[0]!.document.graph.nodes;
    expect(nodes).toHaveLength(before + 1);
    expect(nodes.find((n) => n.id === 'wait')).toMatchObject({ kind: 'control.wait', config: { duration: 1, unit: 'days' } });

    // Blocks whose text says what the editor would not keep as written (1e-400 reads as 0) are not
    // pasted: the notice says why, in core's words, and the pack stays as it was.
    const tiny = JSON.stringify({ ...copied, nodes: [{ ...copied.nodes[0], id: 'tiny' }] }, null, 2).replace(
      '"duration": 1',
      '"duration": 1e-400',
    );
    expect(tiny).toContain('1e-400');
    await b.page.evaluate((t) => navigator.clipboard.writeText(t), tiny);
    await b.page.locator('[data-testid="node-note"]').click();
    await b.page.keyboard.press('Control+v');
    await poll(() => b.page.locator('.notice').textContent()).toMatch(
      /^Not pasted: the copied text says what the editor cannot keep as written: line \d+: nodes\[0\]\.config\.duration is the number 1e-400, closer to 0 than a JSON number can hold here \(a 64-bit float\); it reads as 0, .* Write 0 if that is what it means; else write it as a string, which keeps every digit\.$/,
    );
    expect(await b.page.locator('[data-testid="node-tiny"]').count()).toBe(0);
    expect((await packOf(b.page)).automations[0]!.document.graph.nodes).toHaveLength(before + 1);

    // Ordinary text on the clipboard is left alone.
    await b.page.evaluate(() => navigator.clipboard.writeText('just some words'));
    await b.page.keyboard.press('Control+v');
    await b.page.waitForTimeout(300);
    expect((await packOf(b.page)).automations[0]!.document.graph.nodes).toHaveLength(before + 1);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('exports every fixture byte-identical when untouched, and opens a dropped file', async () => {
    const { page, errors, dialogs } = await editor.page('', { viewport: { width: 1200, height: 800 }, acceptDownloads: true });
    await page.locator('.react-flow').waitFor();
    // A JSON file that is not a pack has no schema version, and the pack form does not invent one.
    // A file in UTF-16 (what Windows PowerShell 5 writes) is refused with its encoding named, and the pack on screen stays.
    const shown = await page.locator('.toolbar .source').textContent();
    await page.getByTestId('open-file').setInputFiles({
      name: 'utf16.json',
      mimeType: 'application/json',
      buffer: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"hello": "world"}\n', 'utf16le')]),
    });
    await poll(() => page.locator('.notice').textContent()).toBe(
      'Cannot open utf16.json: it is UTF-16LE text (it starts with the byte order mark FF FE), and a pack is JSON in UTF-8: save it as UTF-8',
    );
    expect(await page.locator('.toolbar .source').textContent()).toBe(shown);
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'not-a-pack.json', mimeType: 'application/json', buffer: Buffer.from('{"hello": "world"}\n') });
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('not-a-pack.json');
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    expect(await page.getByLabel('Schema version').inputValue()).toBe('');
    expect(await page.getByLabel('Schema version').evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent)).toBe(
      '(not set)',
    );
    for (const file of [
      'valid/buyer-lead-starter.json',
      'valid/listing-marketing.json',
      'releases/buyer-lead-1.0.0.json',
      'releases/buyer-lead-1.1.0.json',
    ]) {
      const original = readFileSync(join(repoRoot, 'fixtures', file), 'utf8');
      await page.getByTestId('open-file').setInputFiles(join(repoRoot, 'fixtures', file));
      await poll(() => page.locator('.toolbar .source').textContent()).toBe(file.split('/')[1]);
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
      expect(readFileSync((await download.path())!, 'utf8'), file).toBe(original);
    }
    // The untouched pack is autosaved as its text alone, and a reload restores it: still byte-identical.
    type Drafts = { __drafts: { load(): Promise<{ source?: string; pack?: unknown; originText?: string } | undefined> } };
    const saved = () =>
      page.evaluate(async () => {
        const d = await (window as unknown as Drafts).__drafts.load();
        return d && { source: d.source, hasPack: d.pack !== undefined, textLength: d.originText?.length };
      });
    const last = readFileSync(join(repoRoot, 'fixtures/releases/buyer-lead-1.1.0.json'), 'utf8');
    await poll(saved).toEqual({ source: 'buyer-lead-1.1.0.json', hasPack: false, textLength: last.length });
    await page.reload();
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('buyer-lead-1.1.0.json');
    const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(readFileSync((await again.path())!, 'utf8')).toBe(last);
    // Drag and drop a file onto the window.
    const text = readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8');
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped-pack.json', { type: 'application/json' }));
      const app = document.querySelector('.app')!;
      app.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      app.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('dropped-pack.json');
    await page.locator('[data-testid="node-start"]').waitFor();

    // Exporting a pack with errors asks first.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    await page.locator('.editor-pane [data-path="name"]').fill('');
    await poll(() => errorCount(page).textContent()).toBe('1 error');
    const asked = dialogs.length;
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(dialogs.slice(asked).map((d) => d.type)).toEqual(['confirm']);
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8')).name).toBe('');
    expect(errors).toEqual([]);
  });

  it('opens a file from the picker, edits other kinds, and shows a visual diff of two releases', async () => {
    const { page, errors } = await editor.page('');
    await page.getByTestId('open-file').setInputFiles(join(repoRoot, 'fixtures/valid/listing-marketing.json'));
    await poll(() => page.locator('.toolbar .source').textContent()).toMatch(/listing-marketing/);
    const nav = page.getByRole('navigation', { name: 'Pack items' });
    expect(await nav.locator('[data-item^="assets/"]').count()).toBe(
      (JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/listing-marketing.json'), 'utf8')).assets as unknown[]).length,
    );
    await nav.locator('[data-item^="assets/"]').first().click();
    expect(await page.getByRole('img', { name: /Preview of/ }).count()).toBe(1);
    // Replacing the file recomputes byteSize and sha256.
    const bytes = Buffer.from('not really a png, but bytes all the same');
    await page.getByLabel('Replace asset file').setInputFiles({ name: 'new-logo.png', mimeType: 'image/png', buffer: bytes });
    await poll(() => page.getByLabel('Byte size', { exact: true }).inputValue()).toBe(String(bytes.length));
    expect(await page.getByLabel('SHA-256', { exact: true }).inputValue()).toBe(sha256Hex(new Uint8Array(bytes)));
    expect(await page.locator('.diagnostics button[data-code^="asset/"]').count()).toBe(0);
    await nav.locator('[data-item^="pipelines/"]').first().click();
    const firstName = await page.getByLabel('Stage 1 name').inputValue();
    await page.getByRole('button', { name: 'Move stage 1 down' }).click();
    expect(await page.getByLabel('Stage 2 name').inputValue()).toBe(firstName);

    // A message template: merge tags previewed with sample values.
    await nav.locator('[data-item^="messageTemplates/"]').first().click();
    await page.getByLabel('Subject').fill('Hi {{contact.first_name}}, see {{listing.address}}');
    expect(await page.locator('.preview').first().textContent()).toBe('Subject: Hi Alex, see 12 Harbor Lane');

    // Automation settings: a send window written in minutes after midnight.
    await nav.locator('[data-item^="automations/"]').first().click();
    await page.locator('.react-flow__node').first().waitFor();
    const settings = page.getByRole('region', { name: 'Delivery settings' });
    if (!(await settings.getByLabel('Daily send limit').count())) await settings.getByLabel('Delivery settings').check();
    await settings.getByLabel('Daily send limit').fill('250');
    await settings.getByLabel('Send window start').fill('08:30');
    await poll(() =>
      page.evaluate(() =>
        JSON.stringify(
          (window as unknown as { __editor: { pack: { automations: { document: { settings: unknown } }[] } } }).__editor.pack
            .automations[0]!.document.settings,
        ),
      ),
    ).toMatch(/"daily_send_limit":250.*"send_window_start":510|"send_window_start":510.*"daily_send_limit":250/);

    // Compare the edited pack (as the new release) with a file: Old first, then New, then Compare.
    await page.getByRole('button', { name: 'Compare releases' }).click();
    await page.getByLabel('Old release').setInputFiles(join(repoRoot, 'fixtures/valid/listing-marketing.json'));
    await poll(() => page.getByTestId('old-choice').textContent()).toBe('Chosen: listing-marketing.json');
    // The New chooser is still there, and the edited pack's findings are not shown over the comparison.
    expect(await page.getByLabel('New release').count()).toBe(1);
    expect(await page.locator('.diagnostics').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Compare', exact: true }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'use the pack being edited' }).click();
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.getByRole('list', { name: 'Item changes' }).waitFor();
    expect(await page.locator('[data-change="changed"][data-item^="messageTemplates/"]').count()).toBe(1);
    await page.getByRole('button', { name: 'Back to editor' }).click();

    await page.goto(`${editor.url}/?old=/fixtures/releases/buyer-lead-1.0.0.json&new=/fixtures/releases/buyer-lead-1.1.0.json`);
    await page.getByRole('list', { name: 'Item changes' }).waitFor();
    expect(await page.locator('[data-change="added"][data-item="automations/deal-won-thanks"]').count()).toBe(1);
    expect(await page.locator('[data-change="removed"][data-item="automations/old-reminder"]').count()).toBe(1);
    // The changes are said in words (which block and setting), releases by their file names (full path in the tooltip).
    const changes = page.getByRole('list', { name: 'Item changes' });
    expect(await changes.getByText('block wait changed: config.duration').count()).toBe(1);
    expect(await changes.getByText(/document/).count()).toBe(0);
    expect(await page.getByTitle('/fixtures/releases/buyer-lead-1.0.0.json').textContent()).toBe('Old: buyer-lead-1.0.0.json (1.0.0)');
    await page.locator('.block[class*="diff-"]').first().waitFor();
    expect(await page.locator('.block[class*="diff-"]').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(artifacts, 'diff.png') });
    expect(errors).toEqual([]);
  });

  it("says in the compare view what changed in a smart list's filters: each condition by its place, in words, and a reorder as one", async () => {
    const starter = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    const list = starter.smartLists[0];
    list.filters.root.children.push({
      type: 'or',
      children: [
        { type: 'condition', field: 'stage', operator: 'equals', value: 'stage-new' },
        { type: 'condition', field: 'city', operator: 'equals', value: 'Paris' },
      ],
    });
    const next = structuredClone(starter);
    const root = next.smartLists[0].filters.root;
    const [tag, , or] = root.children;
    or.children[1].value = 'Lyon';
    or.children.push({ type: 'condition', field: 'lead_source', operator: 'equals', value: 'zillow' });
    root.children = [or, tag];
    next.smartLists[0].filters.version = 3;
    const { page, errors } = await editor.page('');
    await page.locator('.react-flow').waitFor();
    await page.getByRole('button', { name: 'Compare releases' }).click();
    await page
      .getByLabel('Old release')
      .setInputFiles({ name: 'old.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(starter)) });
    await page
      .getByLabel('New release')
      .setInputFiles({ name: 'new.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(next)) });
    await poll(() => page.getByTestId('new-choice').textContent()).toBe('Chosen: new.json');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const item = page.getByRole('list', { name: 'Item changes' }).locator(`[data-item="smartLists/${list.key}"]`);
    await item.waitFor();
    expect(await item.getAttribute('data-change')).toBe('changed');
    expect(await item.locator('.help').allTextContents()).toEqual([
      'changed: filters.version',
      'group root reordered: the same filter',
      'condition root › 1 › 2 changed (value): city is Paris → city is Lyon',
      'condition root › 1 › 3 added: lead source is zillow',
      `condition root › 2 removed: created at is within the last ${list.filters.root.children[1].value} days`,
    ]);
    // Never the bare field name.
    expect(await item.getByText(/^changed: filters$/).count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'diff-filters.png') });
    expect(errors).toEqual([]);
  });

  it('says in the compare form why a release given in the address (?old=, ?new=) could not be opened, instead of showing the editor as if nothing was asked', async () => {
    const { page, errors } = await editor.page('?old=/fixtures/releases/nope.json&new=/');
    await page.getByRole('heading', { name: 'Compare two releases' }).waitFor();
    expect(await page.getByTestId('old-problem').textContent()).toBe('Cannot load /fixtures/releases/nope.json: HTTP 404');
    // The editor's own page is HTML, not a pack: core's syntax message.
    expect(await page.getByTestId('new-problem').textContent()).toMatch(/^Cannot open \/: .+/);
    expect(await page.getByRole('button', { name: 'Compare', exact: true }).isDisabled()).toBe(true);
    // Choosing a file there replaces the problem with the choice.
    await page.getByLabel('Old release').setInputFiles(join(repoRoot, 'fixtures/releases/buyer-lead-1.0.0.json'));
    await poll(() => page.getByTestId('old-choice').textContent()).toBe('Chosen: buyer-lead-1.0.0.json');
    expect(await page.getByTestId('old-problem').count()).toBe(0);
    await page.screenshot({ path: join(artifacts, 'diff-address-problem.png') });
    // One release that loads and one that does not: the one that loads is chosen, the other said.
    await page.goto(`${editor.url}/?old=/fixtures/releases/buyer-lead-1.0.0.json&new=/fixtures/releases/nope.json`);
    await page.getByRole('heading', { name: 'Compare two releases' }).waitFor();
    expect(await page.getByTestId('old-choice').textContent()).toBe('Chosen: /fixtures/releases/buyer-lead-1.0.0.json');
    expect(await page.getByTestId('new-problem').textContent()).toBe('Cannot load /fixtures/releases/nope.json: HTTP 404');
    expect(errors).toEqual([]);
  });

  it('names the items the compare view cannot pair by key (no key, a repeated key) instead of comparing them silently wrong', async () => {
    const starter = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    const next = structuredClone(starter);
    next.automations[1].key = 'new-lead-welcome'; // repeats automations[0]'s key
    delete next.messageTemplates[0].key;
    const { page, errors } = await editor.page('');
    await page.locator('.react-flow').waitFor();
    const compare = async (oldPack: unknown, newPack: unknown, tag: string) => {
      await page.getByRole('button', { name: 'Compare releases' }).click();
      await page
        .getByLabel('Old release')
        .setInputFiles({ name: `old-${tag}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(oldPack)) });
      await page
        .getByLabel('New release')
        .setInputFiles({ name: `new-${tag}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(newPack)) });
      await poll(() => page.getByTestId('old-choice').textContent()).toBe(`Chosen: old-${tag}.json`);
      await poll(() => page.getByTestId('new-choice').textContent()).toBe(`Chosen: new-${tag}.json`);
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      await page.getByRole('complementary', { name: 'Changes' }).waitFor();
    };
    await compare(starter, next, 'a');
    const notCompared = page.getByRole('region', { name: 'Items not compared' });
    expect(await notCompared.textContent()).toContain('3 items in the new release and 1 in the old cannot be paired by key');
    expect(await notCompared.getByRole('listitem').allTextContents()).toEqual([
      'Old release: automations[0] “New lead welcome” has key "new-lead-welcome", which the other release repeats',
      'New release: automations[0] “New lead welcome”, automations[1] “Stage nurture” share key "new-lead-welcome"',
      'New release: messageTemplates[0] “Welcome text” has no string key',
    ]);
    // What core can only call removed is said to be perhaps one of them; nothing else is.
    const removed = page.locator('[data-item="automations/nurture-by-stage"]');
    expect(await removed.getAttribute('data-change')).toBe('removed');
    expect(await removed.locator('.unpaired-note').textContent()).toBe(
      'Perhaps one of the new release’s automations not compared (its key went wrong), not removed.',
    );
    expect(await page.locator('[data-item="messageTemplates/tpl-welcome-sms"] .unpaired-note').count()).toBe(1);
    expect(await page.locator('.unpaired-note').count()).toBe(2);
    await page.screenshot({ path: join(artifacts, 'diff-unpaired.png') });
    await page.getByRole('button', { name: 'Back to editor' }).click();

    // The same repeated key in both releases: nothing else differs, but "No changes." would be a guess.
    await compare(next, next, 'b');
    expect(await page.getByRole('region', { name: 'Items not compared' }).count()).toBe(1);
    expect(await page.getByText('No changes.', { exact: true }).count()).toBe(0);
    expect(await page.getByText('No other changes among the items compared.', { exact: true }).count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('keeps 20,000 findings readable: folded by message, only the rows in view rendered, a finding deep in a group still jumps to its block', async () => {
    const pack = noisyPack('Many findings', 50, (i) => ({ x: 0, y: i * 120 }));
    const { page, errors } = await editor.page('', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow').waitFor();
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'many.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(pack)) });
    const summary = page.locator('.diagnostics summary');
    await poll(() => summary.textContent()).toMatch(/0 errors, 0 warnings, 19,900 infos$/);
    const list = page.getByRole('list', { name: 'Findings' });
    // Two groups of 9,950: two rows, however many findings.
    await poll(() => list.getByRole('listitem').count()).toBe(2);
    await expect(list.getByText('×9,950').count()).resolves.toBe(2);
    await list
      .getByRole('button', { name: /Show all 9,950 findings like this/ })
      .first()
      .click();
    // Opened: the group lists its findings, but only the rows in view are in the page.
    await poll(() => list.getByRole('listitem').count()).toBeGreaterThan(5);
    expect(await list.getByRole('listitem').count()).toBeLessThan(60);
    await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
    // The last finding of the opened group, thousands of rows down: it is rendered once scrolled to, and jumps to its block.
    // Findings are in document order: the group's last one is automation 49's last block.
    const last = list.getByRole('button', { name: /legacy_color of action\.add_note node "n199"/ }).last();
    await poll(() => last.textContent()).toContain('automations[49]');
    const nodeId = 'n199';
    await last.click();
    // The inspector shows the block the finding is about.
    await poll(() => page.getByLabel('Block id').inputValue()).toBe(nodeId);
    await page.screenshot({ path: join(artifacts, 'many-findings.png') });
    expect(errors).toEqual([]);
  });

  it('shows a finding that quotes a hostile key with its bidirectional override and control character escaped, as the CLI prints it', async () => {
    const pack = noisyPack('Hostile', 1, (i) => ({ x: 0, y: i * 120 }));
    const node = (pack.automations[0]!.document.graph.nodes as { config: Record<string, unknown> }[])[1]!;
    node.config = { body: 'Step 1', ['evil\u202egnp.exe\u0007']: 1 };
    const { page, errors } = await editor.page('', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow').waitFor();
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'hostile.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(pack)) });
    const list = page.getByRole('list', { name: 'Findings' });
    const row = list.locator('.msg', { hasText: 'evil' }).first();
    await poll(() => row.textContent()).toBe(
      'config.evil\\u202egnp.exe\\u0007 of action.add_note node "n1" is not in our catalog; it is kept as it is.',
    );
    expect(await list.evaluate((el) => /[\u0000-\u001f\u202a-\u202e\u2066-\u2069]/.test(el.textContent ?? ''))).toBe(false);
    expect(errors).toEqual([]);
  });

  it("says on opening a file what its text says that the editor's copy cannot keep (a property said twice), and nothing for the next clean file", async () => {
    const text = readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8').replace(
      '"name": "Buyer Lead Starter",',
      '"name": "Draft name", "name": "Buyer Lead Starter",',
    );
    const { page, errors } = await editor.page('', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow').waitFor();
    await page.getByTestId('open-file').setInputFiles({ name: 'twice.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    const banner = page.locator('.banner');
    await poll(() => banner.textContent()).toContain(
      'This file says what the editor cannot keep as written: line 6: The property "name" appears more than once in this object; only the last one counts.',
    );
    expect((await packOf(page)).name).toBe('Buyer Lead Starter');
    await page.getByTestId('open-file').setInputFiles({
      name: 'clean.json',
      mimeType: 'application/json',
      buffer: readFileSync(join(repoRoot, 'fixtures/valid/listing-marketing.json')),
    });
    await poll(() => page.locator('header .source').textContent()).toBe('clean.json');
    expect(await banner.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('lists each number the editor reads otherwise than its file writes it (1e-400 as 0) at its place, and export writes them so only when asked', async () => {
    const original = readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8');
    const text = original
      .replace('"probability": 30', '"probability": 30.0000000000000000001')
      .replace('"probability": 0,', '"probability": 1e-400,');
    expect(text).not.toBe(original);
    const {
      page,
      errors,
      dialogs: asked,
      answers,
    } = await editor.page(undefined, { viewport: { width: 1200, height: 800 }, acceptDownloads: true });
    await page.goto(`${editor.url}/`);
    await page.locator('.react-flow').waitFor();
    await page.getByTestId('open-file').setInputFiles({ name: 'numbers.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await poll(() => page.locator('header .source').textContent()).toBe('numbers.json');

    // Each number is a finding in the panel, in core's words (json/number-precision, as the CLI says it), at its place.
    const findings = page.getByRole('list', { name: 'Findings' });
    const tiny = findings.getByRole('button', {
      name: /pipelines\[0\]\.stages\[4\]\.probability is the number 1e-400, closer to 0 than a JSON number can hold here \(a 64-bit float\); it reads as 0/,
    });
    const long = findings.getByRole('button', {
      name: /pipelines\[0\]\.stages\[1\]\.probability is the number 30\.0000000000000000001, with more digits than a JSON number keeps here .*; it reads as 30,/,
    });
    await poll(() => tiny.count()).toBe(1);
    await poll(() => long.count()).toBe(1);
    expect(await tiny.locator('code').textContent()).toBe('json/number-precision');
    // Clicking one opens the pipeline and focuses the stage's probability.
    await tiny.click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stage 5 probability');

    // Untouched, the pack exports as the file it was opened from, every digit kept, without a question.
    const [untouched] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(readFileSync((await untouched.path())!, 'utf8')).toBe(text);
    expect(asked).toEqual([]);
    // Kept as its text, the untouched pack's draft keeps the numbers too: a reload lists them again.
    type Drafts = { __drafts: { load(): Promise<{ originText?: string; numbers?: unknown[] } | undefined> } };
    await poll(() =>
      page.evaluate(async () => {
        const d = await (window as unknown as Drafts).__drafts.load();
        return d && { text: d.originText?.length, numbers: d.numbers?.length };
      }),
    ).toEqual({ text: text.length, numbers: 2 });
    await page.reload();
    await poll(() => tiny.count()).toBe(1);
    expect(await long.count()).toBe(1);

    // Edited, it would be written as the editor reads it: export asks first, naming each number,
    // its place and what it would be written as; declined, nothing is written.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    await page.locator('.editor-pane [data-path="name"]').fill('Buyer Lead Starter (edited)');
    answers.push(false);
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.getByRole('button', { name: 'Export pack' }).click();
    await poll(() => asked.length).toBe(1);
    expect(asked[0]!.type).toBe('confirm');
    expect(asked[0]!.message).toContain('30.0000000000000000001 at pipelines[0].stages[1].probability will be written as 30');
    expect(asked[0]!.message).toContain('1e-400 at pipelines[0].stages[4].probability will be written as 0');
    await page.waitForTimeout(300);
    expect(downloads).toBe(0);
    expect(await page.locator('header .dirty').count()).toBe(1);

    // A number edited in the form is the author's own: its finding goes, and export asks about the other alone.
    await tiny.click(); // back to the pipeline
    // The click focuses its field a moment later: typed before, "35" could land in stage 5.
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stage 5 probability');
    await page.getByLabel('Stage 2 probability').fill('35');
    await poll(() => long.count()).toBe(0);
    expect(await tiny.count()).toBe(1);
    await page.getByRole('button', { name: 'Undo' }).click(); // the number as it read comes back, and so does its finding
    await poll(() => long.count()).toBe(1);
    await page.getByRole('button', { name: 'Redo' }).click();
    await poll(() => long.count()).toBe(0);
    answers.push(true);
    const [edited] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.message).toContain('1e-400 at pipelines[0].stages[4].probability will be written as 0');
    expect(asked[1]!.message).not.toContain('30.0000000000000000001');
    // Accepted: written as asked.
    const written = JSON.parse(readFileSync((await edited.path())!, 'utf8'));
    expect(written.name).toBe('Buyer Lead Starter (edited)');
    expect(written.pipelines[0].stages.map((s: { probability: number }) => s.probability)).toEqual([10, 35, 60, 100, 0]);

    // The draft kept in the browser keeps the finding: after a reload, the panel still lists it and export still asks.
    await page.getByLabel('Stage 1 probability').fill('15');
    await poll(() => page.getByTestId('draft-state').textContent()).toMatch(/draft kept/);
    await page.reload(); // asks first (beforeunload), accepted
    expect(asked.map((a) => a.type)).toEqual(['confirm', 'confirm', 'beforeunload']);
    await poll(() => page.locator('.banner').textContent()).toContain('Restored unsaved work');
    await poll(() => tiny.count()).toBe(1);
    answers.push(false);
    await page.getByRole('button', { name: 'Export pack' }).click();
    await poll(() => asked.length).toBe(4);
    expect(asked[3]!.message).toContain('1e-400 at pipelines[0].stages[4].probability will be written as 0');
    expect(errors).toEqual([]);
  });

  it('lists each property its file writes twice at its place, and export names the earlier values it drops only when asked', async () => {
    const original = readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8');
    const text = original.replace('"name": "Showing homes",', '"name": "Touring homes",\n          "name": "Showing homes",');
    expect(text).not.toBe(original);
    const {
      page,
      errors,
      dialogs: asked,
      answers,
    } = await editor.page(undefined, { viewport: { width: 1200, height: 800 }, acceptDownloads: true });
    let downloads = 0;
    page.on('download', () => downloads++);
    await page.goto(`${editor.url}/`);
    await page.locator('.react-flow').waitFor();
    await page.getByTestId('open-file').setInputFiles({ name: 'twice.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await poll(() => page.locator('header .source').textContent()).toBe('twice.json');

    // The property is a finding in the panel, in core's words (json/duplicate-key, as validating the text says it), at its place.
    const findings = page.getByRole('list', { name: 'Findings' });
    const twice = findings.getByRole('button', {
      name: /The property "name" appears more than once in this object; only the last one counts\./,
    });
    await poll(() => twice.count()).toBe(1);
    expect(await twice.locator('code').textContent()).toBe('json/duplicate-key');
    await twice.click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stage 2 name');

    // Untouched, the pack exports as its file, both values kept, without a question.
    const [untouched] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(readFileSync((await untouched.path())!, 'utf8')).toBe(text);
    expect(asked).toEqual([]);
    downloads = 0;

    // Edited, the earlier value would be dropped: export asks first, naming the property, where, and the lines; declined, nothing is written.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    await page.locator('.editor-pane [data-path="name"]').fill('Buyer Lead Starter (edited)');
    answers.push(false);
    await page.getByRole('button', { name: 'Export pack' }).click();
    await poll(() => asked.length).toBe(1);
    expect(asked[0]!.type).toBe('confirm');
    expect(asked[0]!.message).toContain(
      'pipelines[0].stages[1].name (written 2 times): the last, at line 383, is written; the earlier, at line 382, is dropped',
    );
    await page.waitForTimeout(300);
    expect(downloads).toBe(0);

    // The draft kept in the browser keeps the finding: after a reload, the panel still lists it and export still asks.
    await poll(() => page.getByTestId('draft-state').textContent()).toMatch(/draft kept/);
    await page.reload(); // asks first (beforeunload), accepted
    await poll(() => page.locator('.banner').textContent()).toContain('Restored unsaved work');
    await poll(() => twice.count()).toBe(1);
    answers.push(true);
    const [edited] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(asked.map((a) => a.type)).toEqual(['confirm', 'beforeunload', 'confirm']);
    expect(asked[2]!.message).toContain('pipelines[0].stages[1].name (written 2 times)');
    const written = JSON.parse(readFileSync((await edited.path())!, 'utf8'));
    expect(written.pipelines[0].stages[1].name).toBe('Showing homes');

    // A name typed in its place is the author's: the finding goes, and export asks nothing (Undo brings it back).
    await twice.click();
    await page.getByLabel('Stage 2 name').fill('Touring homes');
    await poll(() => twice.count()).toBe(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(() => twice.count()).toBe(1);
    await page.getByRole('button', { name: 'Redo' }).click();
    await poll(() => twice.count()).toBe(0);
    const [retyped] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(asked).toHaveLength(3);
    expect(JSON.parse(readFileSync((await retyped.path())!, 'utf8')).pipelines[0].stages[1].name).toBe('Touring homes');
    expect(errors).toEqual([]);
  });

  it('keeps a finding of the opened file on its item when items before it are removed, and drops it with its item', async () => {
    const pack = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    // A fourth automation whose second block has an object config too, where the third's would land by index.
    pack.automations.push({
      ...structuredClone(pack.automations[1]),
      key: 'nurture-copy',
      document: { ...structuredClone(pack.automations[1].document), name: 'Nurture copy' },
    });
    // The third automation ("Old reminder") writes its notify block's config twice (an object), and a number a float does not keep.
    pack.automations[2].document.graph.nodes[1].config.weight = 'TINY';
    const text = JSON.stringify(pack, null, 2)
      .replace('"kind": "action.notify",', '"kind": "action.notify",\n              "config": { "message": "Earlier" },')
      .replace('"TINY"', '1e-400');
    expect(text).toContain('"Earlier"');
    const {
      page,
      errors,
      dialogs: asked,
    } = await editor.page(undefined, { viewport: { width: 1200, height: 800 }, acceptDownloads: true });
    await page.goto(`${editor.url}/`);
    await page.locator('.react-flow').waitFor();
    await page.getByTestId('open-file').setInputFiles({ name: 'moved.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await poll(() => page.locator('header .source').textContent()).toBe('moved.json');
    const findings = page.getByRole('list', { name: 'Findings' });
    const twice = findings.getByRole('button', { name: /The property "config" appears more than once in this object/ });
    const tiny = findings.getByRole('button', { name: /is the number 1e-400, closer to 0/ });
    await poll(() => twice.count()).toBe(1);
    expect(await twice.locator('.help').textContent()).toBe('automations[2].document.graph.nodes[1].config');
    expect(await tiny.locator('.msg').textContent()).toMatch(
      /^automations\[2\]\.document\.graph\.nodes\[1\]\.config\.weight is the number 1e-400/,
    );
    const nav = page.getByRole('navigation', { name: 'Pack items' });
    const warnings = (key: string) => nav.locator(`[data-item="automations/${key}"] .badge.warning`).count();
    expect(await warnings('old-reminder')).toBe(1);
    expect(await warnings('nurture-copy')).toBe(0);

    // The first automation removed: the findings follow "Old reminder", now the second, and do not land on "Nurture copy", now the third.
    await nav.locator('[data-item="automations/new-lead-welcome"]').click();
    await page.getByRole('button', { name: 'Remove New lead welcome' }).click();
    await poll(() => twice.locator('.help').textContent()).toBe('automations[1].document.graph.nodes[1].config');
    await poll(() => tiny.locator('.msg').textContent()).toMatch(
      /^automations\[1\]\.document\.graph\.nodes\[1\]\.config\.weight is the number 1e-400/,
    );
    await poll(() => warnings('old-reminder')).toBe(1);
    expect(await warnings('nurture-copy')).toBe(0);
    await page.screenshot({ path: join(artifacts, 'duplicate-follows-item.png') });
    // Clicking it opens the automation it is in.
    await twice.click();
    await poll(() => nav.locator('[data-item="automations/old-reminder"]').getAttribute('aria-current')).toBe('true');
    // Export asks about it at its new place.
    expect(asked.map((a) => a.message)).toEqual(['Remove New lead welcome?']);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    expect(asked).toHaveLength(2);
    expect(asked[1]!.message).toContain('automations[1].document.graph.nodes[1].config (written 2 times)');
    expect(asked[1]!.message).toContain('1e-400 at automations[1].document.graph.nodes[1].config.weight will be written as 0');
    expect(JSON.parse(readFileSync((await download.path())!, 'utf8')).automations[1].document.graph.nodes[1].config).toEqual({
      message: 'Check in with this lead.',
      weight: 0,
    });

    // Its item removed, the findings go; Undo brings them back where they were.
    await page.getByRole('button', { name: 'Remove Old reminder' }).click();
    await poll(() => twice.count()).toBe(0);
    expect(await tiny.count()).toBe(0);
    expect(await warnings('nurture-copy')).toBe(0);
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(() => twice.locator('.help').textContent()).toBe('automations[1].document.graph.nodes[1].config');
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(() => twice.locator('.help').textContent()).toBe('automations[2].document.graph.nodes[1].config');
    expect(await tiny.locator('.msg').textContent()).toMatch(/^automations\[2\]\./);
    expect(errors).toEqual([]);
  });

  it('does not apply JSON typed or pasted into a field that says what the editor would not keep (1e-400 read as 0, a property written twice)', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow__node').first().waitFor();
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    const brand = page.getByLabel('Brand (JSON)');
    const before = ((await packOf(page)) as { brand?: unknown }).brand;
    await brand.fill('{"accent": 1e-400}');
    const note = page.locator('.editor-pane .field-error');
    await poll(() => note.allTextContents()).toContainEqual(
      expect.stringMatching(
        /Not applied: this JSON says what the editor cannot keep as written: line 1: brand\.accent is the number 1e-400, closer to 0 than a JSON number can hold here \(a 64-bit float\); it reads as 0, .* Write 0 if that is what it means; else write it as a string, which keeps every digit\.$/,
      ),
    );
    expect(await brand.getAttribute('aria-invalid')).toBe('true');
    expect(((await packOf(page)) as { brand?: unknown }).brand).toEqual(before);
    await brand.fill('{"accent": 1, "accent": 2}');
    await poll(() => note.allTextContents()).toContainEqual(
      expect.stringContaining(
        'The property "accent" appears more than once in this object; only the last one counts. Remove or merge the duplicate property.',
      ),
    );
    expect(((await packOf(page)) as { brand?: unknown }).brand).toEqual(before);
    // Written as meant, it is taken.
    await brand.fill('{"accent": 0}');
    await poll(() => page.evaluate(() => (window as unknown as { __editor: { pack: { brand?: unknown } } }).__editor.pack.brand)).toEqual({
      accent: 0,
    });
    expect(await note.allTextContents()).not.toContainEqual(expect.stringMatching(/Not applied/));
    expect(errors).toEqual([]);
  });

  it('does not apply a typed number the editor would not keep as written (1e-400 read as 0, 1e400, an integer beyond 2^53) in any number field; ordinary numbers still set', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', { acceptDownloads: true });
    await page.locator('.react-flow__node').first().waitFor();
    await poll(() => page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
    type Full = {
      automations: {
        document: { settings: Record<string, unknown>; graph: { nodes: { id: string; config: Record<string, unknown> }[] } };
      }[];
      pipelines: { stages: { probability?: unknown }[] }[];
      smartLists: { filters: { root: { children: { value?: unknown }[] } } }[];
    };
    const full = () => packOf(page) as unknown as Promise<Full>;
    const refused = [
      [
        '1e-400',
        'json/number-precision',
        /is the number 1e-400, closer to 0 than a JSON number can hold here \(a 64-bit float\); it reads as 0, and would be installed and exported so\. Write 0 if that is what it means/,
      ],
      [
        '1e400',
        'json/number-range',
        /is the number 1e400, beyond what a JSON number can hold here \(a 64-bit float\); it would be read as Infinity and installed as null\./,
      ],
      [
        '9007199254740993',
        'json/number-precision',
        /is the number 9007199254740993, with more digits than a JSON number keeps here \(a 64-bit float holds every integer only up to 2\^53, 9007199254740992\); it reads as 9007199254740992,/,
      ],
      [
        '0.1000000000000000055511151231257827',
        'json/number-precision',
        /is the number 0\.1000000000000000055511151231257827, with more digits .*; it reads as 0\.1,/,
      ],
    ] as const;
    /** Types each refused number into `input`: the text stays, the note says why (core's words, tied to the input), and the pack is unchanged. */
    const refusesEach = async (input: ReturnType<Page['getByLabel']>, name: string) => {
      const before = JSON.stringify(await full());
      for (const [text, , says] of refused) {
        await input.fill(text);
        await poll(() => input.getAttribute('aria-invalid'), `${name} ${text}`).toBe('true');
        const note = page.locator(`[id="${await input.getAttribute('aria-describedby')}"]`);
        expect(await note.textContent(), `${name} ${text}`).toMatch(says);
        expect(await note.textContent()).toMatch(/^error: Not applied: /);
        expect(await input.inputValue()).toBe(text);
        expect(JSON.stringify(await full()), `${name} ${text}`).toBe(before);
      }
    };
    const block = (id: string) => async () => (await full()).automations[0]!.document.graph.nodes.find((n) => n.id === id)!.config;

    // A block's number field (control.wait's duration, an integer).
    await page.locator('[data-testid="node-wait"]').click();
    const duration = page.getByLabel('Duration', { exact: true });
    expect(await duration.inputValue()).toBe('1');
    await refusesEach(duration, 'duration');
    await page.screenshot({ path: join(artifacts, 'typed-number-refused.png') });
    // Ordinary numbers set as before: an exponent that round-trips, a negative number; emptied, the field goes.
    await duration.fill('2e1');
    await poll(block('wait')).toEqual({ duration: 20, unit: 'days' });
    expect(await duration.getAttribute('aria-invalid')).toBeNull();
    expect(await duration.inputValue()).toBe('2e1');
    await duration.fill('-3');
    await poll(block('wait')).toEqual({ duration: -3, unit: 'days' });
    await duration.fill('');
    await poll(block('wait')).toEqual({ unit: 'days' });
    await duration.fill('4');
    await poll(block('wait')).toEqual({ duration: 4, unit: 'days' });
    // Undo (typing into one field is one step) brings back the number the block had, into the field too.
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(block('wait')).toEqual({ duration: 1, unit: 'days' });
    await poll(() => duration.inputValue()).toBe('1');

    // The automation's daily send limit.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const limit = page.getByRole('region', { name: 'Delivery settings' }).getByLabel('Daily send limit');
    await refusesEach(limit, 'daily send limit');
    await limit.fill('250');
    await poll(async () => (await full()).automations[0]!.document.settings.daily_send_limit).toBe(250);

    // A pipeline stage's probability.
    const nav = page.getByRole('navigation', { name: 'Pack items' });
    await nav.locator('[data-item^="pipelines/"]').first().click();
    const probability = page.getByLabel('Stage 2 probability');
    await refusesEach(probability, 'probability');
    await probability.fill('35');
    await poll(async () => (await full()).pipelines[0]!.stages.map((s) => s.probability)).toEqual([10, 35, 60, 100, 0]);

    // A smart list filter condition's value; JSON there is read as the JSON fields read it.
    await nav.locator('[data-item^="smartLists/"]').first().click();
    const value = page.getByLabel('Value 1', { exact: true });
    expect(await value.inputValue()).toBe('7');
    await refusesEach(value, 'filter value');
    await value.fill('[1, 1e-400]');
    await poll(() => value.getAttribute('aria-invalid')).toBe('true');
    expect(JSON.stringify((await full()).smartLists[0]!.filters.root.children[1])).toContain('"value":7');
    await page.screenshot({ path: join(artifacts, 'typed-number-filter.png') });
    await value.fill('14');
    await poll(async () => (await full()).smartLists[0]!.filters.root.children[1]!.value).toBe(14);
    // Typed key by key, the text is the author's: "1.0" read as 1 does not turn into "1" under the cursor.
    await value.fill('');
    await value.pressSequentially('1.05');
    await poll(async () => (await full()).smartLists[0]!.filters.root.children[1]!.value).toBe(1.05);
    expect(await value.inputValue()).toBe('1.05');
    await value.fill('14');
    await poll(async () => (await full()).smartLists[0]!.filters.root.children[1]!.value).toBe(14);

    // The exported pack holds what was applied, and validates.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export pack' }).click()]);
    const written = readFileSync((await download.path())!, 'utf8');
    const exported = JSON.parse(written) as Full;
    expect(exported.pipelines[0]!.stages.map((s) => s.probability)).toEqual([10, 35, 60, 100, 0]);
    expect(exported.smartLists[0]!.filters.root.children[1]!.value).toBe(14);
    expect(exported.automations[0]!.document.settings.daily_send_limit).toBe(250);
    expect(validatePack(written).diagnostics.filter((d) => d.code.startsWith('json/'))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('lists a finding about the automation as a whole at the top of its form, not on its name field', async () => {
    const pack = noisyPack('No trigger', 1, (i) => ({ x: 0, y: i * 120 }));
    const graph = pack.automations[0]!.document.graph as { nodes: { id: string; kind: string }[]; edges: { source: string }[] };
    graph.nodes = graph.nodes.slice(1, 4);
    graph.edges = graph.edges.filter((e) => e.source !== 'n0').slice(0, 2);
    const { page, errors } = await editor.page('', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow').waitFor();
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'no-trigger.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(pack)) });
    const about = page.getByRole('list', { name: 'Findings about this form' });
    await poll(() => about.textContent()).toContain('has no trigger, so it could never start');
    expect(await about.textContent()).toContain('graph/no-trigger');
    await expect(page.getByLabel('Name').getAttribute('aria-invalid')).resolves.toBeNull();
    expect(errors).toEqual([]);
  });

  it("Fix applies core's fixes to the open pack as one undoable step: an edge written with sourceHandle then leaves through its branch", async () => {
    const pack = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
    const { handle, ...e5 } = pack.automations[0].document.graph.edges[4]; // control.if "replied" → "task" through "true"
    pack.automations[0].document.graph.edges[4] = { ...e5, sourceHandle: handle };
    const { page, errors } = await editor.page('');
    await page.locator('.react-flow').waitFor();
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'source-handle.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(pack, null, 2)) });
    const summary = page.locator('.diagnostics summary');
    const edge = page.locator('.react-flow__edge[data-id="e5"]');
    const fix = page.getByRole('button', { name: 'Fix', exact: true });
    // Unread, sourceHandle leaves the edge on "next", which control.if does not have: an error, and the info naming the field.
    await poll(() => summary.textContent()).toMatch(/^Diagnostics: 1 error, 0 warnings, 1 info/);
    expect(await page.locator('.diagnostics button[data-code="graph/unknown-field"]').getAttribute('title')).toBe(
      'Did you mean "handle"? setup-pack fix moves it there when the edge has none.',
    );
    expect(await edge.getAttribute('aria-label')).toBe('Connection replied next (not an output of this block) to task');
    // Drawn from the block's first output ("true"), it must not pass for that branch: dashed, and its label says so.
    expect(await edge.locator('.react-flow__edge-text').textContent()).toBe('next: not an output of this block');
    expect(await edge.locator('.react-flow__edge-path').evaluate((p) => getComputedStyle(p).strokeDasharray)).not.toBe('none');
    await poll(() => fix.count()).toBe(1);
    expect(await fix.getAttribute('title')).toBe(
      'What setup-pack fix would change:\nautomation "new-lead-welcome" edge "e5": sourceHandle "true" → handle',
    );
    await page.screenshot({ path: join(artifacts, 'fix-offered.png') });
    await fix.click();
    await poll(() => page.getByRole('status', { name: 'Fixed' }).textContent()).toContain(
      'automation "new-lead-welcome" edge "e5": sourceHandle "true" → handle',
    );
    await poll(() => summary.textContent()).toBe('Diagnostics: 0 errors, 0 warnings, 0 infos');
    await poll(() => edge.getAttribute('aria-label')).toBe('Connection replied true to task');
    expect(await edge.locator('.react-flow__edge-path').evaluate((p) => getComputedStyle(p).strokeDasharray)).toBe('none');
    expect((await packOf(page)).automations[0]!.document.graph.edges[4]).toEqual({
      id: 'e5',
      source: 'replied',
      handle: 'true',
      target: 'task',
    });
    expect(await fix.count()).toBe(0);
    expect(await page.locator('details.diagnostics').evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true); // the click did not fold the panel
    await page.screenshot({ path: join(artifacts, 'fixed.png') });
    // One undo puts the edge back as it was written, and the offer with it.
    await page.getByRole('button', { name: 'Undo' }).click();
    await poll(() => summary.textContent()).toMatch(/^Diagnostics: 1 error, 0 warnings, 1 info/);
    expect((await packOf(page)).automations[0]!.document.graph.edges[4]).toEqual({
      id: 'e5',
      source: 'replied',
      target: 'task',
      sourceHandle: 'true',
    });
    await poll(() => edge.getAttribute('aria-label')).toBe('Connection replied next (not an output of this block) to task');
    expect(await page.getByRole('button', { name: 'Undo' }).isDisabled()).toBe(true);
    await poll(() => fix.count()).toBe(1);
    // The report of a fix is about its pack: opening another ends it, well before its 8 seconds.
    await fix.click();
    await poll(() => page.getByRole('status', { name: 'Fixed' }).count()).toBe(1);
    await page.getByTestId('open-file').setInputFiles({
      name: 'other.json',
      mimeType: 'application/json',
      buffer: readFileSync(join(repoRoot, 'fixtures/valid/listing-marketing.json')),
    });
    await poll(() => page.locator('header .source').textContent()).toBe('other.json');
    expect(await page.getByRole('status', { name: 'Fixed' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('typing beside thousands of findings neither re-renders the finding rows, places the findings again nor hands React Flow new blocks while the findings stay the same', async () => {
    const pack = noisyPack('Typing beside findings', 10, (i) => ({ x: (i % 10) * 260, y: Math.floor(i / 10) * 120 }));
    const { page, errors } = await editor.page('');
    await page.locator('.react-flow').waitFor();
    await page
      .getByTestId('open-file')
      .setInputFiles({ name: 'typing.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(pack)) });
    const summary = page.locator('.diagnostics summary');
    await poll(() => summary.textContent()).toMatch(/0 errors, 0 warnings, 3,980 infos$/);
    type Counts = {
      findingRows: number;
      findingIndex: number;
      findingsPlaced: number;
      sidebarRows: number;
      canvasNodes: number;
      findingsReceived: number;
    };
    const counts = () => page.evaluate(() => ({ ...(window as unknown as { __editorRenders: Counts }).__editorRenders }));
    const without = ({ sidebarRows: _, ...c }: Counts) => c;
    await page.locator('.react-flow__node[data-id="n1"] .block').click();
    const note = page.getByLabel('Note *', { exact: true });
    await note.click();
    const before = await counts();
    // Every keystroke changes the pack and is validated (the panel says "checking…" until the
    // worker answers), but the findings stay the same: no row re-rendered, nothing placed again;
    // the block's summary changes, but React Flow is handed no new blocks for it. "checking…" is
    // recorded as it shows: on a busy machine the last check can be over before a poll would look.
    type Recorded = Window & { __sawChecking?: boolean };
    await page.evaluate(() => {
      const panel = document.querySelector('.diagnostics')!;
      const w = window as Recorded;
      w.__sawChecking = false;
      new MutationObserver(() => {
        if (panel.querySelector('summary')?.textContent?.includes('(checking…)')) w.__sawChecking = true;
      }).observe(panel, { subtree: true, childList: true, characterData: true });
    });
    await note.pressSequentially(' and more', { delay: 30 });
    await poll(() => page.evaluate(() => (window as Recorded).__sawChecking)).toBe(true);
    await poll(() => summary.textContent()).toMatch(/0 errors, 0 warnings, 3,980 infos$/);
    await poll(() => packOf(page).then((p) => p.automations[0]!.document.graph.nodes[1]!.config?.body)).toBe('Step 1 and more');
    const typed = await counts();
    expect(without(typed)).toEqual(without(before));
    // The field still shows its block's own findings, and the block its summary.
    await expect(page.locator('.inspector .field-findings-list').first().textContent()).resolves.toContain('legacy_color');
    await poll(() => page.locator('.react-flow__node[data-id="n1"] .block').textContent()).toContain('Step 1 and more');
    // A keystroke that changes the findings (the required note emptied: a warning) does both, once;
    // the block gets its badge, and of the sidebar's rows only the edited automation's re-renders.
    await note.fill('');
    await poll(() => summary.textContent()).toMatch(/^Diagnostics: 0 errors, 1 warning, 3,980 infos$/);
    await poll(() => page.locator('.react-flow__node[data-id="n1"] .badge.warning').count()).toBe(1);
    const after = await counts();
    expect(after.findingIndex).toBe(before.findingIndex + 1);
    // Of the 3,981 findings the worker sent the one that is new (the page kept its own objects for
    // the others), and the index placed only that one.
    expect(after.findingsReceived - before.findingsReceived).toBe(1);
    expect(after.findingsPlaced - before.findingsPlaced).toBe(1);
    expect(after.findingRows).toBeGreaterThan(before.findingRows);
    expect(after.canvasNodes).toBeGreaterThan(before.canvasNodes);
    expect(after.sidebarRows - typed.sidebarRows).toBeGreaterThan(0);
    expect(after.sidebarRows - typed.sidebarRows).toBeLessThan(5);
    expect(errors).toEqual([]);
  });

  it('reaches + Add block by Tab before any block or edge, and a selected edge looks selected', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', { viewport: { width: 1200, height: 800 } });
    await page.locator('.react-flow__node').first().waitFor();
    expect(await page.locator('.react-flow__edge[tabindex="0"]').count()).toBe(0);
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    const passed: string[] = [];
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.getAttribute('aria-label') === 'Add block'
          ? 'add'
          : el?.closest('.react-flow__edge')
            ? 'edge'
            : el?.closest('.react-flow__node')
              ? 'node'
              : 'other';
      });
      if (focused === 'add') break;
      passed.push(focused);
    }
    expect(passed.length).toBeLessThan(80);
    expect(passed.filter((f) => f !== 'other')).toEqual([]);
    // Click an edge: it is drawn in the selection colour, unlike the others.
    const edge = page.locator('.react-flow__edge').first();
    const stroke = () => edge.locator('.react-flow__edge-path').evaluate((p) => getComputedStyle(p).stroke);
    const before = await stroke();
    await edge.locator('.react-flow__edge-interaction').dispatchEvent('click');
    await poll(() => edge.getAttribute('class')).toContain('selected');
    await poll(stroke).toBe('rgb(37, 99, 235)');
    expect(before).not.toBe('rgb(37, 99, 235)');
    expect(
      await page
        .locator('.react-flow__edge:not(.selected) .react-flow__edge-path')
        .first()
        .evaluate((p) => getComputedStyle(p).stroke),
    ).toBe(before);
    await page.screenshot({ path: join(artifacts, 'selected-edge.png') });
    expect(errors).toEqual([]);
  });

  it('asks before Open… or a dropped file replaces unsaved work, and keeps the work when told no', async () => {
    const { page, dialogs, answers } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', {
      viewport: { width: 1200, height: 800 },
    });
    answers.push(false);
    const asked = () => dialogs.map((d) => d.message);
    await page.locator('[data-testid="node-start"]').waitFor();
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    await page.locator('.editor-pane [data-path="name"]').fill('My unsaved name');
    await page.getByTestId('open-file').setInputFiles(join(repoRoot, 'fixtures/valid/listing-marketing.json'));
    await poll(() => dialogs.length).toBe(1);
    expect(asked()[0]).toBe('Discard unsaved changes and open listing-marketing.json?');
    // Told no: the work is still there.
    expect(await page.locator('.toolbar .source').textContent()).toContain('buyer-lead-starter.json');
    expect(await page.locator('.editor-pane [data-path="name"]').inputValue()).toBe('My unsaved name');
    // A dropped file asks the same; told yes, it opens.
    answers.push(true);
    const text = readFileSync(join(repoRoot, 'fixtures/valid/listing-marketing.json'), 'utf8');
    await page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'dropped.json', { type: 'application/json' }));
      document.querySelector('.app')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }, text);
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('dropped.json');
    expect(asked()).toEqual(['Discard unsaved changes and open listing-marketing.json?', 'Discard unsaved changes and open dropped.json?']);
  });

  it('a block added from the palette lands in view, selected', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/valid/buyer-lead-starter.json', { viewport: { width: 1200, height: 800 } });
    await page.locator('[data-testid="node-start"]').waitFor();
    for (const [i, kind] of ['add tag', 'add note', 'notify'].entries()) {
      await page.getByRole('button', { name: 'Add block' }).click();
      await page.getByLabel('Search blocks').fill(kind);
      await page.keyboard.press('Enter');
      const id = ['add_tag', 'add_note', 'notify'][i];
      const node = page.locator(`.react-flow__node[data-id="${id}"]`);
      await node.waitFor();
      await poll(() => node.getAttribute('class')).toContain('selected');
      const canvas = (await page.locator('.react-flow').boundingBox())!;
      await poll(async () => {
        const b = (await node.boundingBox())!;
        const inside =
          b.x >= canvas.x && b.y >= canvas.y && b.x + b.width <= canvas.x + canvas.width && b.y + b.height <= canvas.y + canvas.height;
        return inside;
      }).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it('draws two edges that share an id as the pack has them, and Delete removes only the one selected', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/invalid/graph-duplicate-edge-id.json');
    const consoleErrors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    await page.locator('[data-testid="node-start"]').waitFor();
    // Both e2s are drawn: tag → sms and sms → wait (the second is no copy of the first).
    const labels = () => page.locator('.react-flow__edge').evaluateAll((es) => es.map((e) => e.getAttribute('aria-label')).sort());
    await poll(labels).toEqual(
      [
        'Connection replied false to email',
        'Connection replied true to task',
        'Connection sms next to wait',
        'Connection start next to tag',
        'Connection tag next to sms',
        'Connection wait next to replied',
      ].sort(),
    );
    const edgesOf = async () =>
      (await packOf(page)).automations[0]!.document.graph.edges.map((e) => `${(e as { id?: string }).id}:${e.source}->${e.target}`);
    await page.locator('.react-flow__edge[aria-label="Connection tag next to sms"] .react-flow__edge-interaction').dispatchEvent('click');
    await poll(() => page.locator('.react-flow__edge.selected').getAttribute('aria-label')).toBe('Connection tag next to sms');
    await page.keyboard.press('Delete');
    // Only that edge is gone; the other e2 keeps its id.
    await poll(edgesOf).toEqual(['e1:start->tag', 'e2:sms->wait', 'e4:wait->replied', 'e5:replied->task', 'e6:replied->email']);
    await poll(labels).not.toContain('Connection tag next to sms');
    expect(await labels()).toContain('Connection sms next to wait');
    expect(consoleErrors.filter((m) => /same key/.test(m))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('draws two blocks that share an id, and selecting, moving, editing or deleting one never changes the other', async () => {
    const { page, errors } = await editor.page('?pack=/fixtures/invalid/graph-duplicate-node-id.json');
    const consoleErrors: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && consoleErrors.push(m.text())));
    await page.locator('[data-testid="node-start"]').waitFor();
    type N = { id: string; kind: string; config?: Record<string, unknown>; position?: { x: number; y: number } };
    const nodes = async () => (await packOf(page)).automations[0]!.document.graph.nodes as N[];
    const original = await nodes();
    // Both "task" blocks are on the canvas: the task and the email.
    await poll(() => page.locator('.react-flow__node').count()).toBe(7);
    const email = page.locator('.react-flow__node', { hasText: 'Send email' });
    const task = page.locator('.react-flow__node', { hasText: 'Create task' });
    expect(await email.count()).toBe(1);
    expect(await task.count()).toBe(1);
    // Select the second "task" (the email): the inspector shows it, not the first.
    await email.locator('.label').click();
    await poll(() => page.locator('.inspector h2').first().textContent()).toBe('Send email');
    // Nudge it: only its position changes.
    await page.keyboard.press('Shift+ArrowRight');
    await poll(async () => (await nodes())[6]!.position).toEqual({ x: original[6]!.position!.x + 10, y: original[6]!.position!.y });
    expect((await nodes())[5]).toEqual(original[5]);
    // Edit its config (raw JSON, under Advanced): only its config changes.
    await page.locator('.inspector summary', { hasText: 'Advanced' }).click();
    await page.locator('.inspector [data-path="config/~other"]').fill('{"mark": 1}');
    await page.locator('.inspector [data-path="config/~other"]').blur();
    await poll(async () => (await nodes())[6]!.config).toEqual({ ...original[6]!.config, mark: 1 });
    expect((await nodes())[5]).toEqual(original[5]);
    // Delete it: the first "task" and the edges into it stay.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await email.locator('.label').click();
    await page.keyboard.press('Delete');
    await poll(async () => (await nodes()).map((n) => n.kind)).toEqual(original.slice(0, 6).map((n) => n.kind));
    expect((await nodes())[5]).toEqual(original[5]);
    expect((await packOf(page)).automations[0]!.document.graph.edges).toHaveLength(6);
    // Deleting the first "task" instead takes its edges with it and leaves the email.
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
    await poll(nodes).toEqual(original);
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await task.locator('.label').click();
    await page.keyboard.press('Delete');
    await poll(async () => (await nodes()).map((n) => n.kind)).toEqual([...original.slice(0, 5), original[6]!].map((n) => n.kind));
    expect((await nodes())[5]).toEqual(original[6]);
    expect((await packOf(page)).automations[0]!.document.graph.edges.map((e) => e.target)).toEqual(['tag', 'sms', 'wait', 'replied']);
    expect(consoleErrors.filter((m) => /same key/.test(m))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('stores an undone edit as clean at once, by Ctrl+Z as by the toolbar, and leaving right after it does not bring the edit back', async () => {
    type Win = { __drafts: { load(): Promise<{ dirty: boolean } | undefined> } };
    const stored = (page: Page) => page.evaluate(async () => (await (window as unknown as Win).__drafts.load())?.dirty);
    for (const how of ['keyboard', 'toolbar'] as const) {
      const { context, page, errors } = await editor.page('?pack=/fixtures/valid/listing-marketing.json');
      await page.locator('.react-flow__node', { hasText: 'Add note' }).locator('.label').click();
      await page.keyboard.press('Delete');
      await poll(() => stored(page)).toBe(true);
      if (how === 'keyboard') await page.keyboard.press('Control+z');
      else await page.getByRole('button', { name: 'Undo' }).click();
      await poll(() => page.title()).not.toMatch(/^●/);
      // Promptly: well before the 2 s the browser may wait for an idle moment.
      await expect.poll(() => stored(page), { timeout: 1500, interval: 50 }).toBe(false);
      expect(errors).toEqual([]);
      await context.close();
    }
    // Undo, then leave at once (before any pause): the other pack opens, no "unsaved work" comes back.
    const { page, errors } = await editor.page('?pack=/fixtures/valid/listing-marketing.json');
    await page.locator('.react-flow__node', { hasText: 'Add note' }).locator('.label').click();
    await page.keyboard.press('Delete');
    await poll(() => stored(page)).toBe(true);
    await page.keyboard.press('Control+z');
    await poll(() => page.title()).not.toMatch(/^●/);
    await page.goto(`${editor.url}/?pack=/fixtures/valid/buyer-lead-starter.json`);
    await poll(() => page.locator('.toolbar .source').textContent()).toBe('/fixtures/valid/buyer-lead-starter.json');
    expect(await page.locator('.banner').count()).toBe(0);
    expect(await page.title()).toBe('Buyer Lead Starter — Setup Pack editor');
    expect(errors).toEqual([]);
  });

  it("opens a pack VS Code hands over at an address of its own (the extension's Open in Setup Pack editor)", async () => {
    // The extension's own hand-off: another origin than the editor's, as in VS Code.
    const handOff = new HandOff();
    try {
      const text = readFileSync(join(repoRoot, 'fixtures/valid/listing-marketing.json'), 'utf8');
      const url = await handOff.offer('listing-marketing.json', text);
      const { page, errors } = await editor.page(new URL(editorAddress(`${editor.url}/`, url)).search);
      await page.locator('.react-flow__node').first().waitFor();
      await poll(() => page.locator('.source .address').textContent()).toBe(url);
      expect((await packOf(page)).name).toBe((JSON.parse(text) as { name: string }).name);
      expect(errors).toEqual([]);
    } finally {
      await handOff.close();
    }
  });
});
