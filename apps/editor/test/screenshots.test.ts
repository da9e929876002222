// Screenshot tests: every view of test/support/views.ts, at a fixed viewport and theme, compared
// pixel by pixel (pixelmatch) with its committed image — docs/img/<docs> for the views
// docs/editor.md shows, test/screenshots/<name>.png for the others — so the docs' pictures are
// the editor as it is. A difference fails the test and leaves the new image and a diff beside the
// test's artifacts. After a change meant to look different:
//
//   npm run screenshots -w apps/editor
//
// writes every image anew (UPDATE_SCREENSHOTS=1 for this file); look at them before committing.
// The images are Debian's Chromium's, as .ci/run installs it: another browser build draws text a
// few pixels otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { buildServer, openStore, type Store } from '@setup-pack/workspace-server';
import { editorRoot, repoRoot } from './support/harness.mjs';
import { artifacts, useEditor } from './support/editor.js';
import { SHOT, VIEWPORT, VIEWS, type View, type ViewContext } from './support/views.js';

const editor = useEditor('editor screenshots');
const update = !!process.env.UPDATE_SCREENSHOTS;
/** The share of a view's pixels that may differ (pixelmatch's threshold already ignores anti-aliasing). */
const TOLERANCE = 0.001;

let store: Store | undefined;
let server: { base: string; close(): Promise<unknown> } | undefined;
beforeAll(async () => {
  if (editor.missing) return;
  store = await openStore({ memory: true });
  const app = await buildServer({ store, adminToken: 'adm', corsOrigins: [editor.url] });
  await app.listen({ port: 0, host: '127.0.0.1' });
  server = { base: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
}, 120_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
});

const committed = (view: View) =>
  view.docs ? join(repoRoot, 'docs', 'img', view.docs) : join(editorRoot, 'test', 'screenshots', `${view.name}.png`);

async function take(view: View): Promise<Buffer> {
  const { page, errors } = await editor.page(undefined, { viewport: VIEWPORT, colorScheme: view.colorScheme ?? 'light' });
  const ctx: ViewContext = { editorUrl: editor.url, api: { base: server!.base, admin: 'adm' } };
  const shot = (await view.show(page, ctx)) ?? {};
  // Unsaved work is shown once its draft is kept (the autosave's pause would make the line vary).
  await page.waitForFunction(() => !/saving/.test(document.querySelector('[data-testid="draft-state"]')?.textContent ?? ''));
  // The pointer rests on the page's title, so no view is taken with a hover it did not ask for.
  if (!shot.image) await page.mouse.move(5, 12);
  const image = shot.image ?? (await page.screenshot({ ...SHOT, clip: shot.clip, mask: shot.mask }));
  expect(errors, `${view.name}: errors in the page`).toEqual([]);
  return image;
}

/** How many pixels differ, and the picture of where (pixelmatch), when both are the same size. */
function compare(actual: Buffer, expected: Buffer): { differ: number; total: number; diff?: Buffer; sizes?: string } {
  const a = PNG.sync.read(actual);
  const e = PNG.sync.read(expected);
  if (a.width !== e.width || a.height !== e.height)
    return { differ: Infinity, total: 0, sizes: `${a.width}×${a.height} against the committed ${e.width}×${e.height}` };
  const diff = new PNG({ width: a.width, height: a.height });
  const differ = pixelmatch(a.data, e.data, diff.data, a.width, a.height, { threshold: 0.1 });
  return { differ, total: a.width * a.height, diff: PNG.sync.write(diff) };
}

describe.skipIf(editor.missing)(`${editor.title}${update ? ' (updating the committed images)' : ''}`, () => {
  for (const view of VIEWS) {
    it(`${view.name}${view.docs ? ` (docs/img/${view.docs})` : ''}`, async () => {
      const image = await take(view);
      const path = committed(view);
      if (update) {
        mkdirSync(join(path, '..'), { recursive: true });
        writeFileSync(path, image);
        return;
      }
      expect(existsSync(path), `${path} is missing: run npm run screenshots -w apps/editor`).toBe(true);
      const r = compare(image, readFileSync(path));
      if (r.differ > r.total * TOLERANCE) {
        const out = join(artifacts, 'screenshots');
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, `${view.name}.png`), image);
        if (r.diff) writeFileSync(join(out, `${view.name}-diff.png`), r.diff);
      }
      expect(r.sizes, `${view.name}: the image is ${r.sizes}`).toBeUndefined();
      expect(
        r.differ,
        `${view.name}: ${r.differ} of ${r.total} pixels differ from ${path} (new image and diff in test-results/screenshots; npm run screenshots -w apps/editor writes it if the change is meant)`,
      ).toBeLessThanOrEqual(r.total * TOLERANCE);
    });
  }
});
