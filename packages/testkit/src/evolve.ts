// What happens to a pack after it is installed, as fast-check generators: the next release of it
// (items changed, dropped, added), the edits a user makes by hand in the workspace between two
// releases, and a second pack that shares objects with the first. The installer's property suite
// (packages/installer/test/edits.fuzz.test.ts) installs these into the real server.
import fc from 'fast-check';
import {
  configRefIds,
  NODE_CATALOG,
  RESOURCE_KIND_OF_REFERENCE,
  type AutomationItem,
  type GraphNode,
  type Pack,
  type Reference,
  type ReferenceType,
  type WorkspaceCollection,
  type WorkspaceObject,
} from '@setup-pack/core';
import { hexColor, LIMITS, text, validPack } from './pack.js';

/** The item lists of a pack that a release may change, drop or add to. */
const LISTS = ['resources', 'pipelines', 'messageTemplates', 'smartLists', 'automations'] as const;
type ListName = (typeof LISTS)[number];
type Fate = 'keep' | 'change' | 'drop';

const fate = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Fate>('keep') },
  { weight: 3, arbitrary: fc.constant<Fate>('change') },
  { weight: 2, arbitrary: fc.constant<Fate>('drop') },
);

/** A version every generated pack's version comes before (its SemVer major is at most 9; other versions are unordered). */
export const NEXT_VERSION = '1000.0.0';

export interface NextReleaseOptions {
  /** Items (`${list}/${key}`) the release keeps exactly as they are (shared with another pack, say). */
  frozen?: ReadonlySet<string>;
}

/** The ids an automation's references and its blocks' reference fields point at inside the pack (any type): such items stay. */
function referencedKeys(automations: AutomationItem[]): Set<string> {
  const out = new Set<string>();
  for (const a of automations) {
    for (const r of a.document.references ?? []) out.add(r.id);
    for (const n of a.document.graph.nodes) for (const r of configRefIds(n.kind, n.config)) out.add(r.id);
  }
  return out;
}

/**
 * The next release of `pack` (version NEXT_VERSION, same packId): each item kept, changed in its
 * content (the key and, mostly, the name stay) or dropped, and new tags, templates and smart lists
 * added. An item a remaining automation refers to is never dropped, so the release stays valid.
 */
