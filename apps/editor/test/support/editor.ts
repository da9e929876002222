// The set-up every browser test file shares: one build, one server and one Chromium per file
// (harness.mjs's startEditor), a fresh browser context per page (closed after each test, so a
// failing test leaves nothing open), page errors and dialogs recorded, and a pack opened and
// checked as an author would wait for it.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromiumMissing, editorRoot, startEditor } from './harness.mjs';

/** Where the tests write their screenshots (git-ignored). */
export const artifacts = join(editorRoot, 'test-results');

/** Generous: CI machines are shared and slow; a poll passes as soon as the UI catches up. */
export const poll = <T>(fn: () => T | Promise<T>, message?: string) => expect.poll(fn, { timeout: 15000, interval: 50, message });

/** The starter fixture, the pack most tests open. */
export const STARTER = '?pack=/fixtures/valid/buyer-lead-starter.json';

export interface PageOptions {
  viewport?: { width: number; height: number };
  acceptDownloads?: boolean;
  /** The theme the browser asks for (prefers-color-scheme); light unless said. */
  colorScheme?: 'light' | 'dark';
  /** Another page in this context (a second tab) instead of a new context. */
  context?: BrowserContext;
}

export interface EditorPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors in the page. */
  errors: string[];
  /** Every dialog the page opened (confirm, beforeunload…), in order, with what it said. */
  dialogs: { type: string; message: string }[];
  /** Answers for the next dialogs (false dismisses); a dialog with none queued is accepted. */
  answers: boolean[];
}

/** The pack the page is editing (`window.__editor.pack`), typed as the caller reads it. */
export const packOf = <T = unknown>(page: Page) =>
  page.evaluate(() => (window as unknown as { __editor: { pack: unknown } }).__editor.pack) as Promise<T>;

/** Opens pack text as a file picked with Open… would be, and waits for it to be shown and checked. */
export async function openFileText(page: Page, name: string, text: string) {
  await page.getByTestId('open-file').setInputFiles({ name, mimeType: 'application/json', buffer: Buffer.from(text) });
  await poll(() => page.locator('.source .address').textContent()).toBe(name);
  await poll(() => page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
}

/**
 * Registers the file's beforeAll/afterEach/afterAll and returns its editor: `describe.skipIf(editor.missing)(editor.title, …)`,
 * then `editor.page(query)` for a page at `/${query}` (no query: a blank page), `editor.open(query)` for one with the pack's blocks on
 * screen and its first validation done.
 */
export function useEditor(label: string) {
  const missing = chromiumMissing();
  if (missing) console.warn(`${label}: SKIPPED, ${missing}`);
  let started: Awaited<ReturnType<typeof startEditor>> | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    if (missing) return;
    mkdirSync(artifacts, { recursive: true });
    started = await startEditor();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close().catch(() => undefined)));
  });
  afterAll(async () => {
    await started?.close();
  });
  const running = () => {
    if (!started) throw new Error('the editor is not running (no Chromium, or beforeAll failed)');
    return started;
  };

  async function page(query?: string, options: PageOptions = {}): Promise<EditorPage> {
    let context = options.context;
    if (!context) {
      context = await running().browser.newContext({
        viewport: options.viewport ?? { width: 1400, height: 900 },
        acceptDownloads: options.acceptDownloads,
        colorScheme: options.colorScheme ?? 'light',
      });
      contexts.push(context);
    }
    const p = await context.newPage();
    const errors: string[] = [];
    const dialogs: { type: string; message: string }[] = [];
    const answers: boolean[] = [];
    p.on('pageerror', (e) => errors.push(e.message));
    p.on('dialog', (d) => {
      dialogs.push({ type: d.type(), message: d.message() });
      void ((answers.shift() ?? true) ? d.accept() : d.dismiss());
    });
    if (query !== undefined) await p.goto(`${running().url}/${query}`);
    return { context, page: p, errors, dialogs, answers };
  }

  /** A page with a pack open: its blocks on screen and its first validation done. */
  async function open(query = STARTER, options: PageOptions = {}): Promise<EditorPage> {
    const opened = await page(query, options);
    await opened.page.locator('.react-flow__node').first().waitFor();
    await poll(() => opened.page.locator('.diagnostics summary').textContent()).not.toMatch(/checking/);
    return opened;
  }

  return {
    missing,
    /** The describe block's title, saying why it is skipped when it is. */
    title: `${label}${missing ? ` (skipped: ${missing})` : ''}`,
    get url(): string {
      return running().url;
    },
    get browser(): Browser {
      return running().browser;
    },
    page,
    open,
  };
}

/** Drags a connection from `from`'s first output to `to`'s input; `before` runs over the target, before the drop. */
export async function dragConnect(page: Page, from: string, to: string, before?: () => Promise<void>) {
  const a = (await page.locator(`.react-flow__node[data-id="${from}"] .react-flow__handle.source`).first().boundingBox())!;
  const b = (await page.locator(`.react-flow__node[data-id="${to}"] .react-flow__handle.target`).first().boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2 + 10, { steps: 5 });
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 5 });
  await before?.();
  await page.mouse.up();
}
