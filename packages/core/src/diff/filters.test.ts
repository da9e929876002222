import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { diffPacks } from './diff.js';
import { diffFilters } from './filters.js';
import { filterPlace, filterText } from '../filters.js';
import type { FilterChange } from './types.js';
import type { Pack } from '../types.js';

const fixture = (name: string): Pack => JSON.parse(readFileSync(new URL(`../../../../fixtures/${name}`, import.meta.url), 'utf8'));
const clone = <T>(v: T): T => structuredClone(v);

type Node = { type?: string; children?: Node[]; field?: string; operator?: string; value?: unknown };
const cond = (field: string, operator: string, value?: unknown): Node => ({
  type: 'condition',
  field,
  operator,
  ...(value === undefined ? {} : { value }),
});
const doc = (root: Node) => ({ version: 2, root });

describe('diffFilters', () => {
  const root = (): Node => ({
    type: 'and',
    children: [
      cond('tags', 'includes', 'tag-buyer-lead'),
      { type: 'or', children: [cond('stage', 'equals', 'stage-new'), cond('score', 'greater_than', 50)] },
      { type: 'not', children: [cond('do_not_contact', 'is_true')] },
    ],
  });

  it('names a changed condition by its place, with its fields and the condition before and after in words', () => {
    const next = root();
    next.children![1].children![0].value = 'stage-qualified';
    expect(diffFilters(doc(root()), doc(next))).toEqual({
      fields: [],
      changes: [
        {
          path: [1, 0],
          change: 'changed',
          node: 'condition',
          fields: ['value'],
          before: 'stage is stage-new',
          after: 'stage is stage-qualified',
        },
      ],
    });
    expect(filterPlace([1, 0])).toBe('root › 2 › 1');
    expect(filterPlace([])).toBe('root');
  });

  it('names added and removed conditions and groups, and a group whose type changed', () => {
    const next = root();
    next.children!.splice(0, 1);
    next.children!.push(cond('lead_source', 'equals', 'zillow'));
    next.children![0].type = 'and';
    next.children![0].children!.push(cond('city', 'equals', 'Paris'));
    expect(diffFilters(doc(root()), doc(next)).changes).toEqual([
      {
        path: [0],
        change: 'changed',
        node: 'group',
        fields: ['type'],
        before: 'stage is stage-new or score is more than 50',
        after: 'stage is stage-new and score is more than 50 and city is Paris',
      },
      { path: [0, 2], change: 'added', node: 'condition', after: 'city is Paris' },
      { path: [2], change: 'added', node: 'condition', after: 'lead source is zillow' },
      { path: [0], change: 'removed', node: 'condition', before: 'contact has tag tag-buyer-lead' },
    ]);
    // A removed group is one change, whatever it held.
    const fewer = root();
    fewer.children!.splice(1, 1);
    expect(diffFilters(doc(root()), doc(fewer)).changes).toEqual([
      { path: [1], change: 'removed', node: 'group', before: 'stage is stage-new or score is more than 50' },
    ]);
  });

  it('pairs equal siblings in their order, so removing the first of two empty groups is that removal and no reorder', () => {
    // fast-check's counterexample (CI, seed -958257594): the new empty group paired with the first
    // old one, which made a reorder up and named the removal at the second.
    const before: Node = {
      type: 'and',
      children: [{ type: 'and', children: [] }, cond('tags', 'equals', 'v0'), cond('tags', 'equals', 'v1'), { type: 'and', children: [] }],
    };
    const after: Node = { type: 'and', children: before.children!.slice(1) };
    expect(diffFilters(doc(before), doc(after)).changes).toEqual([
      { path: [0], change: 'removed', node: 'group', before: expect.any(String) },
    ]);
    expect(diffFilters(doc(after), doc(before)).changes).toEqual([
      { path: [0], change: 'added', node: 'group', after: expect.any(String) },
    ]);
    // And (seed 1522178617): an empty and flipped to or beside an empty or is that group changed in place.
    const flipped = diffFilters(
      doc({
        type: 'or',
        children: [
          { type: 'and', children: [] },
          { type: 'or', children: [] },
        ],
      }),
      doc({
        type: 'or',
        children: [
          { type: 'or', children: [] },
          { type: 'or', children: [] },
        ],
      }),
    );
    expect(flipped.changes).toEqual([
      { path: [0], change: 'changed', node: 'group', fields: ['type'], before: expect.any(String), after: expect.any(String) },
    ]);
    // And (seed -1906760868): two not groups swapped past empty groups are a reorder, not two not groups changed.
    const not = (v: string): Node => ({ type: 'not', children: [cond('tags', 'equals', v)] });
    const empty = (): Node => ({ type: 'and', children: [] });
    const swapped = diffFilters(
      doc({ type: 'and', children: [empty(), not('v0'), empty(), not('v1')] }),
      doc({ type: 'and', children: [not('v1'), empty(), empty(), not('v0')] }),
    );
    expect(swapped.changes).toEqual([{ path: [], change: 'reordered', node: 'group' }]);
  });

  it('says a reorder of an and/or group as the same filter reordered, at the group, however deep', () => {
    const next = root();
    next.children!.reverse();
    next.children![1].children!.reverse();
    expect(diffFilters(doc(root()), doc(next)).changes).toEqual([
      { path: [], change: 'reordered', node: 'group' },
      { path: [1], change: 'reordered', node: 'group' },
    ]);
    // Groups are matched by what they hold, however their children are ordered.
    const twoOrs = (x: Node[], y: Node[]): Node => ({
      type: 'and',
      children: [
        { type: 'or', children: x },
        { type: 'or', children: y },
      ],
    });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((v) => cond('tags', 'includes', v));
    expect(diffFilters(doc(twoOrs([a, b], [c, d])), doc(twoOrs([d, c], [b, a]))).changes).toEqual([
      { path: [], change: 'reordered', node: 'group' },
      { path: [0], change: 'reordered', node: 'group' },
      { path: [1], change: 'reordered', node: 'group' },
    ]);
    // A reorder beside a real change: the change keeps its new place.
    next.children![2].value = 'tag-seller-lead';
    expect(diffFilters(doc(root()), doc(next)).changes).toEqual([
      { path: [], change: 'reordered', node: 'group' },
      { path: [1], change: 'reordered', node: 'group' },
      {
        path: [2],
        change: 'changed',
        node: 'condition',
        fields: ['value'],
        before: 'contact has tag tag-buyer-lead',
        after: 'contact has tag tag-seller-lead',
      },
    ]);
  });

  it('says a node replaced by one of another shape, and the envelope, before and after in words', () => {
    const d = diffFilters(doc(cond('tags', 'includes', 'a')), {
      version: 3,
      root: { type: 'or', children: [cond('tags', 'includes', 'a'), cond('tags', 'includes', 'b')] },
    });
    expect(d).toEqual({
      fields: ['version'],
      changes: [
        { path: [], change: 'changed', node: 'group', before: 'contact has tag a', after: 'contact has tag a or contact has tag b' },
      ],
    });
    expect(diffFilters({ version: 2, root: 'x' }, { version: 2, root: 'y' }).changes).toEqual([
      {
        path: [],
        change: 'changed',
        node: 'other',
        before: '(a condition in a shape we do not read)',
        after: '(a condition in a shape we do not read)',
      },
    ]);
    expect(diffFilters(doc(root()), doc(root()))).toEqual({ fields: [], changes: [] });
  });

  it("is carried by diffPacks for a changed smart list (the release pair's new-buyer-leads)", () => {
    const d = diffPacks(fixture('releases/buyer-lead-1.0.0.json'), fixture('releases/buyer-lead-1.1.0.json'));
    const list = d.items.find((i) => i.kind === 'smartLists')!;
    expect(list).toMatchObject({ key: 'new-buyer-leads', change: 'changed', fields: ['filters'] });
    expect(list.filters).toEqual({
      fields: [],
      changes: [
        {
          path: [1],
          change: 'changed',
          node: 'condition',
          fields: ['value'],
          before: 'created at is within the last 7 days',
          after: 'created at is within the last 14 days',
        },
      ],
    });
    // Another field of the list: no filters diff.
    const base = fixture('valid/buyer-lead-starter.json');
    const renamed = clone(base);
    renamed.smartLists![0].name = 'Renamed';
    const [only] = diffPacks(base, renamed).items;
    expect(only.fields).toEqual(['name']);
    expect(only.filters).toBeUndefined();
  });
});