export function nextRelease(pack: Pack, options: NextReleaseOptions = {}): fc.Arbitrary<Pack> {
  const frozen = options.frozen ?? new Set<string>();
  const fates = fc.record(
    Object.fromEntries(
      LISTS.map((l) => [l, fc.array(fate, { minLength: (pack[l] ?? []).length, maxLength: (pack[l] ?? []).length })]),
    ) as Record<ListName, fc.Arbitrary<Fate[]>>,
  );
  const added = fc.record({
    tags: fc.array(
      fc.tuple(
        text(1, LIMITS.resourceName).filter((s) => s.trim().length > 0),
        hexColor,
      ),
      { maxLength: 2 },
    ),
    templates: fc.array(
      text(1, LIMITS.templateName).filter((s) => s.trim().length > 0),
      { maxLength: 1 },
    ),
    lists: fc.array(
      text(1, LIMITS.listName).filter((s) => s.trim().length > 0),
      { maxLength: 1 },
    ),
  });
  return fc.tuple(fates, added, hexColor, fc.boolean()).map(([f, add, color, rename]) => {
    const next = structuredClone(pack);
    next.version = NEXT_VERSION;
    const fateOf = (l: ListName, i: number, key: string): Fate => (frozen.has(`${l}/${key}`) ? 'keep' : f[l][i]);
    // Automations first: what the remaining ones refer to cannot be dropped.
    // (and an automation a remaining one runs stays too, until nothing more is added).
    const all = next.automations ?? [];
    const staying = new Set(all.filter((a, i) => fateOf('automations', i, a.key) !== 'drop').map((a) => a.key));
    for (let grew = true; grew;) {
      grew = false;
      for (const k of referencedKeys(all.filter((a) => staying.has(a.key))))
        if (all.some((a) => a.key === k) && !staying.has(k)) grew = !!staying.add(k);
    }
    const automations = all.filter((a) => staying.has(a.key));
    const used = referencedKeys(automations);
    const stageKeysUsed = new Set(
      automations.flatMap((a) => [
        ...(a.document.references ?? []).filter((r) => r.type === 'deal_stage').map((r) => r.id),
        ...a.document.graph.nodes.flatMap((n) =>
          configRefIds(n.kind, n.config)
            .filter((r) => r.field.ref === 'deal_stage')
            .map((r) => r.id),
        ),
      ]),
    );
    const stays = (l: ListName, i: number, key: string, extra = false) => fateOf(l, i, key) !== 'drop' || used.has(key) || extra;
    const changed = 'Changed in the release';
    // Whether the release changes the item under `key` (its fate is by its place in the old pack).
    const changes = (l: ListName, key: string) =>
      fateOf(
        l,
        ((pack[l] ?? []) as readonly { key: string }[]).findIndex((x) => x.key === key),
        key,
      ) === 'change';
    next.resources = (next.resources ?? [])
      .filter((r, i) => stays('resources', i, r.key))
      .map((r) => {
        if (!changes('resources', r.key)) return r;
        const out = { ...r, data: r.kind === 'tag' ? { color } : { release: 2 } };
        // Now and then a new name for the same key: the installed object is renamed.
        if (rename) out.name = `${[...r.name].slice(0, LIMITS.resourceName - 3).join('')} v2`;
        return out;
      });
    next.pipelines = (next.pipelines ?? [])
      .filter((p, i) =>
        stays(
          'pipelines',
          i,
          p.key,
          p.stages.some((s) => stageKeysUsed.has(s.key)),
        ),
      )
      .map((p) => {
        if (!changes('pipelines', p.key)) return p;
        // A new description and the stages in the opposite order.
        return { ...p, description: changed, stages: [...p.stages].reverse() };
      });
    next.messageTemplates = (next.messageTemplates ?? [])
      .filter((t, i) => stays('messageTemplates', i, t.key))
      .map((t) => {
        if (!changes('messageTemplates', t.key)) return t;
        return { ...t, body: t.body === changed ? `${changed}!` : changed };
      });
    next.smartLists = (next.smartLists ?? [])
      .filter((s, i) => stays('smartLists', i, s.key))
      .map((s) => {
        if (!changes('smartLists', s.key)) return s;
        return { ...s, description: s.description === changed ? `${changed}!` : changed };
      });
    next.automations = automations.map((a) => {
      if (!changes('automations', a.key)) return a;
      return { ...a, document: { ...a.document, description: a.document.description === changed ? `${changed}!` : changed } };
    });
    // New items under keys no generated pack uses (they hold a space).
    add.tags.forEach(([name, c], i) => next.resources!.push({ key: `added tag ${i}`, kind: 'tag', name, data: { color: c } }));
    add.templates.forEach((name, i) =>
      next.messageTemplates!.push({ key: `added template ${i}`, name, channel: 'sms', body: 'Added in the release' }),
    );
    add.lists.forEach((name, i) =>
      next.smartLists!.push({ key: `added list ${i}`, name, filters: { version: 2, root: { type: 'and', children: [] } } }),
    );
    for (const l of LISTS) if (!next[l]?.length) delete next[l];
    return next;
  });
}

/** A hand edit of one installed object, as a user makes it through the REST API. */
export interface HandEdit {
  /** Which installed object: an index into the ledger's items in key order (modulo their number). */
  pick: number;
  /**
   * rename: a new name; content: a change of what it holds (a tag's colour, a template's body, a
   * pipeline's stage order…); delete: removed; remove-stage: a pipeline's open stage removed (content
   * for other objects); activate: an automation switched on, which changes nothing it holds (rename for others).
   */
  what: 'rename' | 'content' | 'delete' | 'remove-stage' | 'activate';
}

export const handEdits = (maxEdits = 3): fc.Arbitrary<HandEdit[]> =>
  fc.array(
    fc.record({ pick: fc.nat(), what: fc.constantFrom<HandEdit['what']>('rename', 'content', 'delete', 'remove-stage', 'activate') }),
    { maxLength: maxEdits },
  );

/**
 * The request a hand edit makes of an object (as the API returns it) of `collection`, or null when
 * the edit does not apply to it (the brand, a media file's content). `n` makes names unique.
 */
