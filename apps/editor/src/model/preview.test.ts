import { describe, expect, it } from 'vitest';
import { cssAddresses, embedEmailImages, PREVIEW_CSP, withPolicy, type RemoteResources } from './preview.js';

describe('template preview', () => {
  it("puts the policy first, after a doctype so the rendering mode stays the author's", () => {
    const meta = `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}">`;
    expect(withPolicy('<p>Hi</p>', PREVIEW_CSP)).toBe(`${meta}<p>Hi</p>`);
    expect(withPolicy(' <!DOCTYPE html><html><p>Hi</p>', PREVIEW_CSP)).toBe(` <!DOCTYPE html>${meta}<html><p>Hi</p>`);
  });

  it('shows the email images the pack carries from their bytes, where the template writes their sourceUrl; not images without bytes, nor other roles', () => {
    const assets = [
      { key: 'a', role: 'email_image', mimeType: 'image/png', data: 'AAAA', sourceUrl: 'https://cdn.test/a.png' },
      { key: 'b', role: 'email_image', mimeType: 'image/png', sourceUrl: 'https://cdn.test/b.png', url: 'https://copy.test/b.png' },
      { key: 'c', role: 'logo', mimeType: 'image/png', data: 'BBBB' },
    ];
    expect(
      embedEmailImages('<img src="https://cdn.test/a.png"><img src="https://cdn.test/a.png"><img src="https://cdn.test/b.png">', assets),
    ).toBe('<img src="data:image/png;base64,AAAA"><img src="data:image/png;base64,AAAA"><img src="https://cdn.test/b.png">');
    expect(embedEmailImages('<p>x</p>', 'not a list')).toBe('<p>x</p>');
  });

  it('tells the images a stylesheet loads from its imports and fonts', () => {
    const found: RemoteResources = { images: [], other: [] };
    cssAddresses(
      `@import url("https://a.test/x.css"); @import 'https://a.test/y.css'; @font-face { src: url(https://a.test/f.woff) } p { background: url( 'https://a.test/bg.png' ) } q { background: url(data:image/png;base64,AA) }`,
      found,
    );
    expect(found).toEqual({
      images: ['https://a.test/bg.png'],
      other: ['https://a.test/x.css', 'https://a.test/y.css', 'https://a.test/f.woff'],
    });
  });
});
