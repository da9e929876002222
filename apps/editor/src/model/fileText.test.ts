import { describe, expect, it } from 'vitest';
import {
  duplicatesDropped,
  duplicatesStillThere,
  jsonTextNotKept,
  lostOnOpen,
  lostOnOpenBanner,
  numbersRewritten,
  numbersStillRead,
  numberTextRead,
  packFileText,
  followLost,
  followPointer,
} from './fileText.js';
import type { PackValue } from './pack.js';

const pack = '{"format": "service.setup-pack", "name": "Café"}\n';

describe('packFileText', () => {
  it('decodes UTF-8, with or without its byte order mark, as File.text() does', async () => {
    expect(await packFileText(new Blob([pack]))).toEqual({ text: pack });
    expect(await packFileText(new Blob([new Uint8Array([0xef, 0xbb, 0xbf]), pack]))).toEqual({ text: pack });
  });

  it('names a UTF-16 file instead of decoding it into invalid JSON', async () => {
    const le = new Blob([new Uint8Array([0xff, 0xfe]), Buffer.from(pack, 'utf16le')]);
    expect(await packFileText(le)).toEqual({
      error: 'it is UTF-16LE text (it starts with the byte order mark FF FE), and a pack is JSON in UTF-8: save it as UTF-8',
    });
    expect(await packFileText(new Blob([Buffer.from(pack, 'utf16le').swap16()]))).toEqual({
      error: 'it is UTF-16BE text, and a pack is JSON in UTF-8: save it as UTF-8',
    });
  });

  it('refuses a file saved as Latin-1 rather than open it with its characters replaced', async () => {
    expect(await packFileText(new Blob([Buffer.from(pack, 'latin1')]))).toEqual({
      error: expect.stringMatching(/^it is not UTF-8 text: line 1 has bytes that are not UTF-8/),
    });
  });
});

describe('lostOnOpen', () => {
  const banner = (text: string) => lostOnOpenBanner(lostOnOpen(text));

  it("says what a parsed copy cannot keep of the text (a property said twice, a long integer), in core's words, and nothing for a clean file", () => {
    expect(banner(pack)).toBeUndefined();
    expect(lostOnOpen(pack)).toEqual({ findings: [], numbers: [], duplicates: [] });
    const twice = '{\n  "format": "service.setup-pack",\n  "name": "A",\n  "name": "B"\n}\n';
    expect(banner(twice)).toBe(
      'This file says what the editor cannot keep as written: line 4: The property "name" appears more than once in this object; only the last one counts. Editing keeps the pack as it reads; the findings list each place, and exporting an edited pack asks before writing it as it reads.',
    );
    const both = '{\n  "name": "A",\n  "name": "B",\n  "n": 12345678901234567890\n}\n';
    // The first place in the text, whichever kind of finding it is (the parser lists repeated names first).
    const numberFirst = '{\n  "n": 12345678901234567890,\n  "name": "A",\n  "name": "B"\n}\n';
    expect(banner(numberFirst)).toMatch(
      /^This file says what the editor cannot keep as written: line 2: n is the number 12345678901234567890, with more digits than a JSON number keeps here .* Also 1 other place\. Editing keeps the pack as it reads; the findings list each place, and exporting an edited pack asks before writing it as it reads\.$/,
    );
    expect(banner(both)).toMatch(
      /^This file says what the editor cannot keep as written: line 3: The property "name" appears more than once in this object; only the last one counts\. Also 1 other place\. Editing keeps/,
    );
  });

  it("finds the fractions and the numbers near 0 a float does not keep (core's numbersNotKept) with the long integers, each placed, as written and as read", () => {
    const text =
      '\ufeff{\n  "a": [1.0, 1e-400],\n  "b": {"p": 0.1000000000000000055511151231257827, "q": 12345678901234567890},\n  "c": -1e-400\n}\n';
    const lost = lostOnOpen(text);
    expect(lost.findings.map((d) => [d.code, d.pointer, d.line, d.column])).toEqual([
      ['json/number-precision', '/a/1', 2, 14],
      ['json/number-precision', '/b/p', 3, 14],
      ['json/number-precision', '/b/q', 3, 57],
      ['json/number-precision', '/c', 4, 8],
    ]);
    expect(lost.numbers.map((n) => [n.written, n.reads])).toEqual([
      ['1e-400', 0],
      ['0.1000000000000000055511151231257827', 0.1],
      ['12345678901234567890', 12345678901234567000],
      ['-1e-400', -0],
    ]);
    expect(lost.numbers.map((n) => n.finding)).toEqual(lost.findings);
    expect(lost.findings[0]!.message).toBe(
      'a[1] is the number 1e-400, closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0, and would be installed and exported so.',
    );
    expect(banner(text)).toMatch(
      /^This file says what the editor cannot keep as written: line 2: a\[1\] is the number 1e-400, .* Also 3 other places\./,
    );
    // Text JSON.parse refuses loses nothing: it is not opened.
    expect(lostOnOpen('{"a": 1e-400,')).toEqual({ findings: [], numbers: [], duplicates: [] });
  });
});

