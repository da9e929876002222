// Item forms in headless Chromium, as an author types into them: a refused value stays with the
// row it was typed into when rows before it are removed or moved, a refusal names the field as
// the diagnostics panel names it, and a number of a type the schema does not allow is refused.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { count, maxLengthOf, numberLimitsOf, RESOURCE_KINDS, SCHEMA_VERSIONS } from '@setup-pack/core';
import { artifacts, openFileText, packOf as packAs, poll, useEditor } from './support/editor.js';

const editor = useEditor('editor item forms');

type Full = {
  automations: { document: { settings: Record<string, unknown>; graph: { nodes: { id: string; config: Record<string, unknown> }[] } } }[];
  pipelines: { stages: { key: string; probability?: unknown }[] }[];
  smartLists: { filters: { root: { children: { field?: string; value?: unknown }[] } } }[];
  messageTemplates: { channel: string; subject?: string }[];
};
const packOf = (page: Page) => packAs<Full>(page);
/** The note a control's aria-describedby points at. */
const noteOf = async (page: Page, input: Locator) => page.locator(`[id="${await input.getAttribute('aria-describedby')}"]`).textContent();
const openItem = (page: Page, prefix: string) =>
  page.getByRole('navigation', { name: 'Pack items' }).locator(`[data-item^="${prefix}"]`).first().click();

