import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unstorableText } from '../plan/limits.js';
import { measure } from './parse.js';
import { describePointer, parsePointer, PointerSet, pointerParam, resolvePointer, toPointer, tokenIndex } from './pointer.js';

describe('tokenIndex: the one reading of an array index token', () => {
  it('reads 0 and digits without a leading zero, and nothing else', () => {
    expect([tokenIndex('0'), tokenIndex('7'), tokenIndex('42'), tokenIndex('999999999')]).toEqual([0, 7, 42, 999999999]);
    for (const t of ['', '01', '00', '-1', '1.0', '1e3', ' 1', '1 ', 'x', '0x1', '1234567890']) expect(tokenIndex(t), t).toBe(-1);
  });

  it('agrees with RFC 6901 array-index syntax for any token', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map(String), fc.stringMatching(/^[0-9]{1,12}$/)), (t) => {
        const isIndex = /^(0|[1-9][0-9]*)$/.test(t) && t.length <= 9;
        expect(tokenIndex(t)).toBe(isIndex ? Number(t) : -1);
      }),
    );
  });

  it('is what resolving and describing pointers use', () => {
    const doc = { list: ['a', 'b'] };
    expect(resolvePointer(doc, '/list/1')).toEqual({ found: true, value: 'b' });
    expect(resolvePointer(doc, '/list/01')).toEqual({ found: false });
    expect(resolvePointer(doc, '/list/2')).toEqual({ found: false });
    expect(describePointer('/automations/2/document/graph/nodes/05')).toBe('automations[2].document.graph.nodes["05"]');
  });
});

describe('describePointer', () => {
  it('describes any pointer as its parsed tokens say', () => {
    const reference = (pointer: string) =>
      pointer === ''
        ? 'the pack'
        : parsePointer(pointer).reduce(
            (out, t) =>
              out + (tokenIndex(t) >= 0 ? `[${t}]` : /^[A-Za-z_$][\w$]*$/.test(t) ? (out ? '.' : '') + t : `[${JSON.stringify(t)}]`),
            '',
          );
    const token = fc.oneof(
      fc.constantFrom('automations', 'nodes', '0', '12', '01', '', 'a b', '~', '/', 'x~1y'),
      fc.string({ maxLength: 5 }),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 7 }), (tokens) => {
        const pointer = toPointer(tokens);
        expect(describePointer(pointer)).toBe(reference(pointer));
      }),
      { numRuns: 2000 },
    );
    expect(() => describePointer('no/slash')).toThrow(/Invalid JSON pointer/);
  });
});

describe('resolvePointer', () => {
  it('finds what the parsed tokens lead to, in any document', () => {
    const reference = (doc: unknown, pointer: string) => {
      let cur: unknown = doc;
      for (const t of parsePointer(pointer)) {
        if (Array.isArray(cur)) {
          const i = tokenIndex(t);
          if (i < 0 || i >= cur.length) return { found: false };
          cur = cur[i];
        } else if (cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, t))
          cur = (cur as Record<string, unknown>)[t];
        else return { found: false };
      }
      return { found: true, value: cur };
    };
    const token = fc.oneof(fc.constantFrom('a', 'b', '0', '1', '01', '', '~', '/', '__proto__'), fc.string({ maxLength: 3 }));
    const doc = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.integer(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(token, tie('value'), { maxKeys: 4 }),
      ),
    })).value;
    fc.assert(
      fc.property(doc, fc.array(token, { maxLength: 4 }), (d, tokens) => {
        const pointer = toPointer(tokens);
        expect(resolvePointer(d, pointer)).toEqual(reference(d, pointer));
      }),
      { numRuns: 2000 },
    );
    expect(() => resolvePointer({}, 'a')).toThrow(/Invalid JSON pointer/);
  });
});

