// Block cards and forms in headless Chromium, as an author reads them: summaries in words (no raw
// JSON), references by name and as links to the item, branch names that never run into the
// summary or each other at any zoom, and each finding shown on the field it is about.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { repoRoot } from './support/harness.mjs';
import { artifacts, poll, useEditor } from './support/editor.js';

const editor = useEditor('editor block cards');

const starter = () => JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Every branch name of a block: clear of the summary and of each other, centred on its handle. */
async function expectBranchNamesClear(block: Locator) {
  const summary = (await block.locator('.summary').boundingBox())!;
  const names = await block.locator('.handle-labels span').all();
  expect(names.length).toBeGreaterThan(1);
  const boxes: Box[] = [];
  for (const [i, name] of names.entries()) {
    const box = (await name.boundingBox())!;
    expect(overlap(box, summary), `branch name ${i} runs into the summary`).toBe(false);
    for (const [j, other] of boxes.entries()) expect(overlap(box, other), `branch names ${j} and ${i} overlap`).toBe(false);
    boxes.push(box);
    const handle = (await block.locator('.react-flow__handle.source').nth(i).boundingBox())!;
    expect(Math.abs(box.x + box.width / 2 - (handle.x + handle.width / 2))).toBeLessThan(3);
  }
}

/** The text of the note a control points at with aria-describedby. */
const described = (control: Locator) =>
  control.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/** Whether `control` has the focus. */
const focused = (control: Locator) => control.evaluate((el) => el === document.activeElement);

/** How the browser draws the focus on `control`: whether it counts as shown (:focus-visible) and its computed outline. */
const focusRing = (control: Locator) =>
  control.evaluate((el) => {
    const s = getComputedStyle(el);
    return { visible: el.matches(':focus-visible'), outline: s.outlineStyle === 'none' ? 'none' : `${s.outlineStyle} ${s.outlineWidth}` };
  });

