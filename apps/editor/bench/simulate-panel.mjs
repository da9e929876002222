// The Simulate panel's cost to typing, on the demo pack `npm start` opens: with the panel open and
// its timeline on screen, each keystroke in the automation's name is simulated again (in the
// panel's worker) and the timeline redrawn with the new name. What is measured is the longest
// frame from the key press until the timeline shows the change: the main thread's share of the
// keystroke and of the timeline's redraw (a frame is 16.7 ms; a longer gap is work the page could
// not paint through).
import { readFileSync } from 'node:fs';
import { typeAndWatch } from './keystrokes.mjs';

export const DEMO_PACK_PATH = '/bench/demo.json';
export const demoPackText = readFileSync(new URL('../../../fixtures/valid/buyer-lead-starter.json', import.meta.url), 'utf8');

export async function simulatePanelBench({ browser, editorUrl, runs }) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.goto(`${editorUrl}/?pack=${DEMO_PACK_PATH}`);
    await page.locator('.react-flow__node').first().waitFor();
    await page.getByRole('button', { name: 'Simulate' }).click();
    const panel = page.getByRole('region', { name: 'Simulate' });
    await panel.getByRole('textbox', { name: /When the event happens/ }).fill('2026-12-04T18:45:00-05:00');
    await panel.getByRole('textbox', { name: 'Time zone' }).fill('America/New_York');
    const timeline = `document.querySelector('[data-testid="timeline"]')?.textContent ?? ''`;
    await page.waitForFunction(`(${timeline}).includes('New lead welcome')`, null, { polling: 'raf', timeout: 30000 });
    // The automation's own form: its name is in every step of its timeline.
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    const name = page.locator('.inspector').getByRole('textbox', { name: 'Name', exact: true });
    await name.click();
    await page.keyboard.press('End');
    const { times: redrawn, frames } = await typeAndWatch(page, { count: 4 * runs, watched: timeline });
    if (!(await page.evaluate(timeline)).includes('New lead welcome'))
      throw new Error('the timeline did not come back to the pack as it was');
    return { frames, redrawn };
  } finally {
    await page.close();
  }
}