// Filter trees whose conditions are all different (a unique value each), so that a change made to
// one node has one place; empty groups may still repeat.
const FIELDS = ['tags', 'stage', 'score', 'city'];
const OPS = ['equals', 'includes', 'greater_than', 'is_set'];
const tree = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constant('condition'), field: fc.constantFrom(...FIELDS), operator: fc.constantFrom(...OPS) }),
    fc.record({ type: fc.constantFrom('and', 'or'), children: fc.array(tie('node'), { maxLength: 4 }) }),
    fc.record({ type: fc.constant('not'), children: fc.tuple(tie('node')).map((t) => [...t]) }),
  ) as fc.Arbitrary<Node>,
})).node;
function numbered(root: Node): Node {
  let n = 0;
  const walk = (x: Node): Node => (x.type === 'condition' ? { ...x, value: `v${n++}` } : { ...x, children: x.children!.map(walk) });
  return walk(root);
}
const at = (root: Node, path: number[]): Node => path.reduce((x, i) => x.children![i], root);
/** Every place in the tree: the root and each child, as paths. */
function places(root: Node, path: number[] = []): number[][] {
  return [path, ...(root.children ?? []).flatMap((c, i) => places(c, [...path, i]))];
}
function shuffled(x: Node, seed: number): Node {
  if (x.type === 'condition') return x;
  const children = x.children!.map((c, i) => shuffled(c, seed + i));
  if (x.type === 'not') return { ...x, children };
  return {
    ...x,
    children: children
      .map((c, i) => [c, (i * 7919 + seed) % 13] as const)
      .sort((p, q) => p[1] - q[1])
      .map(([c]) => c),
  };
}
type Edit = { kind: 'value' | 'operator' | 'add' | 'remove' | 'flip'; place: number[] };

