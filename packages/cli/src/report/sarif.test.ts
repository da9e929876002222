// SARIF fingerprints: FNV-1a 128 grown token by token. fnv128 must be the published hash of the
// text's UTF-8 bytes, from any state and any slice; StablePaths resumes each pointer from the one
// before, and whatever the order of the pointers, each must get the hash of the path a walk from
// the root gives; Fingerprints must count repeats of one code and stable path.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unescapeToken } from '@setup-pack/core';
import { Fingerprints, FNV128_BASIS, fnv128, hex128, StablePaths } from './sarif.js';

/** FNV-1a 128 of the UTF-8 bytes of `text`, in BigInt arithmetic as the algorithm is published. */
function fnvReference(text: string): string {
  let h = 0x6c62272e07bb014262b821756295c58dn;
  const prime = (1n << 88n) + 0x13bn;
  for (const byte of Buffer.from(text, 'utf8')) h = ((h ^ BigInt(byte)) * prime) & ((1n << 128n) - 1n);
  return h.toString(16).padStart(32, '0');
}

/** fnv128 of `text` from the offset basis, as hex. */
function fnvHex(text: string): string {
  const s = new Int32Array(8);
  s.set(FNV128_BASIS);
  fnv128(s, 0, s, 0, text, 0, text.length);
  return hex128(s, 0);
}

/** The stable path of one pointer, walked from the root. */
function walk(root: unknown, pointer: string): string {
  if (pointer === '' || !pointer.startsWith('/')) return pointer;
  let path = '';
  let cur = root;
  for (const raw of pointer.slice(1).split('/')) {
    const token = unescapeToken(raw);
    // RFC 6901: an array index is 0 or digits without a leading zero ("01" names no element).
    if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(token)) {
      const el: unknown = cur[Number(token)];
      const o = el !== null && typeof el === 'object' ? (el as Record<string, unknown>) : undefined;
      path +=
        typeof o?.key === 'string'
          ? `[key=${JSON.stringify(o.key)}]`
          : typeof o?.id === 'string'
            ? `[id=${JSON.stringify(o.id)}]`
            : `[${token}]`;
      cur = el;
    } else {
      path += `/${raw}`;
      cur =
        cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, token)
          ? (cur as Record<string, unknown>)[token]
          : undefined;
    }
  }
  return path;
}

const root = {
  automations: [
    { key: 'welcome', document: { graph: { nodes: [{ id: 'n1', config: { 'a/b': 1, '~x': [1, 2] } }, { config: {} }] } } },
    { key: 'second', document: { graph: { nodes: [{ id: 'n1' }] } } },
    { name: 'no key' },
    { key: 'welcome', name: "a second item with the first one's key: the same stable path" },
  ],
  name: 'x',
};
const pointers = [
  '',
  '/',
  '/name',
  '/automations',
  '/automations/0',
  '/automations/1',
  '/automations/2',
  '/automations/2/name',
  '/automations/9',
  '/automations/0/document/graph/nodes/0/config/a~1b',
  '/automations/0/document/graph/nodes/0/config/~0x/1',
  '/automations/0/document/graph/nodes/1/config',
  '/automations/1/document/graph/nodes/0',
  '/automations/01',
  '/automations/3',
  '/automations/3/name',
  '/automations/0/name',
  '/automations/0/document/graph/nodes/0/config/missing/deeper',
  'not a pointer',
  '/name/0',
];

describe('fnv128', () => {
  it('is FNV-1a 128 of the UTF-8 bytes (the published test vectors, and surrogates as Buffer.from encodes them)', () => {
    expect(fnvHex('')).toBe('6c62272e07bb014262b821756295c58d');
    expect(fnvHex('a')).toBe('d228cb696f1a8caf78912b704e4a8964');
    expect(fnvHex('foobar')).toBe('343e1662793c64bf6f0d3597ba446f18');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 30 }), (text) => {
        expect(fnvHex(text)).toBe(fnvReference(text));
      }),
      { numRuns: 500 },
    );
  });

  it('continues from a state, over a slice of the text, into another array', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.string({ unit: 'binary', maxLength: 20 }),
        fc.string({ maxLength: 5 }),
        (a, b, pad) => {
          const first = new Int32Array(16);
          first.set(FNV128_BASIS, 8);
          fnv128(first, 8, first, 8, a, 0, a.length);
          const second = new Int32Array(8);
          const text = `${pad}${b}${pad}`;
          fnv128(first, 8, second, 0, text, pad.length, pad.length + b.length);
          expect(hex128(second, 0)).toBe(fnvReference(a + b));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('StablePaths', () => {
  it('gives each pointer the hash of the seed and the path a walk from the root gives, in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pointers), { maxLength: 40 }), (list) => {
        const paths = new StablePaths(root, 'p.json\u0000');
        expect(list.map((p) => hex128(paths.states, paths.of(p)))).toEqual(list.map((p) => fnvReference(`p.json\u0000${walk(root, p)}`)));
      }),
    );
  });
});

describe('Fingerprints', () => {
  const codes = ['graph/cycle', 'pack/duplicate-key'];
  const finding = fc.record({ code: fc.constantFrom(...codes), pointer: fc.constantFrom(...pointers) });

  it('hashes the file, the stable path, the code and how many findings before had the same code and stable path', () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 60 }), (list) => {
        const prints = new Fingerprints(root, 'p.json', list.length);
        const got = list.map((f) => prints.of(f.pointer, `\u0000${f.code}\u0000`));
        const seen = new Map<string, number>();
        const want = list.map((f) => {
          const key = `p.json\u0000${walk(root, f.pointer)}\u0000${f.code}\u0000`;
          const n = seen.get(key) ?? 0;
          seen.set(key, n + 1);
          return fnvReference(`${key}${n}`);
        });
        expect(got).toEqual(want);
        expect(new Set(got).size).toBe(got.length);
      }),
    );
  });

  it('counts two items that share a key as one path', () => {
    const prints = new Fingerprints(root, 'p.json', 3);
    const got = ['/automations/0', '/automations/3', '/automations/0'].map((p) => prints.of(p, '\u0000x\u0000'));
    const base = 'p.json\u0000/automations[key="welcome"]\u0000x\u0000';
    expect(got).toEqual([0, 1, 2].map((n) => fnvReference(`${base}${n}`)));
  });
});