describe('numbersStillRead and numbersRewritten', () => {
  const text = '{\n  "stages": [{"probability": 30.0000000000000000001}, {"probability": 1e-400}]\n}\n';
  const { numbers } = lostOnOpen(text);
  const opened = JSON.parse(text) as PackValue;

  it("keeps the numbers whose places still hold what they read as; a place given another value, or removed, is the author's word", () => {
    expect(numbersStillRead(opened, numbers)).toEqual(numbers);
    const retyped = { stages: [{ probability: 35 }, { probability: 0 }] };
    expect(numbersStillRead(retyped, numbers)).toEqual([numbers[1]]);
    expect(numbersStillRead({ stages: [{ probability: '30.0000000000000000001' }] }, numbers)).toEqual([]);
    // The answer before, when it holds the same numbers (so the findings shown stay the same array).
    const before = numbersStillRead(retyped, numbers);
    expect(numbersStillRead({ stages: [{ probability: 36 }, { probability: 0 }] }, numbers, before)).toBe(before);
    expect(numbersStillRead(opened, numbers, before)).not.toBe(before);
  });

  it('names each number as written, its place and what export writes for it', () => {
    expect(numbersRewritten([])).toBeUndefined();
    expect(numbersRewritten(numbers)).toBe(
      'The file this pack was opened from has 2 numbers that the editor reads as another, and exporting writes the number it reads:\n' +
        '30.0000000000000000001 at stages[0].probability will be written as 30\n' +
        '1e-400 at stages[1].probability will be written as 0\n' +
        'To write another, type it in its field; a string keeps every digit.',
    );
    expect(numbersRewritten(numbers, 1)).toContain('30.0000000000000000001 at stages[0].probability will be written as 30\nand 1 more\n');
  });
});

describe('duplicatesStillThere and duplicatesDropped', () => {
  const text =
    '{\n  "name": "A",\n  "name": "B",\n  "stages": [\n    {"probability": 10, "probability": 20, "probability": 30}\n  ],\n  "brand": {"x": 1},\n  "brand": {"x": 2}\n}\n';
  const { duplicates, findings } = lostOnOpen(text);
  const opened = JSON.parse(text) as PackValue;

  it("are core's json/duplicate-key findings, in the text's order, among what opening loses, each with the value it reads as", () => {
    expect(duplicates.map((d) => [d.finding.code, d.finding.pointer, d.finding.line, d.reads])).toEqual([
      ['json/duplicate-key', '/name', 3, 'B'],
      ['json/duplicate-key', '/stages/0/probability', 5, 30],
      ['json/duplicate-key', '/stages/0/probability', 5, 30],
      ['json/duplicate-key', '/brand', 8, undefined],
    ]);
    expect(duplicates.every((d) => findings.includes(d.finding))).toBe(true);
    expect(duplicates[0]!.finding.message).toBe('The property "name" appears more than once in this object; only the last one counts.');
  });

  it("keeps those whose place still holds the value it read as; another value typed there, or the property removed, is the author's word", () => {
    expect(duplicatesStillThere(opened, duplicates)).toEqual(duplicates);
    expect(duplicatesStillThere({ ...opened, name: 'C' }, duplicates)).toEqual(duplicates.slice(1));
    const { name: _, ...noName } = opened;
    expect(duplicatesStillThere(noName as PackValue, duplicates)).toEqual(duplicates.slice(1));
    // An object or array edited inside says nothing of the earlier one: asked about while it is there.
    expect(duplicatesStillThere({ ...opened, brand: { x: 3, y: 1 } }, duplicates)).toEqual(duplicates);
    expect(duplicatesStillThere({ stages: [{}] }, duplicates)).toEqual([]);
    const before = duplicatesStillThere(noName as PackValue, duplicates);
    expect(duplicatesStillThere({ ...(noName as PackValue), version: '2' }, duplicates, before)).toBe(before);
    expect(duplicatesStillThere(opened, duplicates, before)).not.toBe(before);
  });

  it('names each property written more than once, where, and the lines export drops', () => {
    expect(duplicatesDropped([])).toBeUndefined();
    expect(duplicatesDropped(duplicates)).toBe(
      'The file this pack was opened from writes 3 properties more than once; the editor keeps the last of each, and exporting writes only that:\n' +
        'name (written 2 times): the last, at line 3, is written; the earlier, at line 2, is dropped\n' +
        'stages[0].probability (written 3 times): the last, at line 5, is written; the earlier, at line 5, are dropped\n' +
        'brand (written 2 times): the last, at line 8, is written; the earlier, at line 7, is dropped\n' +
        'To keep an earlier value, copy it from the file into its field.',
    );
    expect(duplicatesDropped(duplicates, 1)).toContain(
      'name (written 2 times): the last, at line 3, is written; the earlier, at line 2, is dropped\nand 2 more\n',
    );
  });
});