describe.skipIf(editor.missing)(editor.title, () => {
  it('keeps a refused filter value with its condition when an earlier condition is removed, never on the next one', async () => {
    const { page, errors } = await editor.open();
    await openItem(page, 'smartLists/');
    // Two new conditions after the fixture's two, both with an empty value.
    const add = page.getByRole('group', { name: 'Filter group root' }).getByRole('button', { name: '+ Condition' }).first();
    await add.click();
    await add.click();
    await poll(async () => (await packOf(page)).smartLists[0]!.filters.root.children.length).toBe(4);
    await page.getByLabel('Field 2', { exact: true }).fill('first_new');
    await page.getByLabel('Field 3', { exact: true }).fill('second_new');
    // A refused value in condition 2 (it stays typed, the pack keeps '').
    const third = page.getByLabel('Value 2', { exact: true });
    await third.fill('1e-400');
    await poll(() => third.getAttribute('aria-invalid')).toBe('true');
    // Remove the first condition: condition "first_new" is now condition 1, and its text goes with it.
    await page.getByRole('button', { name: 'Remove condition 0' }).click();
    await poll(async () => (await packOf(page)).smartLists[0]!.filters.root.children.map((c) => c.field)).toEqual([
      'created_at',
      'first_new',
      'second_new',
    ]);
    await poll(() => page.getByLabel('Field 1', { exact: true }).inputValue()).toBe('first_new');
    const moved = page.getByLabel('Value 1', { exact: true });
    expect(await moved.inputValue()).toBe('1e-400');
    expect(await moved.getAttribute('aria-invalid')).toBe('true');
    // The next condition shows its own value, not the refused text, and is not marked.
    const next = page.getByLabel('Value 2', { exact: true });
    expect(await next.inputValue()).toBe('');
    expect(await next.getAttribute('aria-invalid')).toBeNull();
    // Removing the condition holding the refused text takes the text with it.
    await page.getByRole('button', { name: 'Remove condition 1' }).click();
    await poll(() => page.getByLabel('Field 1', { exact: true }).inputValue()).toBe('second_new');
    expect(await page.getByLabel('Value 1', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Value 1', { exact: true }).getAttribute('aria-invalid')).toBeNull();
    await page.screenshot({ path: join(artifacts, 'filter-rows-keyed.png') });
    expect(errors).toEqual([]);
  });

  it("shows a finding about one filter condition on that condition's row, beside its value box, not under the whole filter", async () => {
    const { page, errors } = await editor.open();
    // Condition 0 has a field that is not a string (filters/unrecognized, about the condition);
    // condition 1's value is a number the editor reads as 0 (json/number-precision, about the value).
    const original = await (await page.request.get(`${editor.url}/fixtures/valid/buyer-lead-starter.json`)).text();
    const text = original.replace('"field": "tags"', '"field": 5').replace('"value": 7', '"value": 1e-400');
    expect(text).not.toBe(original);
    await openFileText(page, 'conditions.json', text);
    await openItem(page, 'smartLists/');
    const value = page.getByLabel('Value 1', { exact: true });
    await poll(() => value.getAttribute('aria-describedby')).not.toBeNull();
    expect(await noteOf(page, value)).toMatch(/smartLists\[0\]\.filters\.root\.children\[1\]\.value is the number 1e-400, closer to 0/);
    const first = page.getByRole('group', { name: 'Condition 0', exact: true });
    expect(await first.locator('.field-findings-list').textContent()).toContain(
      'A filter condition has a "field" and an "operator" (strings).',
    );
    expect(await page.getByRole('group', { name: 'Condition 1', exact: true }).locator('.field-findings-list').textContent()).not.toContain(
      'A filter condition has',
    );
    // Nothing is left under the whole filter.
    expect(await page.locator('[data-path="filters"] > .field-findings-list').count()).toBe(0);
    // Clicking the value's finding in the panel focuses that value box.
    await page
      .getByRole('list', { name: 'Findings' })
      .getByRole('button', { name: /children\[1\]\.value is the number 1e-400/ })
      .click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Value 1');
    await page.screenshot({ path: join(artifacts, 'filter-condition-findings.png') });
    expect(errors).toEqual([]);
  });

  it("shows a finding about a condition's field or operator on that control, and a click on it in the panel focuses it", async () => {
    const { page, errors } = await editor.open();
    // Condition 0 writes its field twice, condition 1 its operator (json/duplicate-key, at .../field and .../operator).
    const original = await (await page.request.get(`${editor.url}/fixtures/valid/buyer-lead-starter.json`)).text();
    const text = original
      .replace('"field": "tags",', '"field": "tags", "field": "tags",')
      .replace('"operator": "within_last_days",', '"operator": "within_last_days", "operator": "within_last_days",');
    expect(text).not.toBe(original);
    await openFileText(page, 'twice.json', text);
    await openItem(page, 'smartLists/');
    const field = page.getByLabel('Field 0', { exact: true });
    const operator = page.getByLabel('Operator 1', { exact: true });
    await poll(() => field.getAttribute('aria-describedby')).not.toBeNull();
    expect(await noteOf(page, field)).toContain('The property "field" appears more than once');
    await poll(() => operator.getAttribute('aria-describedby')).not.toBeNull();
    expect(await noteOf(page, operator)).toContain('The property "operator" appears more than once');
    // Not on the rows as well, nor on the other controls.
    expect(await page.getByRole('group', { name: 'Condition 0', exact: true }).locator(':scope > .field-findings-list').count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Condition 1', exact: true }).locator(':scope > .field-findings-list').count()).toBe(0);
    expect(await page.getByLabel('Operator 0', { exact: true }).getAttribute('aria-describedby')).toBeNull();
    expect(await page.getByLabel('Field 1', { exact: true }).getAttribute('aria-describedby')).toBeNull();
    // A click on each finding in the panel focuses its control.
    // The two findings share a message shape, so the panel folds them into one row: opened, each is listed.
    const findings = page.getByRole('list', { name: 'Findings' });
    await findings.getByRole('button', { name: 'Show all 2 findings like this' }).click();
    await findings.getByRole('button', { name: /The property "operator" appears more than once/ }).click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Operator 1');
    await findings
      .getByRole('button', { name: /The property "field" appears more than once/ })
      .last()
      .click();
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Field 0');
    await page.screenshot({ path: join(artifacts, 'filter-field-operator-findings.png') });
    expect(errors).toEqual([]);
  });

  it('keeps the subject field of a template switched to SMS while it has a subject, so a finding about the subject has a field to show on and be fixed in', async () => {
    const { page, errors } = await editor.open();
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Follow-up email/ })
      .click();
    const subject = page.getByLabel('Subject', { exact: true });
    // One character more than the schema allows: an error about the subject.
    await subject.fill('x'.repeat(maxLengthOf('message-template', 'subject')! + 1));
    await poll(() => page.getByTestId('error-count').textContent()).toBe('1 error');
    await page.getByLabel('Channel', { exact: true }).selectOption('sms');
    await poll(async () => (await packOf(page)).messageTemplates[1]!.channel).toBe('sms');
    // The field stays, marked, with the finding beside it and a word on what a subject does on an SMS.
    await poll(() => subject.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, subject)).toMatch(/messageTemplates\[1\]\.subject/);
    expect(await page.locator('.form-findings').count()).toBe(0);
    expect(await page.locator('.editor-pane').textContent()).toContain('SMS messages have no subject');
    await page.screenshot({ path: join(artifacts, 'sms-subject.png') });
    // Cleared from the keyboard, the subject leaves the pack, but the field keeps the focus (it is
    // not pulled from under the caret) and says what happens next; typing again would bring it back.
    await subject.focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await poll(async () => 'subject' in (await packOf(page)).messageTemplates[1]!).toBe(false);
    await poll(() => page.getByTestId('error-count').textContent()).toBe('0 errors');
    expect(await subject.count()).toBe(1);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-path'))).toBe('subject');
    expect(await page.locator('.editor-pane').textContent()).toContain('leaves the form when you move on');
    // Tab moves on to the body as from any field, and the emptied subject is gone.
    await page.keyboard.press('Tab');
    await poll(() => subject.count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-path'))).toBe('body');
    // An SMS template without a subject shows no subject field.
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Welcome text/ })
      .click();
    await poll(() => page.locator('.editor-pane h2').textContent()).toBe('Message template');
    await poll(() => page.getByLabel('Key', { exact: true }).inputValue()).toBe('tpl-welcome-sms');
    expect(await subject.count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('keeps a refused stage probability with its stage when a stage before it is removed or it is moved', async () => {
    const { page, errors } = await editor.open();
    await openItem(page, 'pipelines/');
    const probability = (n: number) => page.getByLabel(`Stage ${n} probability`);
    const key = (n: number) => page.getByLabel(`Stage ${n} key`);
    // Stage 2 ("showing", 30) gets a refused number; stage 3 ("offer") has 30 too, so only the row's identity tells them apart.
    await probability(3).fill('30');
    await poll(async () => (await packOf(page)).pipelines[0]!.stages[2]!.probability).toBe(30);
    await probability(2).fill('1e-400');
    await poll(() => probability(2).getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Remove stage 1' }).click();
    await poll(() => key(1).inputValue()).toBe('showing');
    expect(await probability(1).inputValue()).toBe('1e-400');
    expect(await probability(1).getAttribute('aria-invalid')).toBe('true');
    expect(await key(2).inputValue()).toBe('offer');
    expect(await probability(2).inputValue()).toBe('30');
    expect(await probability(2).getAttribute('aria-invalid')).toBeNull();
    // Moved down, the text moves with its stage.
    await page.getByRole('button', { name: 'Move stage 1 down' }).click();
    await poll(() => key(2).inputValue()).toBe('showing');
    expect(await probability(2).inputValue()).toBe('1e-400');
    expect(await probability(1).inputValue()).toBe('30');
    expect(await probability(1).getAttribute('aria-invalid')).toBeNull();
    expect(errors).toEqual([]);
  });

  it("keeps the focus with the keyboard on a pipeline's stages: a moved stage's button keeps it, a removed stage's passes it to the next row", async () => {
    const { page, errors } = await editor.open();
    await openItem(page, 'pipelines/');
    const active = () =>
      page.evaluate(
        () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? document.activeElement?.tagName,
      );
    const keys = async () => (await packOf(page)).pipelines[0]!.stages.map((st) => st.key);
    const before = await keys();
    // ↓ twice from the keyboard: the stage goes down two rows, the focus with it.
    await page.getByRole('button', { name: 'Move stage 1 down' }).focus();
    await page.keyboard.press('Enter');
    await poll(async () => (await keys())[1]).toBe(before[0]);
    await poll(active).toBe('Move stage 2 down');
    await page.keyboard.press('Enter');
    await poll(async () => (await keys())[2]).toBe(before[0]);
    await poll(active).toBe('Move stage 3 down');
    // Removed from the keyboard: the next row's remove button has the focus, then Add stage after the last.
    await page.getByRole('button', { name: 'Remove stage 3' }).focus();
    await page.keyboard.press('Enter');
    await poll(async () => (await keys()).length).toBe(before.length - 1);
    await poll(active).toBe('Remove stage 3');
    await page.getByRole('button', { name: `Remove stage ${before.length - 1}` }).focus();
    await page.keyboard.press('Enter');
    await poll(async () => (await keys()).length).toBe(before.length - 2);
    await poll(active).toBe(`Remove stage ${before.length - 2}`);
    expect(errors).toEqual([]);
  });

  it("keeps the focus with the keyboard when a filter condition or a sidebar item is removed: the next condition, the group's + Condition, the item shown next", async () => {
    const { page, errors } = await editor.open();
    const active = () =>
      page.evaluate(
        () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? document.activeElement?.tagName,
      );
    await openItem(page, 'smartLists/');
    const conditions = async () => (await packOf(page)).smartLists[0]!.filters.root.children.length;
    // Two conditions: removing the first passes the focus to the one that took its place…
    await page.getByRole('button', { name: 'Remove condition 0' }).focus();
    await page.keyboard.press('Enter');
    await poll(conditions).toBe(1);
    await poll(active).toBe('Remove condition 0');
    // …and removing the last, to its group's + Condition, which adds one back from the keyboard.
    await page.keyboard.press('Enter');
    await poll(conditions).toBe(0);
    await poll(active).toBe('+ Condition');
    await page.keyboard.press('Enter');
    await poll(conditions).toBe(1);

    // A sidebar item removed with × (confirmed): the focus goes to what is shown next, not to the page.
    const nav = page.getByRole('navigation', { name: 'Pack items' });
    await nav.getByRole('button', { name: /^Remove / }).focus();
    await page.keyboard.press('Enter');
    await poll(async () => ((await packOf(page)) as unknown as { smartLists: unknown[] }).smartLists.length).toBe(0);
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-current'))).toBe('true');
    expect(await nav.evaluate((n) => n.contains(document.activeElement))).toBe(true);
    expect(errors).toEqual([]);
  });

  it("keeps the focus with the keyboard on a block's Duplicate and Delete and a reference's Remove: the copy's form, the block that took the deleted one's place, the next Remove, else + Add block or Add reference", async () => {
    const { page, errors } = await editor.open();
    const active = () =>
      page.evaluate(
        () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? document.activeElement?.tagName,
      );
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    const nodeIds = async () => (await packOf(page)).automations[0]!.document.graph.nodes.map((n) => n.id);
    const selected = () => page.locator('.react-flow__node.selected').evaluateAll((ns) => ns.map((n) => n.getAttribute('data-id')));
    const before = await nodeIds();

    // Duplicate from the keyboard: the copy is selected (as Ctrl+D selects it) and the focus is on
    // its form's Duplicate, which names it.
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    await inspector.getByRole('button', { name: /^Duplicate/ }).focus();
    await page.keyboard.press('Enter');
    await poll(async () => (await nodeIds()).length).toBe(before.length + 1);
    const copy = (await nodeIds()).find((id) => !before.includes(id))!;
    await poll(selected).toEqual([copy]);
    await poll(active).toBe(`Duplicate block ${copy}`);
    expect(await inspector.getByLabel('Block id').inputValue()).toBe(copy);
    await page.screenshot({ path: join(artifacts, 'focus-after-duplicate.png') });

    // Delete from the keyboard: the block that took its place is selected, the focus on its Delete
    // (the block before, when the last was deleted: the copy is last).
    await page.keyboard.press('Tab');
    await poll(active).toBe(`Delete block ${copy}`);
    await page.keyboard.press('Enter');
    await poll(nodeIds).toEqual(before);
    await poll(selected).toEqual([before.at(-1)]);
    await poll(active).toBe(`Delete block ${before.at(-1)}`);
    await page.getByRole('group', { name: 'Send SMS block sms' }).click();
    await inspector.getByRole('button', { name: 'Delete block sms' }).focus();
    await page.keyboard.press('Enter');
    const next = before[before.indexOf('sms') + 1]!;
    await poll(async () => (await nodeIds()).includes('sms')).toBe(false);
    await poll(selected).toEqual([next]);
    await poll(active).toBe(`Delete block ${next}`);
    await page.screenshot({ path: join(artifacts, 'focus-after-delete.png') });

    // A reference's Remove: the Remove of the row that took its place, else of the row before, then Add reference.
    await page.locator('.react-flow__pane').click({ position: { x: 20, y: 300 } });
    const removes = inspector.getByRole('button', { name: /^Remove reference / });
    const labels = await removes.evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    expect(labels.length).toBeGreaterThan(2);
    await removes.nth(1).focus();
    await page.keyboard.press('Enter');
    await poll(active).toBe(labels[2]);
    await removes.last().focus();
    await page.keyboard.press('Enter');
    await poll(active).toBe(labels.at(-2));
    await page.screenshot({ path: join(artifacts, 'focus-after-remove-reference.png') });
    for (let left = labels.length - 2; left > 0; left--) {
      await page.keyboard.press('Enter');
      await poll(
        async () =>
          ((await packOf(page)) as unknown as { automations: { document: { references?: unknown[] } }[] }).automations[0]!.document
            .references?.length ?? 0,
      ).toBe(left - 1);
    }
    await poll(active).toBe('Add reference');

    // The last block deleted: the focus goes to + Add block, which adds one from the keyboard.
    await page.getByRole('button', { name: 'New pack' }).click();
    await page.locator('.react-flow__node').first().click();
    await inspector.getByRole('button', { name: /^Delete block / }).focus();
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.react-flow__node').count()).toBe(0);
    await poll(active).toBe('Add block');
    await page.screenshot({ path: join(artifacts, 'focus-after-delete-last.png') });
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Add a block' }).waitFor();
    expect(errors).toEqual([]);
  });

  it("keeps a block's config when its Kind is changed, as fields the new kind does not know, and Ctrl+Z gives the old kind back in one step", async () => {
    const { page, errors } = await editor.open();
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    const tagBlock = async () =>
      (await packOf(page)).automations[0]!.document.graph.nodes.find((n) => n.id === 'tag') as unknown as {
        kind: string;
        config: Record<string, unknown>;
      };
    const references = async () => ((await packOf(page)).automations[0]!.document as unknown as { references?: unknown[] }).references;
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    const before = await tagBlock();
    const referencesBefore = await references();
    expect(before.config).toEqual({ tag_id: 'tag-buyer-lead' });
    const kind = inspector.getByLabel('Kind', { exact: true });
    await kind.selectOption('action.send_sms');
    await poll(async () => (await tagBlock()).kind).toBe('action.send_sms');
    // Nothing is dropped: the Send SMS form lists the tag among the fields its catalog does not describe.
    expect((await tagBlock()).config).toEqual(before.config);
    expect(await references()).toEqual(referencesBefore);
    const other = inspector.getByLabel('Other config fields (JSON)');
    expect(JSON.parse(await other.inputValue())).toEqual({ tag_id: 'tag-buyer-lead' });
    // Shown open: the block now has fields the catalog does not describe.
    expect(await other.isVisible()).toBe(true);
    await poll(() =>
      inspector.getByText(/config\.tag_id of action\.send_sms node "tag" is not in our catalog; it is kept as it is/).isVisible(),
    ).toBe(true);
    await page.screenshot({ path: join(artifacts, 'kind-changed.png') });
    // One undo step, from the Kind selector itself.
    await kind.focus();
    await page.keyboard.press('Control+z');
    await poll(tagBlock).toEqual(before);
    await poll(() => kind.inputValue()).toBe('action.add_tag');
    expect(await inspector.getByLabel('Tag *').inputValue()).toBe('tag-buyer-lead');
    expect(errors).toEqual([]);
  });

  it("says what a block's field asks for in the author's words (a whole number of days), marks required fields, and lists the catalog's fields first", async () => {
    const { page, errors } = await editor.open();
    const inspector = page.getByRole('complementary', { name: 'Inspector' });
    await page.locator('[data-testid="node-wait"]').click();
    const duration = inspector.getByLabel('Duration', { exact: true });
    // The catalog's fields come before the block's kind and id.
    const order = await inspector.locator('input, select, textarea').evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));
    expect(order.indexOf('config/duration')).toBeLessThan(order.indexOf('kind'));
    expect(await inspector.getByText('Enter a whole number of days.', { exact: true }).count()).toBe(1);
    // Text that is no number: refused in the field's words.
    await duration.fill('soon');
    await poll(() => duration.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, duration)).toBe('error: Not applied: enter a whole number of days.');
    // A number that is not whole: applied (block configs are warnings), and the note says what is wanted, not JSON's type.
    await duration.fill('2.5');
    // (Read at once: between the refusal and the validation the field has no note to wait for.)
    const noteNow = () =>
      duration.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent ?? null);
    await poll(noteNow).toBe('warning: Enter a whole number of days. catalog/config-field');
    // In hours, it says hours.
    await inspector.getByLabel('Unit', { exact: true }).selectOption('hours');
    await poll(noteNow).toBe('warning: Enter a whole number of hours. catalog/config-field');
    // A required field is marked, for eyes and for assistive technology.
    await page.getByRole('group', { name: 'Add tag block tag' }).click();
    const tag = inspector.getByLabel('Tag *');
    expect(await tag.getAttribute('aria-required')).toBe('true');
    expect(await inspector.locator('label .required').first().textContent()).toBe(' *');
    await page.screenshot({ path: join(artifacts, 'field-words.png') });
    expect(errors).toEqual([]);
  });

  it('names the field of a refused number where it is in the pack, in the words the diagnostics panel uses for it', async () => {
    const { context, page, errors } = await editor.open();

    // A block's number field (the first automation's wait block, its fourth).
    const nodes = (await packOf(page)).automations[0]!.document.graph.nodes;
    expect(nodes[3]!.id).toBe('wait');
    await page.locator('[data-testid="node-wait"]').click();
    const duration = page.getByLabel('Duration', { exact: true });
    await duration.fill('1e-400');
    await poll(() => duration.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, duration)).toMatch(
      /^error: Not applied: automations\[0\]\.document\.graph\.nodes\[3\]\.config\.duration is the number 1e-400, closer to 0/,
    );

    // The automation's daily send limit.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const limit = page.getByRole('region', { name: 'Delivery settings' }).getByLabel('Daily send limit');
    await limit.fill('1e400');
    await poll(() => limit.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, limit)).toMatch(
      /^error: Not applied: automations\[0\]\.document\.settings\.daily_send_limit is the number 1e400, beyond/,
    );

    // A smart list condition's value.
    await openItem(page, 'smartLists/');
    const value = page.getByLabel('Value 1', { exact: true });
    await value.fill('1e-400');
    await poll(() => value.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, value)).toMatch(
      /^error: Not applied: smartLists\[0\]\.filters\.root\.children\[1\]\.value is the number 1e-400, closer to 0/,
    );

    // A stage probability: the same words as the panel's finding for a file that writes the number there.
    await openItem(page, 'pipelines/');
    const probability = page.getByLabel('Stage 5 probability');
    await probability.fill('1e-400');
    await poll(() => probability.getAttribute('aria-invalid')).toBe('true');
    const note = (await noteOf(page, probability))!;
    await page.screenshot({ path: join(artifacts, 'typed-number-named.png') });

    const text = (await (await page.request.get(`${editor.url}/fixtures/valid/buyer-lead-starter.json`)).text()).replace(
      '"probability": 0,',
      '"probability": 1e-400,',
    );
    const other = await context.newPage();
    await other.goto(`${editor.url}/`);
    await other.locator('.react-flow__node').first().waitFor();
    await other.getByTestId('open-file').setInputFiles({ name: 'tiny.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    const listed = other.getByRole('list', { name: 'Findings' }).getByRole('button', { name: /is the number 1e-400/ });
    await listed.waitFor();
    const said = (await listed.locator('.msg').textContent())!;
    expect(said).toMatch(/^pipelines\[0\]\.stages\[4\]\.probability is the number 1e-400/);
    expect(note).toContain(`Not applied: ${said}`);
    expect(errors).toEqual([]);
  });

  it('does not apply JSON holding a number beyond what a float holds (1e400 would be exported as null), as a number field does not', async () => {
    const { page, errors } = await editor.open();
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    const brand = page.getByLabel('Brand (JSON)');
    const before = JSON.stringify(await packOf(page));
    await brand.fill('{"accent": 1e400}');
    await poll(() => brand.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, brand)).toMatch(
      /^error: Not applied: this JSON says what the editor cannot keep as written: line 1: brand\.accent is the number 1e400, beyond what a JSON number can hold here \(a 64-bit float\); it would be read as Infinity and installed as null\./,
    );
    expect(JSON.stringify(await packOf(page))).toBe(before);
    expect(await page.getByTestId('error-count').textContent()).toBe('0 errors');
    // A filter value's JSON likewise.
    await openItem(page, 'smartLists/');
    const value = page.getByLabel('Value 1', { exact: true });
    await value.fill('[3, -1e400]');
    await poll(() => value.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, value)).toMatch(
      /line 1: smartLists\[0\]\.filters\.root\.children\[1\]\.value\[1\] is the number -1e400, beyond/,
    );
    expect(JSON.stringify(await packOf(page))).toBe(before);
    expect(errors).toEqual([]);
  });

  it("shows each stage's own color in its swatch, in every spelling the schema allows (#f00, #22c55e80), and writes the one picked", async () => {
    const { page, errors } = await editor.open();
    const pack = JSON.parse(await (await page.request.get(`${editor.url}/fixtures/valid/buyer-lead-starter.json`)).text());
    const colors = ['#f00', '#22c55e80', '#0A8F'];
    colors.forEach((c, i) => (pack.pipelines[0].stages[i].color = c));
    const text = JSON.stringify(pack, null, 2);
    await page.getByTestId('open-file').setInputFiles({ name: 'colors.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await poll(() => page.locator('.source .address').textContent()).toBe('colors.json');
    await poll(() => page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
    expect(await page.getByTestId('error-count').textContent()).toBe('0 errors');
    await openItem(page, 'pipelines/');
    const swatch = (n: number) => page.getByLabel(`Stage ${n} color`);
    expect(await swatch(1).inputValue()).toBe('#ff0000');
    expect(await swatch(2).inputValue()).toBe('#22c55e');
    expect(await swatch(3).inputValue()).toBe('#00aa88');
    expect(await swatch(4).inputValue()).toBe('#22c55e');
    await page.screenshot({ path: join(artifacts, 'stage-colors.png') });
    // Picking a color writes it as the picker gives it.
    await swatch(1).fill('#123456');
    await poll(async () => (await packOf(page)).pipelines[0]!.stages[0]).toMatchObject({ color: '#123456' });
    expect(errors).toEqual([]);
  });

  it("shows each stage's whole type (CLOSED_WON, CLOSED_LOST), not cut by the width of its cell", async () => {
    const { page, errors } = await editor.open();
    await openItem(page, 'pipelines/');
    for (const n of [1, 4, 5]) {
      const type = page.getByLabel(`Stage ${n} type`);
      // The width the select needs to show its longest option: the same select left to size itself.
      const [has, needs] = await type.evaluate((el) => {
        const free = el.cloneNode(true) as HTMLSelectElement;
        free.style.cssText = 'position: absolute; width: auto; visibility: hidden';
        document.body.append(free);
        const w = free.getBoundingClientRect().width;
        free.remove();
        return [el.getBoundingClientRect().width, w];
      });
      expect(has, `stage ${n}: ${has}px for a select that needs ${needs}px`).toBeGreaterThanOrEqual(needs - 0.5);
    }
    expect(errors).toEqual([]);
  });

  it("offers the schema's own lists and limits: resource kinds, schema versions, the daily send limit's range", async () => {
    const { page, errors } = await editor.open();
    const options = (label: string) =>
      page
        .getByLabel(label, { exact: true })
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter((v) => v !== ''));
    await openItem(page, 'resources/');
    expect(await options('Kind')).toEqual([...RESOURCE_KINDS]);
    await page
      .getByRole('navigation', { name: 'Pack items' })
      .getByRole('button', { name: /^Pack:/ })
      .click();
    expect(await options('Schema version')).toEqual(SCHEMA_VERSIONS.map(String));
    await openItem(page, 'automations/new-lead-welcome');
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const { minimum, maximum } = numberLimitsOf('settings', 'daily_send_limit');
    expect(await page.getByRole('region', { name: 'Delivery settings' }).locator('.help').first().textContent()).toBe(
      `${count(minimum!)} to ${count(maximum!)} sends a day`,
    );
    expect(errors).toEqual([]);
  });

  it("refuses a stage probability the schema does not allow the type of (12.5 for an integer), in core's words, and applies an integer", async () => {
    const { page, errors } = await editor.open();
    await openItem(page, 'pipelines/');
    const probability = page.getByLabel('Stage 2 probability');
    const before = JSON.stringify(await packOf(page));
    await probability.fill('12.5');
    await poll(() => probability.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, probability)).toBe(
      'error: Not applied: pipelines[0].stages[1].probability must be an integer, not a number.',
    );
    expect(await probability.inputValue()).toBe('12.5');
    expect(JSON.stringify(await packOf(page))).toBe(before);
    expect(await page.getByTestId('error-count').textContent()).toBe('0 errors');
    await page.screenshot({ path: join(artifacts, 'probability-integer.png') });
    // An integer applies; one out of the schema's range applies too, and the panel says so.
    await probability.fill('35');
    await poll(async () => (await packOf(page)).pipelines[0]!.stages[1]!.probability).toBe(35);
    expect(await probability.getAttribute('aria-invalid')).toBeNull();
    // The daily send limit is an integer too.
    await openItem(page, 'automations/new-lead-welcome');
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const limit = page.getByRole('region', { name: 'Delivery settings' }).getByLabel('Daily send limit');
    await limit.fill('2.5');
    await poll(() => limit.getAttribute('aria-invalid')).toBe('true');
    expect(await noteOf(page, limit)).toBe(
      'error: Not applied: automations[0].document.settings.daily_send_limit must be an integer, not a number.',
    );
    expect(errors).toEqual([]);
  });

  it("shows a checkbox of an item form beside its label, as the inspector's are, not above it", async () => {
    const { page, errors } = await editor.open('?pack=/fixtures/valid/listing-marketing.json');
    await openItem(page, 'assets/');
    const box = page.getByLabel('Public URL set', { exact: true });
    const label = page.getByText('Public URL set', { exact: true });
    const b = (await box.boundingBox())!;
    const l = (await label.boundingBox())!;
    // On one line: the label starts right of the box and their heights overlap.
    expect(l.x).toBeGreaterThanOrEqual(b.x + b.width);
    expect(l.y < b.y + b.height && b.y < l.y + l.height).toBe(true);
    await page.screenshot({ path: join(artifacts, 'asset-checkbox.png') });
    expect(errors).toEqual([]);
  });

  it('picks a reference from the keyboard: ↓ from the search box through the list, Enter picks, and the focus goes back to Choose…', async () => {
    const { page, errors } = await editor.open();
    await page.locator('[data-testid="node-tag"]').click();
    const choose = page.getByRole('button', { name: 'Choose Tag', exact: true });
    await choose.click();
    await page.getByLabel('Search tags').fill('hot');
    await page.keyboard.press('ArrowDown');
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Hot lead tag-hot');
    await page.keyboard.press('ArrowUp');
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search tags');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await poll(async () => (await packOf(page)).automations[0]!.document.graph.nodes.find((n) => n.id === 'tag')!.config.tag_id).toBe(
      'tag-hot',
    );
    await poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Choose Tag');
    // Escape closes the list and gives the focus back too.
    await page.keyboard.press('Enter');
    await page.getByLabel('Search tags').waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Escape');
    await poll(() => page.getByLabel('Search tags').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Choose Tag');
    expect(errors).toEqual([]);
  });
});