describe('diffFilters properties', () => {
  const numberedTree = tree.map(numbered);

  it('a filter against itself, or against any reorder of its and/or groups, has no change but reorders', () => {
    fc.assert(
      fc.property(numberedTree, fc.integer({ min: 0, max: 1000 }), (root, seed) => {
        expect(diffFilters(doc(root), doc(clone(root)))).toEqual({ fields: [], changes: [] });
        const changes = diffFilters(doc(root), doc(shuffled(root, seed))).changes;
        expect(changes.every((c) => c.change === 'reordered' && c.node === 'group')).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('names the one change an edit made, at its place, and the reverse diff names it the other way', () => {
    const edited = numberedTree.chain((root) =>
      fc.record({
        root: fc.constant(root),
        place: fc.constantFrom(...places(root)),
        kind: fc.constantFrom<Edit['kind']>('value', 'operator', 'add', 'remove', 'flip'),
        index: fc.nat(),
      }),
    );
    fc.assert(
      fc.property(edited, ({ root, place, kind, index }) => {
        const next = clone(root);
        const node = at(next, place);
        let expected: FilterChange;
        if (kind === 'value' || kind === 'operator') {
          if (node.type !== 'condition') return;
          const before = filterText(node);
          if (kind === 'value') node.value = 'changed';
          else node.operator = node.operator === 'equals' ? 'not_equals' : 'equals';
          expected = { path: place, change: 'changed', node: 'condition', fields: [kind], before, after: filterText(node) };
        } else if (kind === 'add') {
          if (node.type !== 'and' && node.type !== 'or') return;
          const i = index % (node.children!.length + 1);
          node.children!.splice(i, 0, cond('city', 'equals', 'added'));
          expected = { path: [...place, i], change: 'added', node: 'condition', after: 'city is added' };
        } else if (kind === 'remove') {
          const parent = place.length ? at(next, place.slice(0, -1)) : undefined;
          if (!parent || parent.type === 'not') return;
          const [gone] = parent.children!.splice(place[place.length - 1], 1);
          expected = { path: place, change: 'removed', node: gone.type === 'condition' ? 'condition' : 'group', before: filterText(gone) };
        } else {
          if (node.type !== 'and' && node.type !== 'or') return;
          const before = filterText(node);
          node.type = node.type === 'and' ? 'or' : 'and';
          expected = { path: place, change: 'changed', node: 'group', fields: ['type'], before, after: filterText(node) };
        }
        const changes = diffFilters(doc(root), doc(next)).changes;
        expect(changes).toHaveLength(1);
        const [got] = changes;
        // An empty group may repeat: a removed one may be named at an equal sibling's place.
        if (kind === 'remove') {
          expect(got).toMatchObject({ change: 'removed', node: expected.node, before: expected.before });
          expect(got.path.slice(0, -1)).toEqual(place.slice(0, -1));
          expect(at(root, got.path)).toEqual(at(root, place));
        } else expect(got).toEqual(expected);
        const flip = { added: 'removed', removed: 'added', changed: 'changed', reordered: 'reordered' } as const;
        const back = diffFilters(doc(next), doc(root)).changes;
        expect(back.map((c) => [flip[c.change], c.node, c.before, c.after])).toEqual([[got.change, got.node, got.after, got.before]]);
      }),
      { numRuns: 500 },
    );
  });
});
