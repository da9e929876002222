// The email template preview in headless Chromium, against a real local HTTP server that counts
// the requests it gets: opening a pack's template must not contact the servers its HTML names
// (a remote image is a tracking pixel) until the author asks for the remote images of that preview,
// and the pack's own email images show from the bytes it carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { repoRoot } from './support/harness.mjs';
import { artifacts, openFileText, poll, useEditor } from './support/editor.js';

const editor = useEditor('editor template preview');

/** A 1×1 GIF: what the server answers for an image, and the bytes of the pack's own email image. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
let server: Server;
let base = '';
/** Requests the server got, by path. */
const hits = new Map<string, number>();
const hitsOf = (path: string) => hits.get(path) ?? 0;
const total = () => [...hits.values()].reduce((a, b) => a + b, 0);

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, hitsOf(path) + 1);
    if (path.endsWith('.gif')) res.writeHead(200, { 'content-type': 'image/gif', 'cache-control': 'no-store' }).end(GIF);
    else if (path.endsWith('.css')) res.writeHead(200, { 'content-type': 'text/css', 'cache-control': 'no-store' }).end('p { color: red }');
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** The starter pack with an email template naming remote resources of every kind, and an email image the pack carries. */
function trackingPack() {
  const pack = JSON.parse(readFileSync(join(repoRoot, 'fixtures/valid/buyer-lead-starter.json'), 'utf8'));
  pack.assets = [
    {
      key: 'hero',
      role: 'email_image',
      fileName: 'hero.gif',
      mimeType: 'image/gif',
      byteSize: GIF.length,
      sha256: createHash('sha256').update(GIF).digest('hex'),
      data: GIF.toString('base64'),
      sourceUrl: `${base}/embedded/hero.gif`,
    },
  ];
  const tpl = pack.messageTemplates.find((t: { key: string }) => t.key === 'tpl-follow-up');
  tpl.body =
    `<!DOCTYPE html><html><head><link rel="stylesheet" href="${base}/style.css"><style>@import url("${base}/import.css"); .x { background: url(${base}/bg.gif) }</style>` +
    `<meta http-equiv="refresh" content="0; url=${base}/refresh"></head><body><p>Hi {{contact.first_name}},</p>` +
    `<img id="pixel" src="${base}/pixel.gif?to={{contact.first_name}}" width="1" height="1"><img id="hero" src="${base}/embedded/hero.gif" alt="Hero">` +
    `<div class="x">x</div><table background="${base}/table.gif"><tr><td style="background-image: url('${base}/cell.gif')">c</td></tr></table></body></html>`;
  return pack;
}

/** The preview's frame once its document (and whatever it was allowed to load) has loaded. */
async function previewFrame(page: Page, marker: string): Promise<Frame> {
  let frame: Frame | undefined;
  await poll(async () => {
    frame = page.frames().find((f) => f !== page.mainFrame());
    return frame
      ? frame.evaluate((m) => document.readyState === 'complete' && !!document.querySelector(m), marker).catch(() => false)
      : false;
  }).toBe(true);
  return frame!;
}

