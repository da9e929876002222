import { describe, expect, it } from 'vitest';
import { packFileText } from './fileText.js';

const pack = '{"format": "service.setup-pack", "name": "Café"}\n';

describe('packFileText', () => {
  it('decodes UTF-8, with or without its byte order mark, as File.text() does', async () => {
    expect(await packFileText(new Blob([pack]))).toEqual({ text: pack });
    expect(await packFileText(new Blob([new Uint8Array([0xef, 0xbb, 0xbf]), pack]))).toEqual({ text: pack });
  });

  it('names a UTF-16 file instead of decoding it into invalid JSON', async () => {
    const le = new Blob([new Uint8Array([0xff, 0xfe]), Buffer.from(pack, 'utf16le')]);
    expect(await packFileText(le)).toEqual({ error: 'it is UTF-16LE text (it starts with the byte order mark FF FE), and a pack is JSON in UTF-8: save it as UTF-8' });
    expect(await packFileText(new Blob([Buffer.from(pack, 'utf16le').swap16()]))).toEqual({ error: 'it is UTF-16BE text, and a pack is JSON in UTF-8: save it as UTF-8' });
  });

  it('refuses a file saved as Latin-1 rather than open it with its characters replaced', async () => {
    expect(await packFileText(new Blob([Buffer.from(pack, 'latin1')]))).toEqual({ error: expect.stringMatching(/^it is not UTF-8 text: line 1 has bytes that are not UTF-8/) });
  });
});
