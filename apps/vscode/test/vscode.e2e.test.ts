// The extension in a real VS Code, installed from its .vsix as a user installs it: VS Code 1.96
// (code-server, scripts/install-vscode.sh) run headless and driven in Debian's Chromium. A pack
// author opens a pack and sees its findings in Problems, applies a quick fix from the light bulb
// and sees the finding go as the text changes, and runs the extension's commands from the
// command palette. Without code-server or Chromium the file skips, saying why.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchBrowser } from '../../editor/test/support/harness.mjs';
import { buildServer, FIXTURES, ROOT } from '../../../packages/language-server/test/client.js';

const CODE_SERVER = process.env.CODE_SERVER_DIR ?? join(homedir(), '.cache/setup-pack/code-server');
const ENTRY = join(CODE_SERVER, 'node_modules/code-server/out/node/entry.js');
const missing =
  chromiumMissing() ??
  (existsSync(ENTRY)
    ? null
    : `no VS Code (code-server) at ${CODE_SERVER}: run scripts/install-vscode.sh (npm run setup:test does), or set CODE_SERVER_DIR`);
if (missing) console.warn(`VS Code end to end: SKIPPED, ${missing}`);

const SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  // VS Code's own JSON support would fetch the pack's $schema address and warn that it cannot.
  'json.schemaDownload.enable': false,
  'workbench.enableExperiments': false,
};

let server: ChildProcess | undefined;
let browser: Browser | undefined;
let page: Page;
let ws: string;

/** The arguments every code-server call takes: a profile, extensions and settings of this run only. */
function codeServer(run: string): { args: string[]; env: NodeJS.ProcessEnv } {
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(run, 'xdg/config'),
    XDG_DATA_HOME: join(run, 'xdg/data'),
    XDG_CACHE_HOME: join(run, 'xdg/cache'),
  };
  writeFileSync(join(run, 'config.yaml'), 'auth: none\ncert: false\n');
  const args = [
    ENTRY,
    '--config',
    join(run, 'config.yaml'),
    '--user-data-dir',
    join(run, 'data'),
    '--extensions-dir',
    join(run, 'exts'),
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
  ];
  return { args, env };
}

async function waitForHealth(url: string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer at ${url}`);
}

beforeAll(async () => {
  if (missing) return;
  buildServer();
  // The .vsix as a user installs it, built under the lock the packaging test takes too.
  const lock = join(ROOT, 'node_modules/.setup-pack-vsix-build.lock');
  execFileSync('flock', [lock, 'npm', 'run', 'package', '-w', 'apps/vscode'], { cwd: ROOT, stdio: 'pipe' });
  const run = mkdtempSync(join(tmpdir(), 'setup-pack-vscode-'));
  const vsix = join(run, 'setup-pack-vscode.vsix');
  copyFileSync(join(ROOT, 'apps/vscode/setup-pack-vscode.vsix'), vsix);
  mkdirSync(join(run, 'data/User'), { recursive: true });
  writeFileSync(join(run, 'data/User/settings.json'), JSON.stringify(SETTINGS));
  ws = join(run, 'ws');
  mkdirSync(ws);
  for (const f of ['graph-cycle.json', 'asset-sha256-mismatch.json']) copyFileSync(join(FIXTURES, 'invalid', f), join(ws, f));
  const { args, env } = codeServer(run);
  const installed = spawnSync(process.execPath, [...args, '--install-extension', vsix], { env, encoding: 'utf8' });
  expect(installed.stdout + installed.stderr).toContain("Extension 'setup-pack-vscode.vsix' was successfully installed");
  const port = 20000 + (process.pid % 20000);
  server = spawn(process.execPath, [...args, '--bind-addr', `127.0.0.1:${port}`], { env, detached: true, stdio: 'ignore' });
  await waitForHealth(`http://127.0.0.1:${port}`);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`);
  await page.waitForSelector('.monaco-workbench .part.editor', { timeout: 90_000 });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  if (server?.pid) process.kill(-server.pid, 'SIGTERM');
});

/** Opens a file of the workspace from the Explorer, as a user double-clicks it. */
async function openFile(name: string): Promise<void> {
  const item = page.locator(`.explorer-folders-view .monaco-list-row[aria-label="${name}"]`);
  await item.waitFor({ timeout: 60_000 });
  await item.dblclick();
  await page.waitForSelector(`.tab[data-resource-name="${name}"]`, { timeout: 30_000 });
}

