import { describe, expect, it } from 'vitest';
import { lostOnOpen, packFileText } from './fileText.js';

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

describe('lostOnOpen', () => {
  it('says what a parsed copy cannot keep of the text (a property said twice, a long integer), in core\'s words, and nothing for a clean file', () => {
    expect(lostOnOpen(pack)).toBeUndefined();
    const twice = '{\n  "format": "service.setup-pack",\n  "name": "A",\n  "name": "B"\n}\n';
    expect(lostOnOpen(twice)).toBe('This file says what the editor cannot keep as written: line 4: The property "name" appears more than once in this object; only the last one counts. Editing and exporting keep the pack as it reads.');
    const both = '{\n  "name": "A",\n  "name": "B",\n  "n": 12345678901234567890\n}\n';
    // The first place in the text, whichever kind of finding it is (the parser lists repeated names first).
    const numberFirst = '{\n  "n": 12345678901234567890,\n  "name": "A",\n  "name": "B"\n}\n';
    expect(lostOnOpen(numberFirst)).toMatch(/^This file says what the editor cannot keep as written: line 2: n is the number 12345678901234567890, with more digits than a JSON number keeps here .* Also 1 other place\. Editing and exporting keep the pack as it reads\.$/);
    expect(lostOnOpen(both)).toMatch(/^This file says what the editor cannot keep as written: line 3: The property "name" appears more than once in this object; only the last one counts\. Also 1 other place\. Editing and exporting keep the pack as it reads\.$/);
  });
});
