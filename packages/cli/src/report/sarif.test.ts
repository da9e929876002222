// StablePaths resumes each pointer from the one before; whatever the order of the pointers, each
// must get the path a walk from the root gives (fingerprints hash it).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unescapeToken } from '@setup-pack/core';
import type { Diagnostic } from '@setup-pack/core';
import { Repeats, StablePaths } from './sarif.js';

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
      path += typeof o?.key === 'string' ? `[key=${JSON.stringify(o.key)}]` : typeof o?.id === 'string' ? `[id=${JSON.stringify(o.id)}]` : `[${token}]`;
      cur = el;
    } else {
      path += `/${raw}`;
      cur = cur !== null && typeof cur === 'object' && Object.prototype.hasOwnProperty.call(cur, token) ? (cur as Record<string, unknown>)[token] : undefined;
    }
  }
  return path;
}

const root = {
  automations: [
    { key: 'welcome', document: { graph: { nodes: [{ id: 'n1', config: { 'a/b': 1, '~x': [1, 2] } }, { config: {} }] } } },
    { key: 'second', document: { graph: { nodes: [{ id: 'n1' }] } } },
    { name: 'no key' },
    { key: 'welcome', name: 'a second item with the first one\'s key: the same stable path' },
  ],
  name: 'x',
};
const pointers = [
  '', '/', '/name', '/automations', '/automations/0', '/automations/1', '/automations/2', '/automations/2/name', '/automations/9',
  '/automations/0/document/graph/nodes/0/config/a~1b', '/automations/0/document/graph/nodes/0/config/~0x/1', '/automations/0/document/graph/nodes/1/config',
  '/automations/1/document/graph/nodes/0', '/automations/01', '/automations/3', '/automations/3/name', '/automations/0/name', '/automations/0/document/graph/nodes/0/config/missing/deeper', 'not a pointer', '/name/0',
];

describe('StablePaths', () => {
  it('gives each pointer the path a walk from the root gives, in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pointers), { maxLength: 40 }), (list) => {
        const paths = new StablePaths(root);
        expect(list.map((p) => paths.of(p))).toEqual(list.map((p) => walk(root, p)));
      }),
    );
  });
});

describe('Repeats', () => {
  const codes = ['graph/cycle', 'pack/duplicate-key'];
  const finding = fc.record({ code: fc.constantFrom(...codes), pointer: fc.constantFrom(...pointers) });

  it('counts the findings before with the same code and stable path, whatever the hashes say', () => {
    fc.assert(
      fc.property(fc.array(finding, { maxLength: 60 }), fc.boolean(), (list, collide) => {
        const findings = list.map((f) => ({ ...f, severity: 'error', message: 'm' }) as Diagnostic);
        const paths = new StablePaths(root);
        const repeats = new Repeats(findings, root);
        // With every hash the same (collide), only comparing the paths' text can tell them apart.
        const got = findings.map((d, i) => {
          const path = paths.of(d.pointer);
          return repeats.of(i, path, collide ? 7 : paths.hash);
        });
        const seen = new Map<string, number>();
        const want = findings.map((d) => {
          const key = `${d.code}\u0000${walk(root, d.pointer)}`;
          const n = seen.get(key) ?? 0;
          seen.set(key, n + 1);
          return n;
        });
        expect(got).toEqual(want);
      }),
    );
  });

  it('counts two items that share a key as one path', () => {
    const findings = ['/automations/0', '/automations/3', '/automations/0'].map((pointer) => ({ code: 'x', severity: 'error', message: 'm', pointer }) as Diagnostic);
    const paths = new StablePaths(root);
    const repeats = new Repeats(findings, root);
    expect(findings.map((d, i) => repeats.of(i, paths.of(d.pointer), paths.hash))).toEqual([0, 1, 2]);
  });
});