export function editRequest(
  collection: WorkspaceCollection,
  obj: WorkspaceObject,
  edit: HandEdit,
  n: number,
): { method: 'PATCH' | 'DELETE' | 'POST'; path?: string; body?: Record<string, unknown> } | null {
  if (collection === 'brand') return null;
  if (edit.what === 'delete') return { method: 'DELETE' };
  if (collection === 'media') return null;
  const name = `Edited by hand ${n}`;
  const doc = (obj.draft_document ?? obj.document) as Record<string, unknown> | undefined;
  const stagesOf = () =>
    (obj.stages as Record<string, unknown>[]).map((s) => ({
      id: s.id,
      name: s.name,
      type: s.type,
      color: s.color ?? null,
      probability: s.probability ?? null,
    }));
  if (edit.what === 'activate') {
    if (collection === 'automations') return obj.enabled ? null : { method: 'POST', path: '/activate' };
    return editRequest(collection, obj, { ...edit, what: 'rename' }, n);
  }
  if (edit.what === 'remove-stage') {
    if (collection !== 'pipelines') return editRequest(collection, obj, { ...edit, what: 'content' }, n);
    // The last open stage, or a second won or lost one: a pipeline keeps one of each.
    const stages = stagesOf();
    const count = (t: unknown) => stages.filter((s) => s.type === t).length;
    const i = stages
      .map((s, j) => (s.type === 'OPEN' || count(s.type) > 1 ? j : -1))
      .filter((j) => j >= 0)
      .pop();
    if (i === undefined) return editRequest(collection, obj, { ...edit, what: 'content' }, n);
    return { method: 'PATCH', body: { stages: stages.filter((_, j) => j !== i) } };
  }
  if (edit.what === 'rename') {
    if (collection === 'automations') return doc ? { method: 'PATCH', body: { document: { ...doc, name } } } : null;
    return { method: 'PATCH', body: { name } };
  }
  switch (collection) {
    case 'tags':
      return { method: 'PATCH', body: { color: obj.color === '#0a0b0c' ? '#0c0b0a' : '#0a0b0c' } };
    case 'custom_fields':
      return { method: 'PATCH', body: { data: { edited: n } } };
    case 'message_templates':
      return { method: 'PATCH', body: { body: `Edited by hand ${n}` } };
    case 'smart_lists':
      return { method: 'PATCH', body: { description: `Edited by hand ${n}` } };
    case 'pipelines': {
      // A stage moved: the first to the end.
      const stages = stagesOf();
      return { method: 'PATCH', body: { stages: [...stages.slice(1), stages[0]] } };
    }
    case 'automations':
      return doc ? { method: 'PATCH', body: { document: { ...doc, description: `Edited by hand ${n}` } } } : null;
    default:
      // Contact stages and lead sources hold a name only.
      return { method: 'PATCH', body: { name } };
  }
}

/** A block kind of the catalog with a config field that refers to `type`, and that field. */
function blockReferring(type: ReferenceType): { kind: string; field: string } | undefined {
  for (const info of NODE_CATALOG.values()) {
    const f = info.fields.find((x) => x.type === 'ref' && x.ref === type);
    if (f && info.group === 'trigger') return { kind: info.kind, field: f.name };
  }
  return undefined;
}

const shared = (k: string) => [...`shared ${k}`].slice(0, LIMITS.key).join('');

/** Which of `from`'s items to copy, by list, in their order. */
interface Picks {
  resources: boolean[];
  templates: boolean[];
  lists: boolean[];
  pipelines: boolean[];
}

const picksFor = (from: Pack): fc.Arbitrary<Picks> => {
  const picks = (n: number) => fc.array(fc.boolean(), { minLength: n, maxLength: n });
  return fc.record({
    resources: picks((from.resources ?? []).length),
    templates: picks((from.messageTemplates ?? []).length),
    lists: picks((from.smartLists ?? []).length),
    pipelines: picks((from.pipelines ?? []).length),
  });
};

/**
 * Adds to `pack` exact copies of the picked resources, templates, smart lists and pipelines of
 * `from` under keys of their own (`shared …`): installed after `from`, they are adopted from it.
 * Left out: copies themselves (a `shared …` key), templates showing one of `from`'s images and smart
 * lists naming its resources (both are rewritten to its ids there, so a copy would not be exact).
 */