describe('jsonTextNotKept', () => {
  it("says why JSON typed or pasted into a field is not taken: what the editor would not keep as written, in core's words and hint", () => {
    expect(jsonTextNotKept('{"accent": 1e-400}')).toBe(
      'Not applied: this JSON says what the editor cannot keep as written: line 1: accent is the number 1e-400, closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0, and would be installed and exported so. Write 0 if that is what it means; else write it as a string, which keeps every digit.',
    );
    expect(jsonTextNotKept('{\n"a": 1,\n"a": 2, "n": 12345678901234567890}')).toBe(
      'Not applied: this JSON says what the editor cannot keep as written: line 3: The property "a" appears more than once in this object; only the last one counts. Also 1 other place. Remove or merge the duplicate property.',
    );
    for (const text of ['{"accent": 0, "x": 1.5e-7, "y": "1e-400"}', '[1.0, 1E+2, 0.50]', '', 'not json'])
      expect(jsonTextNotKept(text)).toBeUndefined();
  });

  it('does not take a number beyond what a float holds (1e400 would be Infinity, exported as null), as a number field does not', () => {
    expect(jsonTextNotKept('{"accent": 1e400}', '/brand')).toMatch(
      /^Not applied: this JSON says what the editor cannot keep as written: line 1: brand\.accent is the number 1e400, beyond what a JSON number can hold here \(a 64-bit float\); it would be read as Infinity and installed as null\./,
    );
    expect(jsonTextNotKept('[-1e400]')).toMatch(/line 1: \[0\] is the number -1e400, beyond/);
    expect(numberTextRead('1e400', '/brand/accent')).toEqual({
      error: expect.stringContaining(
        jsonTextNotKept('{"accent": 1e400}', '/brand')!
          .replace(/^.*line 1: /, '')
          .replace(/ Write .*$/, ''),
      ),
    });
  });

  it("names a number by the field's place in the pack when given it, as the panel names it in a file that writes it there", () => {
    expect(jsonTextNotKept('{"x": [1, 1e-400]}', '/automations/2/document/graph/nodes/4/config')).toMatch(
      /^Not applied: this JSON says what the editor cannot keep as written: line 1: automations\[2\]\.document\.graph\.nodes\[4\]\.config\.x\[1\] is the number 1e-400, closer to 0/,
    );
    expect(jsonTextNotKept('{"x": 1e-400}', '/brand')).toContain(lostOnOpen('{"brand": {"x": 1e-400}}').findings[0]!.message);
  });
});

