// "Open in Setup Pack editor" hands the pack to the web editor at an address of the extension's own:
// the text as given, to any origin (the editor is another), only under its token, only by GET.
import { afterAll, describe, expect, it } from 'vitest';
import { editorAddress, HandOff } from '../src/hand-off.js';

const handOff = new HandOff();
afterAll(() => handOff.close());

describe('the hand-off to the web editor', () => {
  it("serves each pack at an address of its own, to the editor's origin", async () => {
    const text = '{ "format": "service.setup-pack", "name": "Ünïcode ✓" }\n';
    const url = await handOff.offer('starter.json', text);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{32}\/starter\.json$/);
    const res = await fetch(url, { headers: { origin: 'http://127.0.0.1:5173' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.text()).toBe(text);
    const other = await handOff.offer('starter.json', '{}');
    expect(other).not.toBe(url);
    expect(await (await fetch(url)).text()).toBe(text);
  });

  it('answers nothing but the packs it was given', async () => {
    const url = new URL(await handOff.offer('a.json', '{}'));
    const guessed = await fetch(`${url.origin}/${'0'.repeat(32)}/a.json`);
    expect(guessed.status).toBe(404);
    expect(await guessed.text()).toContain('No pack at this address');
    expect((await fetch(url, { method: 'POST', body: 'x' })).status).toBe(405);
  });

  it('keeps the latest 20 packs', async () => {
    const first = await handOff.offer('first.json', '{"n":0}');
    for (let i = 1; i <= 20; i++) await handOff.offer(`p${i}.json`, `{"n":${i}}`);
    expect((await fetch(first)).status).toBe(404);
  });

  it('opens the editor at its configured address with ?pack=', () => {
    const address = new URL(editorAddress('http://127.0.0.1:5173/', 'http://127.0.0.1:4000/abc/p.json'));
    expect(address.origin + address.pathname).toBe('http://127.0.0.1:5173/');
    expect(address.searchParams.get('pack')).toBe('http://127.0.0.1:4000/abc/p.json');
    expect(new URL(editorAddress('https://editor.example/app?theme=dark', 'http://x/p.json')).searchParams.get('theme')).toBe('dark');
    expect(() => editorAddress('file:///tmp/editor', 'http://x/p.json')).toThrow(
      "setupPack.editorUrl must be the web editor's address (http or https)",
    );
    expect(() => editorAddress('not a url', 'http://x/p.json')).toThrow('not "not a url"');
  });
});
