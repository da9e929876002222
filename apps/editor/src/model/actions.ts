// Edits that touch more than one part of the pack at once (a config change and the references
// it implies), named so the UI and tests share them.
import { documentOf, updateDocument, type PackValue } from './pack.js';
import { updateNode } from './graph.js';
import { syncReferences } from './references.js';
import { setKey, type Obj } from './json.js';

/** Applies `fn` to automation `index`'s document and keeps its references in step. */
export function editGraph(pack: PackValue, index: number, fn: (doc: Obj) => Obj): PackValue {
  return updateDocument(pack, index, (doc) => syncReferences(doc, fn(doc)));
}

export function setNodeConfigAndSync(pack: PackValue, index: number, nodeId: string, config: Obj): PackValue {
  return editGraph(pack, index, (doc) => updateNode(doc, nodeId, (n) => setKey(n, 'config', config)));
}

export { documentOf };