describe('pointerParam: the workspace API error param of a place', () => {
  it('is describePointer for a place, and empty for the whole input', () => {
    expect(pointerParam('')).toBe('');
    expect(pointerParam('/emails/0/label')).toBe('emails[0].label');
    expect(pointerParam('/asset_urls/logo~1dark~0')).toBe('asset_urls["logo/dark~"]');
  });

  it('unstorableText looks all the way down, and refuses nesting deeper than a pack may have, at its top field', () => {
    const nest = (depth: number, leaf: unknown) => {
      let v = leaf;
      for (let i = 0; i < depth; i++) v = { x: v };
      return v;
    };
    // A NUL 100 levels down (the walk stopped at 64 before).
    expect(unstorableText({ custom_fields: nest(100, 'a\u0000') })!.what).toBe('contains a NUL character (U+0000)');
    // The body and 511 objects in custom_fields: 512 levels, as deep as a pack may be (core's measure).
    expect(unstorableText({ custom_fields: nest(511, 1) })).toBeNull();
    expect(measure({ custom_fields: nest(511, 1) }).depth).toBe(512);
    expect(unstorableText({ custom_fields: nest(512, 1) })).toEqual({ param: 'custom_fields', what: 'is nested deeper than 512 levels' });
    expect(unstorableText({ custom_fields: nest(5000, 1) })).toEqual({ param: 'custom_fields', what: 'is nested deeper than 512 levels' });
  });

  it('is how unstorableText names what it finds, whatever the keys hold', () => {
    expect(unstorableText({ emails: [{ label: 'a\u0000' }] })).toEqual({
      param: 'emails[0].label',
      what: 'contains a NUL character (U+0000)',
    });
    expect(unstorableText({ custom_fields: { 'a.b/c': 'x\uD800' } })?.param).toBe('custom_fields["a.b/c"]');
    expect(unstorableText({ 'k\u0000': 1 })).toEqual({
      param: '["k\\u0000"]',
      what: 'is a field name that contains a NUL character (U+0000)',
    });
    expect(unstorableText('a\u0000')).toEqual({ param: '', what: 'contains a NUL character (U+0000)' });
    expect(unstorableText({ ok: ['fine'] })).toBeNull();
  });
});

describe('PointerSet', () => {
  const token = fc.constantFrom('a', 'b', 'ab', '0', '1', '10', 'a b', 'a-b', 'a.b', '~0', '~1', '', '!', 'é');
  const pointer = fc.array(token, { maxLength: 4 }).map((tokens) => tokens.map((t) => '/' + t).join(''));
  it('answers hasAtOrBelow as a walk of every pointer does (the pointer itself, or one under it), whatever the order of additions and questions', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            pointer.map((p) => ({ add: p })),
            pointer.map((p) => ({ ask: p })),
          ),
          { maxLength: 40 },
        ),
        (steps) => {
          const set = new PointerSet();
          const added: string[] = [];
          for (const s of steps) {
            if ('add' in s) {
              set.add(s.add);
              added.push(s.add);
            } else expect(set.hasAtOrBelow(s.ask)).toBe(added.some((b) => b === s.ask || b.startsWith(s.ask + '/')));
          }
          expect(set.size).toBe(added.length);
        },
      ),
      { numRuns: 1000 },
    );
  });
  it('says a name that merely starts another is not above it: /a/1 is not under /a/10, nor /a-b under /a', () => {
    const set = new PointerSet();
    set.add('/a/10');
    set.add('/a-b');
    expect(set.hasAtOrBelow('/a/1')).toBe(false);
    expect(set.hasAtOrBelow('/a')).toBe(true);
    expect(set.hasAtOrBelow('/a/10')).toBe(true);
    expect(set.hasAtOrBelow('')).toBe(true);
    expect(new PointerSet().hasAtOrBelow('')).toBe(false);
    const dashed = new PointerSet();
    dashed.add('/a-b');
    dashed.add('/a.b/0');
    expect(dashed.hasAtOrBelow('/a')).toBe(false);
    expect(dashed.hasAtOrBelow('/a.b')).toBe(true);
  });
});
