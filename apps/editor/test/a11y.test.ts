// The accessibility audit: axe-core on every main view of the editor, in headless Chromium, in the
// light and the dark theme. No critical or serious violation anywhere; the moderate and minor ones
// are printed, so they are seen and can be weighed. The plan panel is audited connected to a real
// workspace server (started here, on an in-memory store, with the demo workspace).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { buildServer, openStore, seedDemo, systemClock, type Store } from '@setup-pack/workspace-server';
import { audit, auditLine, blocking, describeViolations } from './support/axe.js';
import { poll, STARTER, useEditor } from './support/editor.js';

const editor = useEditor('editor accessibility');
let store: Store | undefined;
let api: { base: string; key: string; close(): Promise<unknown> } | undefined;

beforeAll(async () => {
  if (editor.missing) return;
  store = await openStore({ memory: true });
  const { key } = await seedDemo(store.db, systemClock);
  const app = await buildServer({ store, adminToken: 'adm', corsOrigins: [editor.url] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  api = { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, key: key.secret, close: () => app.close() };
}, 120_000);
afterAll(async () => {
  await api?.close();
  await store?.close();
});

/** Audits the page as it is: prints the counts and what is not blocking, and fails on what is. */
async function expectAccessible(page: Page, view: string) {
  const result = await audit(page);
  const minor = result.violations.filter((v) => !blocking([v]).length);
  console.log([auditLine(view, result), ...describeViolations(view, minor)].join('\n'));
  expect(describeViolations(view, blocking(result.violations))).toEqual([]);
}

for (const colorScheme of ['light', 'dark'] as const) {
  describe.skipIf(editor.missing)(`${editor.title}, ${colorScheme} theme`, () => {
    const open = async (query = STARTER) => {
      const opened = await editor.page(query, { colorScheme });
      await opened.page.locator('.react-flow__node').first().waitFor();
      await poll(() => opened.page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
      return opened;
    };

    it('the editor with the demo pack, a block selected, the command palette and the shortcuts', async () => {
      const { page, errors } = await open();
      await expectAccessible(page, 'demo pack');
      await page.getByRole('group', { name: 'Add tag block tag' }).click();
      await page.getByRole('complementary', { name: 'Inspector' }).getByRole('heading', { name: 'Add tag' }).waitFor();
      await expectAccessible(page, 'block selected');
      await page.getByRole('button', { name: 'Add block' }).click();
      await page.getByRole('dialog', { name: 'Add a block' }).waitFor();
      await expectAccessible(page, 'block palette');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Command palette' }).waitFor();
      await expectAccessible(page, 'command palette');
      await page.keyboard.press('Escape');
      await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('?');
      await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
      await expectAccessible(page, 'shortcuts');
      expect(errors).toEqual([]);
    });

    it('the Flow map and the Simulate panel', async () => {
      const { page, errors } = await open('?pack=/fixtures/invalid/flow-cascade-loop.json');
      await page.getByRole('button', { name: 'Flow map' }).click();
      await page.getByTestId('flow-map-summary').waitFor();
      await expectAccessible(page, 'flow map');
      await page.getByRole('button', { name: 'Back to editor' }).click();
      await page.getByRole('button', { name: 'Simulate' }).click();
      await page.getByTestId('timeline').waitFor();
      await expectAccessible(page, 'simulate panel');
      // A timeline forked into paths: the path picker and the fork's links.
      await page.goto(page.url().replace('flow-cascade-loop.json', '../valid/buyer-lead-starter.json'));
      await page.getByRole('button', { name: 'Simulate' }).click();
      const panel = page.getByRole('region', { name: 'Simulate' });
      await panel.getByRole('combobox', { name: 'Event', exact: true }).selectOption('stage_changed');
      await panel.getByRole('group', { name: 'Paths' }).waitFor();
      await expectAccessible(page, 'simulate panel with paths');
      expect(errors).toEqual([]);
    });

    it('compare, and the form that chooses the releases', async () => {
      const { page, errors } = await editor.page(
        '?old=/fixtures/releases/buyer-lead-1.0.0.json&new=/fixtures/releases/buyer-lead-1.1.0.json',
        { colorScheme },
      );
      await page.getByRole('list', { name: 'Item changes' }).waitFor();
      await expectAccessible(page, 'compare');
      await page.getByRole('button', { name: 'Back to editor' }).click();
      await page.getByRole('button', { name: 'Compare releases' }).click();
      await page.getByRole('heading', { name: 'Compare two releases' }).waitFor();
      await expectAccessible(page, 'compare form');
      expect(errors).toEqual([]);
    });

    it('the connect dialog and the plan panel, connected to a workspace', async () => {
      const { page, errors } = await open();
      await page.getByTestId('connect-button').click();
      await page.getByRole('dialog', { name: 'Connect to workspace' }).waitFor();
      await expectAccessible(page, 'connect dialog');
      expect(errors).toEqual([]);
      // Connected as npm start connects it: through the address's fragment.
      const connected = await editor.page(`${STARTER}#workspace=${encodeURIComponent(api!.base)}&key=${encodeURIComponent(api!.key)}`, {
        colorScheme,
      });
      await poll(() => connected.page.getByTestId('connect-button').textContent()).toContain('Demo Realty');
      await connected.page.getByTestId('plan-button').click();
      await poll(() => connected.page.getByTestId('plan-summary').textContent()).toMatch(/^Plan: /);
      await expectAccessible(connected.page, 'plan panel');
      expect(connected.errors).toEqual([]);
    });
  });
}
