// What a pack will do, in headless Chromium: a pack whose automations start one another in a loop
// (fixtures/invalid/flow-cascade-loop.json). The loop finding shows on the blocks on it and in the
// diagnostics; the Flow map draws every automation and marks the loop; the Simulate panel gives
// the timeline, names the loop, and a step opens its automation with the block selected.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { artifacts, poll, useEditor } from './support/editor.js';

const editor = useEditor('editor behaviour views');
const LOOP = '?pack=/fixtures/invalid/flow-cascade-loop.json';

describe.skipIf(editor.missing)(editor.title, () => {
  it("shows the loop on its blocks, on the Flow map and in the Simulate panel's timeline", async () => {
    const { page, errors } = await editor.open(LOOP);
    // The finding is listed, and on the block it is placed at once its automation is open.
    await poll(() => page.locator('.diagnostics').textContent()).toContain('flow/cascade-loop');
    await page
      .locator('.diagnostics')
      .getByText(/Automations start one another in a loop/)
      .first()
      .click();
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(1);
    expect(
      await page.locator('.react-flow__node.selected .badge.error, .react-flow__node.selected [class*="error"]').count(),
    ).toBeGreaterThan(0);

    // The Flow map: three automations, the two on the loop marked, the starts between them labelled.
    await page.getByRole('button', { name: 'Flow map' }).click();
    await poll(() => page.getByTestId('flow-map-summary').textContent()).toMatch(
      /^3 automations, 3 starts between them; 2 on a loop \(red\)/,
    );
    expect(await page.locator('.react-flow__node.loop').count()).toBe(2);
    expect(await page.locator('.react-flow__edge.loop').count()).toBe(2);
    await page.getByText('adds tag Warm').first().waitFor();
    await page.screenshot({ path: join(artifacts, 'flow-map.png') });
    // A node opens its automation.
    await page.locator('.react-flow__node').filter({ hasText: 'Warm lead' }).click();
    await poll(() => page.locator('.sidebar [aria-current="true"], .sidebar .selected').first().textContent()).toContain('Warm lead');

    // The Simulate panel: a new contact goes round the loop; the timeline says so.
    await page.getByRole('button', { name: 'Simulate' }).click();
    const panel = page.getByRole('region', { name: 'Simulate' });
    await panel.getByRole('textbox', { name: /When the event happens/ }).fill('2026-12-04T18:45:00-05:00');
    await panel.getByRole('textbox', { name: 'Time zone' }).fill('America/New_York');
    await poll(() => panel.getByTestId('simulate-loop').textContent()).toMatch(
      /"Warm lead" → "Hot lead" → "Warm lead" repeats every moment/,
    );
    expect(await panel.locator('.timeline li.message').count()).toBe(2);
    await page.screenshot({ path: join(artifacts, 'simulate-panel.png') });
    // The contact's reply: one that does not read says which field, and so does one before the event.
    const reply = panel.getByRole('textbox', { name: /When the contact replies/ });
    await reply.fill('tonight');
    await poll(() => panel.getByRole('alert').first().textContent()).toContain('replyAt: "tonight" is not an RFC 3339 date and time');
    await reply.fill('2026-12-04T18:00:00-05:00');
    await poll(() => panel.getByRole('alert').first().textContent()).toContain(
      'replyAt: the reply (2026-12-04T18:00:00-05:00) comes before the event',
    );
    await reply.fill('');
    await poll(() => panel.getByTestId('simulate-loop').count()).toBe(1);
    // A step opens its automation with the block selected.
    await panel
      .getByRole('button', { name: /Hot lead › mail/ })
      .first()
      .click();
    await poll(() => page.locator('.react-flow__node.selected').count()).toBe(1);
    expect(await page.locator('.react-flow__node.selected').textContent()).toMatch(/Send email/);
    expect(errors).toEqual([]);
  });

  it('shows each path of a forked timeline apart, picked by its choices', async () => {
    const { page, errors } = await editor.open('?pack=/fixtures/valid/buyer-lead-starter.json');
    await page.getByRole('button', { name: 'Simulate' }).click();
    const panel = page.getByRole('region', { name: 'Simulate' });
    await panel.getByRole('textbox', { name: /When the event happens/ }).fill('2026-10-30T18:45:00-04:00');
    await panel.getByRole('textbox', { name: 'Time zone' }).fill('America/New_York');
    await panel.getByRole('combobox', { name: 'Event', exact: true }).selectOption('stage_changed');
    await panel.getByRole('combobox', { name: 'Event subject' }).selectOption('stage-nurture');
    // The AI branch cannot be decided for the sample contact: two paths, the first shown.
    const paths = panel.getByRole('group', { name: 'Paths' });
    await poll(() => paths.getByRole('button').count()).toBe(2);
    expect(await paths.getByRole('button', { name: 'Path 1' }).getAttribute('aria-pressed')).toBe('true');
    expect(await panel.getByTestId('simulate-choices').textContent()).toContain('Path 1: AI in "ai" of "Stage nurture" chooses ready.');
    expect(await panel.locator('.timeline li').allTextContents()).toEqual([
      expect.stringContaining('"Stage nurture" starts'),
      expect.stringContaining('the timeline forks (ready, later)'),
      expect.stringContaining('Create deal'),
    ]);
    // The fork's step links to the other path, which has its own last step.
    await panel.getByRole('button', { name: '→ later: path 2' }).click();
    await poll(() => paths.getByRole('button', { name: 'Path 2' }).getAttribute('aria-pressed')).toBe('true');
    await poll(() => panel.locator('.timeline li').last().textContent()).toContain('Add note');
    expect(await panel.getByRole('status').textContent()).toContain('on 2 paths');
    await page.screenshot({ path: join(artifacts, 'simulate-paths.png') });
    expect(errors).toEqual([]);
  });

  it('opened only to compare two releases, "Back to editor" edits the new release, not an empty pack', async () => {
    const { page } = await editor.page('?old=/fixtures/releases/buyer-lead-1.0.0.json&new=/fixtures/releases/buyer-lead-1.1.0.json');
    await page.getByRole('list', { name: 'Item changes' }).waitFor();
    await page.getByRole('button', { name: 'Back to editor' }).click();
    await poll(() => page.locator('.source .address').textContent()).toBe('/fixtures/releases/buyer-lead-1.1.0.json');
    await poll(() => page.locator('.sidebar').textContent()).toContain('Deal won thank-you');
  });
});
