// Keeps an automation's references in step with the ids its node configs write: an id a
// catalog ref field starts writing gets a reference; a reference whose id no config writes any
// more (after this edit) is dropped. References the edit did not touch are left alone.
import { nodeKindInfo, stringsInConfig, type PackItemOfReference, type ReferenceType } from '@setup-pack/core';
import { asArr, asObj, objs, setKey, str, type Obj } from './json.js';
import { nodesOf } from './graph.js';

/** The pack's items by reference type and key (core's packItemsByReferenceType). */
export type RefIndex = ReadonlyMap<ReferenceType, ReadonlyMap<string, PackItemOfReference>>;

/** `type:id` of every id a catalog ref/refs field writes in the document's graph. */
export function typedRefsWritten(doc: Obj): Map<string, { type: ReferenceType; id: string }> {
  const out = new Map<string, { type: ReferenceType; id: string }>();
  for (const node of nodesOf(doc)) {
    const info = nodeKindInfo(str(node.kind));
    const config = asObj(node.config);
    for (const field of info?.fields ?? []) {
      if (!field.ref) continue;
      const v = config[field.name];
      const ids = field.type === 'refs' ? asArr(v) : [v];
      for (const id of ids) if (typeof id === 'string' && id !== '') out.set(`${field.ref}:${id}`, { type: field.ref, id });
    }
  }
  return out;
}

function allStrings(doc: Obj): Set<string> {
  const s = new Set<string>();
  for (const n of nodesOf(doc)) stringsInConfig(n.config, s);
  return s;
}

/** True when both graphs have the same node kinds and config objects, in order (a move, a
 * rename of nothing config-related, an edge edit): the ids configs write cannot have changed. */
function sameConfigs(before: Obj, after: Obj): boolean {
  const a = nodesOf(before);
  const b = nodesOf(after);
  return a.length === b.length && a.every((n, i) => n.config === b[i].config && n.kind === b[i].kind);
}

export function syncReferences(before: Obj, after: Obj): Obj {
  if (before === after || sameConfigs(before, after)) return after;
  const oldTyped = typedRefsWritten(before);
  const newTyped = typedRefsWritten(after);
  const oldStrings = allStrings(before);
  const newStrings = allStrings(after);
  const refs = objs(after.references);
  const listed = new Set(refs.map((r) => `${str(r.type)}:${str(r.id)}`));
  // Drop references to ids this edit stopped writing.
  let next = refs.filter((r) => !(oldStrings.has(str(r.id)) && !newStrings.has(str(r.id))));
  // Add references for typed ids this edit started writing.
  for (const [k, ref] of newTyped) if (!oldTyped.has(k) && !listed.has(k)) next = [...next, { type: ref.type, id: ref.id }];
  if (next.length === refs.length && next.every((r, i) => r === refs[i])) return after;
  if (!Array.isArray(after.references) && next.length === 0) return after;
  return setKey(after, 'references', next);
}

export function updateReference(doc: Obj, index: number, patch: Obj): Obj {
  const refs = asArr(doc.references);
  if (index < 0 || index >= refs.length) return doc;
  let ref = asObj(refs[index]);
  for (const [k, v] of Object.entries(patch)) ref = setKey(ref, k, v === '' && k !== 'id' ? undefined : v);
  return setKey(
    doc,
    'references',
    refs.map((r, i) => (i === index ? ref : r)),
  );
}

/**
 * The automation lists `{type, id, name}`: a reference written by a picked workspace object
 * carries the name it binds by (another workspace binds it by that name too). An existing
 * reference of that type and id gets the name; otherwise one is added.
 */
export function withNamedReference(doc: Obj, ref: { type: ReferenceType; id: string; name: string }): Obj {
  const refs = asArr(doc.references);
  const at = refs.findIndex((r) => str(asObj(r).type) === ref.type && str(asObj(r).id) === ref.id);
  if (at >= 0) return str(asObj(refs[at]).name) === ref.name ? doc : updateReference(doc, at, { name: ref.name });
  return setKey(doc, 'references', [...refs, { type: ref.type, id: ref.id, name: ref.name }]);
}

/** Every reference id the automation lists, with its type and name (for picking an id that means one thing). */
export function listedReferences(doc: Obj): { type: string; id: string; name: string }[] {
  return asArr(doc.references).map((r) => ({ type: str(asObj(r).type), id: str(asObj(r).id), name: str(asObj(r).name) }));
}
