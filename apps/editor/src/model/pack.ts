// Pack-level reads and immutable updates: items by kind, automation documents, new packs.
import { ITEM_KINDS, type ItemKind } from '@setup-pack/core';
import { asArr, asObj, isObj, objs, setKey, str, updateAt, type Obj } from './json.js';

export type PackValue = Obj;
export { ITEM_KINDS, type ItemKind };

export const KIND_LABELS: Record<ItemKind, string> = {
  automations: 'Automations',
  smartLists: 'Smart lists',
  messageTemplates: 'Message templates',
  pipelines: 'Pipelines',
  resources: 'Resources',
  assets: 'Assets',
};

/** What the editor shows: the pack's own fields, or one item by kind and index. */
export type Target = { kind: 'pack' } | { kind: ItemKind; index: number };

export const items = (pack: PackValue, kind: ItemKind): Obj[] => objs(pack[kind]);

export function itemName(kind: ItemKind, item: Obj): string {
  if (kind === 'automations') return str(asObj(item.document).name) || str(item.key) || '(unnamed)';
  if (kind === 'assets') return str(item.fileName) || str(item.key) || '(unnamed)';
  return str(item.name) || str(item.key) || '(unnamed)';
}

/** Replaces item `index` of `kind` (keeps every other field of the pack as it was). */
export function updateItem(pack: PackValue, kind: ItemKind, index: number, fn: (item: Obj) => Obj): PackValue {
  const list = asArr(pack[kind]);
  if (index < 0 || index >= list.length) return pack;
  const next = fn(asObj(list[index]));
  if (next === list[index]) return pack;
  return { ...pack, [kind]: updateAt(list, index, () => next) };
}

export function addItem(pack: PackValue, kind: ItemKind, item: Obj): { pack: PackValue; index: number } {
  const list = asArr(pack[kind]);
  return { pack: { ...pack, [kind]: [...list, item] }, index: list.length };
}

export function removeItem(pack: PackValue, kind: ItemKind, index: number): PackValue {
  const list = asArr(pack[kind]);
  if (index < 0 || index >= list.length) return pack;
  return { ...pack, [kind]: list.filter((_, i) => i !== index) };
}

export function documentOf(pack: PackValue, index: number): Obj {
  return asObj(asObj(asArr(pack.automations)[index]).document);
}

export function updateDocument(pack: PackValue, index: number, fn: (doc: Obj) => Obj): PackValue {
  return updateItem(pack, 'automations', index, (item) => {
    const doc = asObj(item.document);
    const next = fn(doc);
    return next === doc ? item : setKey(item, 'document', next);
  });
}

/** A key not used yet by items of `kind`: `base`, `base-2`, `base-3`... */
export function uniqueKey(pack: PackValue, kind: ItemKind, base: string): string {
  const used = new Set(items(pack, kind).map((i) => str(i.key)));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A fresh item of each kind, valid as far as the spec goes. */
export function newItem(pack: PackValue, kind: ItemKind): Obj {
  switch (kind) {
    case 'automations':
      return {
        key: uniqueKey(pack, kind, 'automation'),
        document: {
          format: 'service.automation-template',
          version: 1,
          name: 'New automation',
          graph: { nodes: [{ id: 'start', kind: 'trigger.manual', config: {}, position: { x: 0, y: 0 } }], edges: [] },
          settings: null,
          references: [],
        },
      };
    case 'smartLists':
      return {
        key: uniqueKey(pack, kind, 'smart-list'),
        name: 'New smart list',
        filters: { version: 2, root: { type: 'and', children: [] } },
      };
    case 'messageTemplates':
      return {
        key: uniqueKey(pack, kind, 'template'),
        name: 'New template',
        channel: 'email',
        subject: '',
        body: 'Hi {{contact.first_name}},',
      };
    case 'pipelines':
      return {
        key: uniqueKey(pack, kind, 'pipeline'),
        name: 'New pipeline',
        stages: [
          { key: 'new', name: 'New', color: '#94a3b8', probability: 10, stageType: 'OPEN' },
          { key: 'won', name: 'Won', color: '#22c55e', probability: 100, stageType: 'CLOSED_WON' },
          { key: 'lost', name: 'Lost', color: '#ef4444', probability: 0, stageType: 'CLOSED_LOST' },
        ],
      };
    case 'resources':
      return { key: uniqueKey(pack, kind, 'tag'), kind: 'tag', name: 'New tag' };
    case 'assets':
      return {
        key: uniqueKey(pack, kind, 'asset'),
        role: 'logo',
        fileName: 'file.bin',
        mimeType: 'application/octet-stream',
        byteSize: 0,
        sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        data: '',
      };
  }
}

export function newPack(packId: string = crypto.randomUUID()): PackValue {
  const base: PackValue = { format: 'service.setup-pack', schemaVersion: 2, packId, name: 'New pack', version: '1.0.0', automations: [] };
  return addItem(base, 'automations', newItem(base, 'automations')).pack;
}

export const isPackLike = (v: unknown): v is PackValue => isObj(v);

/**
 * What to show after undo or redo turned pack `prev` into `next` while `target` was shown: an item
 * that came back (its removal undone, its addition redone), else the shown item where it now is,
 * else — it is gone — the kind's nearest item, or the pack when none is left. Items are immutable
 * values, so one that came back is the very object it was.
 */
export function targetAfter(prev: PackValue, next: PackValue, target: Target): Target {
  for (const kind of ITEM_KINDS) {
    const before = items(prev, kind);
    const after = items(next, kind);
    if (after.length <= before.length) continue;
    const had = new Set(before);
    const back = after.findIndex((item) => !had.has(item));
    if (back >= 0) return { kind, index: back };
  }
  if (target.kind === 'pack') return target;
  const before = items(prev, target.kind);
  const after = items(next, target.kind);
  const shown = before[target.index];
  const at = shown ? after.indexOf(shown) : -1;
  if (at >= 0) return at === target.index ? target : { kind: target.kind, index: at };
  if (target.index < after.length && after.length >= before.length) return target; // the shown item was edited
  return after.length > 0 ? { kind: target.kind, index: Math.min(target.index, after.length - 1) } : { kind: 'pack' };
}
