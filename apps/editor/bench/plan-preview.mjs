// Plan-preview latency in the editor, against the real workspace server holding the pack at every
// limit (the installer bench's 900 items, installed first from Node): cold — from "Read the
// workspace and plan" to the plan on screen, with the ledger and catalog reads over HTTP — and
// warm — from a keystroke in a message template's body to the re-planned summary on screen
// (core's planner over the cached copy, no request). The server runs in-process on PGlite with a
// generous rate limit, so no read waits for the limit: the numbers are the editor's and the API's.
import { fullPack, install, WorkspaceClient } from '@setup-pack/installer';
import { startBenchServer } from '../../../packages/installer/bench/bench-server.mjs';
import { typeAndWatch } from './keystrokes.mjs';

export const PLAN_PACK_PATH = '/bench/plan-pack.json';
/** The pack the plan preview is measured on (served to the page at PLAN_PACK_PATH). */
export const planPack = fullPack();
export const planPackText = `${JSON.stringify(planPack, null, 2)}\n`;

export async function planPreviewBench({ browser, editorUrl, runs }) {
  const api = await startBenchServer({ corsOrigins: [editorUrl] });
  try {
    const key = await api.workspace('Bench Realty', 1_000_000);
    const node = new WorkspaceClient({
      baseUrl: api.base,
      apiKey: key,
      now: () => api.clock.now().getTime(),
      sleep: async (ms) => api.clock.advance(ms),
    });
    const installed = await install(node, planPack);
    if (!installed.written) throw new Error('the plan-preview pack did not install');
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const open = async () => {
      // A fresh page each time (a change of the address's fragment alone would not reload it).
      await page.evaluate(() => window.__drafts?.clear());
      await page.goto('about:blank');
      await page.goto(`${editorUrl}/?pack=${PLAN_PACK_PATH}#workspace=${encodeURIComponent(api.base)}&key=${encodeURIComponent(key)}`);
      await page.getByTestId('connect-button').filter({ hasText: 'Bench Realty' }).waitFor({ timeout: 30000 });
      await page.getByTestId('plan-button').click();
    };
    const summary = `document.querySelector('[data-testid="plan-summary"]')?.textContent ?? ''`;
    const cold = [];
    for (let i = 0; i < runs; i++) {
      await open();
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Read the workspace and plan' }).click();
      await page.waitForFunction(`(${summary}).startsWith('No changes')`, null, { polling: 'raf', timeout: 60000 });
      cold.push(Date.now() - t0);
    }
    // Warm: the copy is read; each keystroke in a template's body re-plans against it.
    await page.locator('.sidebar').getByText('Template 0', { exact: true }).first().click();
    const body = page.getByLabel('Body', { exact: true });
    await body.click();
    await page.keyboard.press('End');
    // Each keystroke re-plans; the page's longest frame until the new summary is on screen.
    const { times: warm, frames } = await typeAndWatch(page, { count: 4 * runs, watched: summary });
    const last = await page.evaluate(summary);
    if (!last.startsWith('No changes')) throw new Error(`the plan did not come back to no changes: ${last}`);
    await page.close();
    return { cold, warm, frames, items: installed.written };
  } finally {
    await api.close();
  }
}