describe.skipIf(editor.missing)(editor.title, () => {
  it('says controls in words and references by name, as links to the item', async () => {
    const { page, errors } = await editor.open();
    const node = (name: string) => page.getByRole('group', { name });

    // Controls are sentences; no block shows JSON.
    await node('If / else block replied').getByText('If last reply at is set', { exact: true }).waitFor();
    await node('Wait block wait').getByText('Wait 1 day', { exact: true }).waitFor();
    for (const text of await page.locator('.block .summary').allTextContents()) expect(text).not.toMatch(/[{}"]/);
    // References by the name of the pack item they resolve to, as links; an id outside the pack by
    // the name the automation's references give it.
    await node('Add tag block tag').getByText('Tag: Buyer lead', { exact: true }).waitFor();
    await node('Create task block task')
      .getByText(/Assignee: Jordan Lee/)
      .waitFor();
    expect(await node('Create task block task').getByRole('link').count()).toBe(0);

    const first = (await node('Contact created block start').boundingBox())!;
    const last = (await node('Send email block email').boundingBox())!;
    await page.screenshot({
      path: join(artifacts, 'block-cards.png'),
      clip: { x: first.x - 190, y: first.y - 10, width: 600, height: last.y + last.height - first.y + 20 },
    });

    // The link opens the template; renaming it renames it on the canvas.
    await node('Send SMS block sms').getByRole('link', { name: 'Welcome text' }).click();
    await page.getByRole('heading', { name: 'Message template', exact: true }).waitFor();
    const name = page.locator('.editor-pane').getByLabel('Name', { exact: true });
    expect(await name.inputValue()).toBe('Welcome text');
    await name.fill('Welcome SMS');
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/new-lead-welcome"]').click();
    await poll(() => node('Send SMS block sms').getByRole('link').textContent()).toBe('Welcome SMS');

    // The inspector says the same by name, with a link a keyboard reaches.
    await node('Add tag block tag').click();
    const toTag = page.getByRole('complementary', { name: 'Inspector' }).getByRole('button', { name: 'Open tag Buyer lead' });
    await toTag.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Resource', exact: true }).waitFor();
    expect(await page.locator('.editor-pane').getByLabel('Name', { exact: true }).inputValue()).toBe('Buyer lead');

    // A deal stage opens its pipeline, scrolled to the stage's row.
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/nurture-by-stage"]').click();
    await node('Create deal block deal')
      .getByText('Pipeline: Buyers · Stage: Showing homes · Name: Buyer search', { exact: true })
      .waitFor();
    await node('Create deal block deal').getByRole('link', { name: 'Showing homes' }).click();
    await page.getByRole('heading', { name: 'Pipeline', exact: true }).waitFor();
    expect(await page.getByLabel('Stage 2 name').inputValue()).toBe('Showing homes');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stage 2 name');
    await page.screenshot({ path: join(artifacts, 'reference-link.png') });

    // A smart list says its filter in the same words, with the same links (reached with Tab here).
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="smartLists/new-buyer-leads"]').click();
    await page.getByText('Matches when contact has tag Buyer lead and created at is within the last 7 days', { exact: true }).waitFor();
    const link = page.locator('.editor-pane').getByRole('link', { name: 'Buyer lead' });
    expect(await link.getAttribute('tabindex')).toBeNull();
    await link.click();
    await page.getByRole('heading', { name: 'Resource', exact: true }).waitFor();
    expect(errors).toEqual([]);
  });

  it('keeps branch names clear of the summary and of each other, at every zoom', async () => {
    const { page, errors } = await editor.open();
    const replied = page.getByRole('group', { name: 'If / else block replied' });
    expect(await replied.locator('.handle-labels span').allTextContents()).toEqual(['true', 'false']);
    await expectBranchNamesClear(replied);

    // Five outcomes, some long, on an AI branch: each name is cut to its share of the block.
    const pack = starter();
    const ai = pack.automations[1].document.graph.nodes.find((n: { id: string }) => n.id === 'ai');
    ai.config.outcomes = ['ready_to_tour_this_week', 'later', 'not_interested', 'wants_a_call_back', 'x'];
    await page.evaluate(
      (t) => (window as unknown as { __openPackText: (t: string, s: string) => void }).__openPackText(t, 'outcomes.json'),
      JSON.stringify(pack),
    );
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="automations/nurture-by-stage"]').click();
    const block = page.getByRole('group', { name: 'AI branch block ai' });
    await poll(() => block.locator('.handle-labels span').count()).toBe(5);
    await expectBranchNamesClear(block);
    expect(await block.locator('.handle-labels span').first().getAttribute('title')).toBe('ready_to_tour_this_week');
    for (const zoom of ['Zoom out', 'Zoom out', 'Zoom out', 'Zoom in', 'Zoom in', 'Zoom in', 'Zoom in', 'Zoom in']) {
      await page.getByRole('button', { name: zoom }).click();
      await page.waitForTimeout(120);
      await expectBranchNamesClear(block);
    }
    await page.screenshot({ path: join(artifacts, 'branch-names.png') });
    expect(errors).toEqual([]);
  });

  it('shows each finding on the field it is about, marked for assistive technology, and a click on the finding focuses that field', async () => {
    const { page, errors } = await editor.open();
    const inspector = page.getByRole('complementary', { name: 'Inspector' });

    // A block missing a required field: core's warning points at its config, shown on its first field.
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    const tagField = inspector.getByLabel('Tag *');
    await tagField.fill('');
    await poll(() => described(tagField)).toContain('has no config.tag_id (Tag)');
    await page.getByRole('group', { name: 'Add tag block tag' }).getByLabel('1 warning', { exact: true }).waitFor();
    expect(await tagField.getAttribute('aria-invalid')).toBeNull(); // a warning, not an error
    // An unknown config key goes to the raw JSON field that edits it, under Advanced: closed while
    // the block has none, as here.
    const other = inspector.getByLabel('Other config fields (JSON)');
    expect(await other.isVisible()).toBe(false);
    await inspector.locator('summary', { hasText: 'Advanced' }).click();
    await other.fill('{"colour": "red"}');
    await poll(() => described(other)).toContain('config.colour of action.add_tag node "tag" is not in our catalog');
    // Fixing it takes the note away.
    await tagField.fill('tag-hot');
    await poll(() => tagField.getAttribute('aria-describedby')).toBeNull();

    // An error on the pack's name: the field is invalid and says why.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    const packName = page.locator('.editor-pane').getByLabel('Name', { exact: true });
    await packName.fill('');
    await poll(() => packName.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('navigation', { name: 'Pack items' }).getByLabel('1 error', { exact: true }).waitFor();
    expect(await described(packName)).toContain('name must have at least 1 character');

    // A duplicate stage key, on that stage's key and nowhere else in the table.
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="pipelines/buyer-pipeline"]').click();
    const key2 = page.getByLabel('Stage 2 key');
    await key2.fill('new');
    await poll(() => key2.getAttribute('aria-invalid')).toBe('true');
    expect(await described(key2)).toContain('already used by stage 0');
    expect(await page.getByLabel('Stage 1 key').getAttribute('aria-invalid')).toBeNull();
    await page.screenshot({ path: join(artifacts, 'field-errors.png') });

    // The findings panel's row for it focuses the same field.
    await page.getByLabel('Stage 3 name').focus();
    await page
      .locator('.diagnostics')
      .getByText(/already used by stage 0/)
      .click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Stage 2 key');
    expect(errors).toEqual([]);
  });
  it('selects and centres the edge a clicked finding is about, so Delete removes the duplicate it names', async () => {
    const { page, errors } = await editor.open('?pack=/fixtures/invalid/graph-duplicate-edge.json');
    await page.locator('[data-testid="node-wait"]').click();
    // Somewhere else on the canvas: the finding must bring the edge into view, not just select it.
    await page.locator('.react-flow__pane').hover({ position: { x: 300, y: 300 } });
    await page.mouse.wheel(0, 1500);
    await page.locator('.diagnostics button[data-code="graph/duplicate-edge"]').click();
    const edge = page.getByTestId('rf__edge-e2b');
    await poll(() => edge.getAttribute('class')).toContain('selected');
    expect(await page.locator('.react-flow__node.selected').count()).toBe(0);
    expect(await page.locator('.react-flow__edge.selected').count()).toBe(1);
    const canvas = (await page.locator('.react-flow').boundingBox())!;
    await poll(async () => {
      const box = await edge.boundingBox();
      return (
        !!box &&
        box.y > canvas.y &&
        box.y + box.height < canvas.y + canvas.height &&
        box.x > canvas.x &&
        box.x + box.width < canvas.x + canvas.width
      );
    }).toBe(true);
    await page.screenshot({ path: join(artifacts, 'finding-edge.png') });
    await page.keyboard.press('Delete');
    await poll(() => page.getByTestId('rf__edge-e2b').count()).toBe(0);
    await poll(() => page.locator('.diagnostics button[data-code="graph/duplicate-edge"]').count()).toBe(0);
    expect(await page.getByTestId('rf__edge-e2').count()).toBe(1);
    expect(errors).toEqual([]);
  });
  it('a clicked finding about a group of controls (the send days) focuses a control of that group, beside its note', async () => {
    const { page, errors } = await editor.open('?pack=/fixtures/invalid/settings-duplicate-day.json');
    await page.locator('.diagnostics button[data-code="settings/duplicate-day"]').click();
    const days = page.getByRole('group', { name: 'Send days' });
    await poll(() => days.evaluate((g) => g.contains(document.activeElement) && document.activeElement instanceof HTMLInputElement)).toBe(
      true,
    );
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('checkbox');
    expect(
      await page
        .getByRole('complementary', { name: 'Inspector' })
        .getByText(/lists Tuesday \(2\) twice/)
        .isVisible(),
    ).toBe(true);
    expect(errors).toEqual([]);
  });

  it('draws the focus ring on a button or checkbox a clicked finding focuses, as on a field', async () => {
    // Clicked with the mouse: the browser draws no ring on a button or checkbox focused by script
    // after a click unless asked to, and the author would not see where the finding went.
    for (const [fixture, code, control] of [
      ['schema-too-few', 'schema/too-few', (p: Page) => p.locator('.editor-pane').getByRole('button', { name: 'Add stage' })],
      [
        'settings-duplicate-day',
        'settings/duplicate-day',
        (p: Page) => p.getByRole('group', { name: 'Send days' }).getByRole('checkbox').first(),
      ],
    ] as const) {
      const { page, errors } = await editor.open(`?pack=/fixtures/invalid/${fixture}.json`);
      await page.locator(`.diagnostics button[data-code="${code}"]`).click();
      await poll(() => focused(control(page)), `${code} focuses its control`).toBe(true);
      const ring = await focusRing(control(page));
      expect(ring.visible, `${code}: the focus is shown`).toBe(true);
      expect(ring.outline, `${code}: the focused control has an outline`).not.toBe('none');
      await page.screenshot({ path: join(artifacts, `finding-focus-ring-${fixture}.png`) });
      expect(errors).toEqual([]);
    }
  });

  it("a clicked finding about an asset's byteSize or sha256 opens the asset and focuses the control showing it, beside its note", async () => {
    for (const [fixture, code, label] of [
      ['asset-size-mismatch', 'asset/size-mismatch', 'Byte size'],
      ['asset-sha256-mismatch', 'asset/sha256-mismatch', 'SHA-256'],
    ] as const) {
      const { page, errors } = await editor.open(`?pack=/fixtures/invalid/${fixture}.json`);
      await page.locator(`.diagnostics button[data-code="${code}"]`).click();
      const field = page.locator('.editor-pane').getByLabel(label, { exact: true });
      await poll(() => focused(field), `${code} focuses ${label}`).toBe(true);
      expect(await page.locator('.editor-pane h2').textContent()).toBe('Asset');
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect(await described(field)).toContain(code);
      if (code === 'asset/size-mismatch') await page.screenshot({ path: join(artifacts, 'finding-asset-size.png') });
      expect(errors).toEqual([]);
    }
  });

  it("a clicked schema finding no ordinary field shows (a block's kind, the pack's format, too few stages) selects the item and focuses its nearest control, where it can be fixed", async () => {
    // A block's kind outside the schema's enum: the block is selected and its kind selector focused.
    {
      const { page, errors } = await editor.open('?pack=/fixtures/invalid/schema-enum.json');
      await page.locator('.diagnostics button[data-code="schema/enum"]').click();
      await poll(() => page.locator('.react-flow__node.selected').getAttribute('data-id')).toBe('tag');
      const kind = page.getByRole('complementary', { name: 'Inspector' }).getByLabel('Kind', { exact: true });
      await poll(() => focused(kind)).toBe(true);
      expect(await kind.getAttribute('aria-invalid')).toBe('true');
      expect(await described(kind)).toContain('Did you mean "action.add_tag"?');
      await page.screenshot({ path: join(artifacts, 'finding-kind.png') });
      await kind.selectOption('action.add_tag');
      await poll(() => page.locator('.diagnostics button[data-code="schema/enum"]').count()).toBe(0);
      expect(await page.locator('[data-testid="node-tag"]').textContent()).toContain('Add tag');
      expect(errors).toEqual([]);
    }
    // The pack's format, not its const: the pack's fields, the format selector focused.
    {
      const { page, errors } = await editor.open('?pack=/fixtures/invalid/schema-const.json');
      await page.locator('.diagnostics button[data-code="schema/const"]').click();
      const format = page.locator('.editor-pane').getByLabel('Format', { exact: true });
      await poll(() => focused(format)).toBe(true);
      expect(await format.getAttribute('aria-invalid')).toBe('true');
      expect(await described(format)).toContain('format must be "service.setup-pack"');
      await format.selectOption('service.setup-pack');
      await poll(() => page.locator('.diagnostics button[data-code="schema/const"]').count()).toBe(0);
      expect(errors).toEqual([]);
    }
    // A pipeline with no stages: its stage list's Add stage button, beside the note; Enter adds one.
    {
      const { page, errors } = await editor.open('?pack=/fixtures/invalid/schema-too-few.json');
      await page.locator('.diagnostics button[data-code="schema/too-few"]').click();
      const add = page.locator('.editor-pane').getByRole('button', { name: 'Add stage' });
      await poll(() => focused(add)).toBe(true);
      expect(await described(add)).toContain('stages must have at least 1 item');
      await page.screenshot({ path: join(artifacts, 'finding-stages.png') });
      await page.keyboard.press('Enter');
      await poll(() => page.locator('.diagnostics button[data-code="schema/too-few"]').count()).toBe(0);
      expect(await page.getByLabel('Stage 1 key').count()).toBe(1);
      expect(errors).toEqual([]);
    }
  });
});