function addCopies(pack: Pack, from: Pack, picks: Picks): void {
  const own = (x: { key: string }) => !x.key.startsWith('shared ');
  pack.resources = [
    ...(pack.resources ?? []),
    ...(from.resources ?? []).filter((r, i) => picks.resources[i] && own(r)).map((r) => ({ ...structuredClone(r), key: shared(r.key) })),
  ];
  const imageUrls = (from.assets ?? []).flatMap((a) => (a.sourceUrl ? [a.sourceUrl] : []));
  pack.messageTemplates = [
    ...(pack.messageTemplates ?? []),
    ...(from.messageTemplates ?? [])
      .filter((t, i) => picks.templates[i] && own(t) && !imageUrls.some((u) => t.body.includes(u)))
      .map((t) => ({ ...structuredClone(t), key: shared(t.key) })),
  ];
  const resourceKeys = new Set((from.resources ?? []).map((r) => r.key));
  const namesResource = (v: unknown): boolean =>
    typeof v === 'string' ? resourceKeys.has(v) : !!v && typeof v === 'object' && Object.values(v).some(namesResource);
  pack.smartLists = [
    ...(pack.smartLists ?? []),
    ...(from.smartLists ?? [])
      .filter((l, i) => picks.lists[i] && own(l) && !namesResource(l.filters))
      .map((l) => ({ ...structuredClone(l), key: shared(l.key) })),
  ];
  pack.pipelines = [
    ...(pack.pipelines ?? []),
    ...(from.pipelines ?? []).filter((p, i) => picks.pipelines[i] && own(p)).map((p) => ({ ...structuredClone(p), key: shared(p.key) })),
  ];
  for (const l of LISTS) if (!pack[l]?.length) delete pack[l];
}

/** `pack` with exact copies of some of `from`'s own items added (adopted from it when installed after it): two packs then hold each other's objects. */
export function withCopiesOf(pack: Pack, from: Pack): fc.Arbitrary<Pack> {
  return picksFor(from).map((picks) => {
    const out = structuredClone(pack);
    addCopies(out, from, picks);
    return out;
  });
}

/**
 * A second pack that shares objects with `first`: a pack of its own (validPack) plus exact copies
 * of some of `first`'s resources, templates, smart lists and pipelines under other keys (adopted
 * from `first` on install), and an automation that refers to some of `first`'s resources by name
 * (bound to them). Nothing it makes refers to an item of `first` by key.
 */
export function sharingPack(first: Pack, options: { maxItems?: number } = {}): fc.Arbitrary<Pack> {
  return fc
    .record({
      own: validPack({ maxItems: options.maxItems ?? 2 }),
      picks: picksFor(first),
      refs: fc.array(fc.boolean(), { minLength: (first.resources ?? []).length, maxLength: (first.resources ?? []).length }),
    })
    .map(({ own, picks, refs }) => {
      const pack = structuredClone(own);
      // A workspace has one brand: the first pack's stays, the second's would be kept as a conflict (docs/install.md).
      if (first.brand) delete pack.brand;
      addCopies(pack, first, picks);
      // An automation whose triggers name some of the first pack's resources (by name, not key).
      const nodes: GraphNode[] = [];
      const references: Reference[] = [];
      (first.resources ?? []).forEach((r, i) => {
        if (!refs[i]) return;
        const type = Object.entries(RESOURCE_KIND_OF_REFERENCE).find(([, kind]) => kind === r.kind)?.[0] as ReferenceType | undefined;
        const block = type && blockReferring(type);
        if (!type || !block) return;
        const id = `by-name-${type}-${i}`;
        nodes.push({ id: `t${i}`, kind: block.kind, position: { x: 240 * nodes.length, y: 0 }, config: { [block.field]: id } });
        references.push({ type, id, name: r.name });
      });
      if (nodes.length) {
        pack.automations = [
          ...(pack.automations ?? []),
          {
            key: 'shared by name',
            document: {
              format: 'service.automation-template',
              version: 1,
              name: 'Refers to the first pack by name',
              graph: { nodes, edges: [] },
              references,
            },
          },
        ];
      }
      for (const l of LISTS) if (!pack[l]?.length) delete pack[l];
      return pack;
    });
}