describe('numberTextRead', () => {
  it('sets what a number field holds when a float keeps it as written, and removes the field when emptied', () => {
    for (const [text, value] of [
      ['12', 12],
      [' -0.5 ', -0.5],
      ['2.5e-3', 0.0025],
      ['1E+2', 100],
      ['1e23', 1e23],
      ['', undefined],
      ['  ', undefined],
    ] as const)
      expect(numberTextRead(text, '/config/duration'), text).toEqual({ value });
  });

  it("does not apply a number the editor would not keep, in core's words named by the field, nor text that is no number", () => {
    expect(numberTextRead('1e-400', '/config/duration')).toEqual({
      error:
        'Not applied: config.duration is the number 1e-400, closer to 0 than a JSON number can hold here (a 64-bit float); it reads as 0, and would be installed and exported so. Write 0 if that is what it means; else write it as a string, which keeps every digit.',
    });
    expect(numberTextRead('1e400', '/stages/1/probability')).toEqual({
      error: expect.stringMatching(/^Not applied: stages\[1\]\.probability is the number 1e400, beyond what a JSON number can hold here/),
    });
    expect(numberTextRead('9007199254740993', '/x')).toEqual({ error: expect.stringContaining('it reads as 9007199254740992') });
    for (const text of ['-', '1e', '.5', 'abc', '0x10'])
      expect(numberTextRead(text, '/x'), text).toEqual({ error: 'Not applied: enter a number, as JSON writes one (12, -0.5, 2.5e-3).' });
  });

  it("does not apply a number of a type its schema property does not allow, in the schema's words; its limits are left to the findings", () => {
    const rule = { schema: 'stage', property: 'probability' };
    expect(numberTextRead('12.5', '/pipelines/0/stages/1/probability', rule)).toEqual({
      error: 'Not applied: pipelines[0].stages[1].probability must be an integer, not a number.',
    });
    expect(numberTextRead('12.5', '/pipelines/0/stages/1/probability')).toEqual({ value: 12.5 });
    for (const [text, value] of [
      ['35', 35],
      ['1e1', 10],
      ['150', 150],
      ['-1', -1],
      ['12.0', 12],
      ['', undefined],
    ] as const)
      expect(numberTextRead(text, '/p', rule), text).toEqual({ value });
  });
});

describe('followPointer and followLost', () => {
  const a0 = { key: 'a0', config: { x: 1 } };
  const a1 = { key: 'a1', config: { x: 2 } };
  const a2 = { key: 'a2', config: { x: 3 } };
  const a3 = { key: 'a3', config: { x: 4 } };
  const before = { automations: [a0, a1, a2, a3], n: [5, 0, 7] };

  it('follows an item when items before it are removed or moved, and is undefined once the item is gone', () => {
    expect(followPointer(before, { ...before, automations: [a1, a2, a3] }, '/automations/2/config')).toBe('/automations/1/config');
    expect(followPointer(before, { ...before, automations: [a2, a0, a1, a3] }, '/automations/2/config')).toBe('/automations/0/config');
    expect(followPointer(before, { ...before, automations: [a0, a1, a3] }, '/automations/2/config')).toBeUndefined();
    // The item itself edited: the items the edit left around it place it.
    const edited = { ...a2, config: { x: 30 } };
    expect(followPointer(before, { ...before, automations: [a0, a1, edited, a3] }, '/automations/2/config')).toBe('/automations/2/config');
    // A number in an array: placed by the numbers around it.
    expect(followPointer(before, { ...before, n: [0, 7] }, '/n/1')).toBe('/n/0');
    expect(followPointer(before, { ...before, n: [5, 7] }, '/n/1')).toBeUndefined();
    expect(followPointer(before, { ...before, n: [4, 5, 0, 7] }, '/n/1')).toBe('/n/2');
    // A property removed: gone.
    expect(followPointer(before, { ...before, automations: [a0, a1, { key: 'a2' }, a3] }, '/automations/2/config')).toBeUndefined();
  });

  it('moves each finding with its item, naming its new place, and keeps the same array when nothing moved', () => {
    const text = '{"automations": [{"key": "a0"}, {"key": "a1", "config": {"x": 1}, "config": {"x": 2, "w": 1e-400}}]}';
    const lost = lostOnOpen(text);
    const opened = JSON.parse(text);
    expect(lost.duplicates.map((d) => d.finding.pointer)).toEqual(['/automations/1/config']);
    const removed = { automations: [opened.automations[1]] };
    const [dup] = followLost(opened, removed, lost.duplicates);
    expect(dup!.finding.pointer).toBe('/automations/0/config');
    expect(dup!.finding.related![0]!.pointer).toBe('/automations/0/config');
    const [num] = followLost(opened, removed, lost.numbers);
    expect(num!.finding.pointer).toBe('/automations/0/config/w');
    expect(num!.finding.message).toMatch(/^automations\[0\]\.config\.w is the number 1e-400, closer to 0/);
    expect(num!.finding.line).toBe(lost.numbers[0]!.finding.line);
    expect(followLost(opened, { automations: [] }, lost.duplicates)).toEqual([]);
    const renamed = { ...opened, name: 'x' };
    expect(followLost(opened, renamed, lost.numbers)).toBe(lost.numbers);
  });
});