/** The Problems panel's rows for the active file, as it shows them (message, source and code, place). */
async function problems(): Promise<string[]> {
  if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').waitFor();
  return page
    .locator('.markers-panel .monaco-list-row')
    .evaluateAll((rows) =>
      rows
        .filter((r) => r.querySelector('.marker-message-details-container, .marker-icon'))
        .map((r) => (r as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
    );
}

const poll = <T>(fn: () => Promise<T> | T, timeout = 90_000) => expect.poll(fn, { timeout, interval: 250 });

/** Where `needle` + `offset` is in `text`, 1-based as VS Code's status bar counts. */
function placeOf(text: string, needle: string, offset: number): { line: number; column: number } {
  const at = text.indexOf(needle) + offset;
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/** Puts the cursor at `needle` + `offset` of the active editor's text (Go to Line, `line:column`). */
async function goTo(text: string, needle: string, offset: number): Promise<void> {
  const { line, column } = placeOf(text, needle, offset);
  await page.locator('.monaco-editor .view-lines').first().click();
  await page.keyboard.press('Control+G');
  await page.keyboard.type(`${line}:${column}`);
  await page.keyboard.press('Enter');
  await poll(() => page.locator('#status\\.editor\\.selection').innerText()).toBe(`Ln ${line}, Col ${column}`);
}

describe.skipIf(missing)('the extension in VS Code, from its .vsix', () => {
  it("shows a pack's findings in Problems, with their codes", async () => {
    await openFile('graph-cycle.json');
    await poll(problems).toEqual(
      expect.arrayContaining([expect.stringMatching(/^The graph has a cycle: .* setup-pack graph\/cycle \[Ln 141, Col 13\]$/)]),
    );
  });

  it("goes to a key's definition (F12) and renames it with every use (F2)", async () => {
    await openFile('graph-cycle.json');
    const text = readFileSync(join(ws, 'graph-cycle.json'), 'utf8');
    // On the block's template_id: F12 goes to the template's key.
    await goTo(text, '"template_id": "tpl-follow-up"', 18);
    await page.keyboard.press('F12');
    const key = placeOf(text, '"key": "tpl-follow-up"', 7);
    await poll(() => page.locator('#status\\.editor\\.selection').innerText()).toBe(`Ln ${key.line}, Col ${key.column}`);
    // F2 there: the key and its uses, renamed in one edit; saved, the file validates as before.
    await page.keyboard.press('F2');
    const input = page.locator('.rename-box input');
    await input.waitFor({ timeout: 30_000 });
    await input.fill('tpl-nudge');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.monaco-editor .view-lines').first().innerText()).toContain('"tpl-nudge"');
    await page.keyboard.press('Control+S');
    await poll(() => readFileSync(join(ws, 'graph-cycle.json'), 'utf8').split('"tpl-nudge"').length - 1).toBe(3);
    expect(readFileSync(join(ws, 'graph-cycle.json'), 'utf8')).not.toContain('tpl-follow-up');
  });

  it('applies a quick fix from the light bulb, and the finding goes as the text changes', async () => {
    await openFile('asset-sha256-mismatch.json');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'asset/sha256-mismatch' });
    await poll(() => row.count()).toBeGreaterThan(0);
    // On the finding, Ctrl+. lists the fixes there (asked again while the model of the text is still coming).
    await goTo(readFileSync(join(ws, 'asset-sha256-mismatch.json'), 'utf8'), '"sha256": "0000', 12);
    const menu = page.locator('.action-widget');
    await poll(async () => {
      if (!(await menu.isVisible())) {
        await page.keyboard.press('Escape');
        await page.keyboard.press('Control+.');
        await menu.waitFor({ timeout: 3000 }).catch(() => undefined);
      }
      return menu.innerText().catch(() => '');
    }, 60_000).toMatch(/Quick Fix\s+Set sha256 to "[0-9a-f]+…" \(setup-pack fix\)/);
    await page.keyboard.press('Enter');
    await poll(async () => (await problems()).filter((p) => p.includes('asset/sha256-mismatch'))).toEqual([]);
    // Unsaved: the findings are of the text in the editor, not of the file.
    expect(readFileSync(join(ws, 'asset-sha256-mismatch.json'), 'utf8')).toContain(
      '"sha256": "0000000000000000000000000000000000000000000000000000000000000000"',
    );
  });

  it('runs Setup Pack: Validate workspace from the command palette', async () => {
    await page.keyboard.press('F1');
    await page.keyboard.type('Setup Pack: Validate workspace');
    const entry = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Setup Pack: Validate workspace' }).first();
    await entry.waitFor({ timeout: 30_000 });
    expect(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Setup Pack:' }).allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining('Build pack from folder'), expect.stringContaining('Open in Setup Pack editor')]),
    );
    await page.keyboard.press('Enter');
    const toast = page.locator('.notification-toast', { hasText: 'Setup Pack: 2 pack files validated' });
    await toast.waitFor({ timeout: 60_000 });
    expect(await toast.innerText()).toMatch(/Setup Pack: 2 pack files validated: \d+ errors?, \d+ warnings?\./);
  });
});