describe.skipIf(editor.missing)(editor.title, () => {
  it('loads nothing remote until asked: zero requests to the servers a template names, its own email image shown from the pack; Load remote images fetches the images of that preview only', async () => {
    const { page, errors } = await editor.page('');
    await openFileText(page, 'tracking.json', `${JSON.stringify(trackingPack(), null, 2)}\n`);
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="messageTemplates/tpl-follow-up"]').click();
    const frame = await previewFrame(page, '#pixel');
    // The pack's own image is there, from its bytes; nothing reached the server.
    expect(
      await frame.evaluate(() => {
        const img = document.querySelector<HTMLImageElement>('#hero')!;
        return [img.complete, img.naturalWidth, img.src.slice(0, 22)];
      }),
    ).toEqual([true, 1, 'data:image/gif;base64,']);
    expect(await frame.evaluate(() => document.querySelector<HTMLImageElement>('#pixel')!.naturalWidth)).toBe(0);
    expect(Object.fromEntries(hits)).toEqual({});
    const note = page.getByTestId('remote-blocked');
    expect(await note.textContent()).toBe(
      '7 remote resources blocked (4 images): opening this preview contacted no server. Load remote images',
    );
    await page.screenshot({ path: join(artifacts, 'preview-blocked.png') });

    // Asked: the images come (the pixel, the CSS backgrounds, the table's), nothing else does.
    await note.getByRole('button', { name: 'Load remote images' }).click();
    await poll(() => hitsOf('/pixel.gif')).toBe(1);
    const loaded = await previewFrame(page, '#pixel');
    await poll(() => loaded.evaluate(() => document.querySelector<HTMLImageElement>('#pixel')!.naturalWidth)).toBe(1);
    await poll(() => hitsOf('/cell.gif') + hitsOf('/table.gif') + hitsOf('/bg.gif')).toBe(3);
    expect(hitsOf('/style.css') + hitsOf('/import.css') + hitsOf('/refresh') + hitsOf('/embedded/hero.gif')).toBe(0);
    await poll(() => note.textContent()).toBe(
      'Remote images loaded for this preview (4 images); 3 other remote resources (stylesheets, fonts, frames…) still blocked.',
    );

    // For that preview only: another template, then this one again, blocks them again.
    const seen = total();
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="messageTemplates/tpl-welcome-sms"]').click();
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="messageTemplates/tpl-follow-up"]').click();
    await previewFrame(page, '#pixel');
    await poll(() => note.textContent()).toBe(
      '7 remote resources blocked (4 images): opening this preview contacted no server. Load remote images',
    );
    expect(total()).toBe(seen);
    expect(errors).toEqual([]);
  });

  it("shows a fixture's email image from the bytes the pack carries, with nothing to block", async () => {
    const { page, errors } = await editor.open('?pack=/fixtures/valid/listing-marketing.json');
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="messageTemplates/open-house-invite"]').click();
    const frame = await previewFrame(page, 'img');
    expect(
      await frame.evaluate(() => {
        const img = document.querySelector('img')!;
        return [img.complete, img.naturalWidth > 0, img.src.slice(0, 22)];
      }),
    ).toEqual([true, true, 'data:image/png;base64,']);
    expect(await page.getByTestId('remote-blocked').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('counts what the HTML names because the browser cannot say what it blocked in the preview frame: no script runs there, its document is closed to the editor, and the sandbox that would let a listener run lets a meta refresh reach the server', async () => {
    const { page, errors } = await editor.page('');
    const seen = total();
    const pack = trackingPack();
    const tpl = pack.messageTemplates.find((t: { key: string }) => t.key === 'tpl-follow-up');
    // A script that would report the policy's violations to the editor, as a listener inside the frame must.
    tpl.body = tpl.body.replace(
      '<body>',
      `<body><script>addEventListener('securitypolicyviolation', (e) => parent.postMessage({ blocked: e.blockedURI }, '*')); parent.postMessage({ ran: true }, '*');</script>`,
    );
    await page.evaluate(() => {
      (window as unknown as { heard: unknown[] }).heard = [];
      addEventListener('message', (e) => (window as unknown as { heard: unknown[] }).heard.push(e.data));
    });
    await openFileText(page, 'tracking.json', `${JSON.stringify(pack, null, 2)}\n`);
    await page.getByRole('navigation', { name: 'Pack items' }).locator('[data-item="messageTemplates/tpl-follow-up"]').click();
    await previewFrame(page, '#pixel');
    const note = page.getByTestId('remote-blocked');
    await poll(() => note.textContent()).toMatch(/^7 remote resources blocked \(4 images\)/);
    // Nothing reached the editor from inside the frame, and the editor cannot look in.
    expect(await page.evaluate(() => (window as unknown as { heard: unknown[] }).heard)).toEqual([]);
    expect(
      await page
        .locator('iframe[title="Merge-tag preview"]')
        .evaluate((f: HTMLIFrameElement) => f.contentDocument === null && f.getAttribute('sandbox') === ''),
    ).toBe(true);
    expect(total()).toBe(seen);

    // The same document in a frame whose sandbox lets scripts run (as a listener let in by a nonce
    // would need): the meta refresh then navigates the frame to the author's server, which the
    // policy does not stop.
    const shown = await page.locator('iframe[title="Merge-tag preview"]').getAttribute('srcdoc');
    await page.evaluate((srcdoc) => {
      const f = document.createElement('iframe');
      f.setAttribute('sandbox', 'allow-scripts');
      f.srcdoc = srcdoc!;
      document.body.append(f);
    }, shown);
    await poll(() => hitsOf('/refresh')).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
