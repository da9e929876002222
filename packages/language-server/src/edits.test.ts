import { describe, expect, it } from 'vitest';
import { changeBetween, fromVersion, toVersion, type TextChange } from './edits.js';

// Version 1 is "abcdefghij"; version 2 inserts "XY" at 2 ("abXYcdefghij"); version 3 deletes its
// "ef" (6..8), leaving "abXYcdghij".
const changes: TextChange[] = [
  { version: 2, start: 2, end: 2, inserted: 2 },
  { version: 3, start: 6, end: 8, inserted: 0 },
];

describe('offsets over edits', () => {
  it('maps an offset of the current text back to the analysed version, or not at all inside an edit', () => {
    expect(toVersion(0, changes, 1)).toBe(0);
    expect(toVersion(2, changes, 1)).toBe(2); // just before the insertion
    expect(toVersion(3, changes, 1)).toBeUndefined(); // inside "XY"
    expect(toVersion(4, changes, 1)).toBe(2); // "c"
    expect(toVersion(6, changes, 1)).toBe(6); // "g", after the deletion
    expect(toVersion(8, changes, 1)).toBe(8); // "i"
    expect(toVersion(8, changes, 2)).toBe(10); // "i" in version 2's text, before the deletion
  });

  it('maps a span of the analysed version to the current text, unless an edit touched it', () => {
    expect(fromVersion({ start: 0, end: 2 }, changes, 1)).toEqual({ start: 0, end: 2 }); // "ab", before both
    expect(fromVersion({ start: 2, end: 4 }, changes, 1)).toEqual({ start: 4, end: 6 }); // "cd", moved by "XY"
    expect(fromVersion({ start: 8, end: 10 }, changes, 1)).toEqual({ start: 8, end: 10 }); // "ij": +2, then -2
    expect(fromVersion({ start: 5, end: 7 }, changes, 1)).toBeUndefined(); // "fg": partly deleted
    expect(fromVersion({ start: 2, end: 4 }, changes, 3)).toEqual({ start: 2, end: 4 }); // no edit since version 3
  });

  it('reads a whole new text as the one edit between the common start and end', () => {
    expect(changeBetween('abcdef', 'abXYef', 2)).toEqual({ version: 2, start: 2, end: 4, inserted: 2 });
    expect(changeBetween('abc', 'abc', 2)).toEqual({ version: 2, start: 3, end: 3, inserted: 0 });
    expect(changeBetween('aaa', 'aaaa', 2)).toEqual({ version: 2, start: 3, end: 3, inserted: 1 });
    expect(changeBetween('abc', '', 2)).toEqual({ version: 2, start: 0, end: 3, inserted: 0 });
  });
});
