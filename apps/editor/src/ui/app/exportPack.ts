// Export: the pack written to a file the browser downloads, after asking when it has errors or
// when the editor's reading of the opened file changed what it would write.
import { blocksUse, plural, validatePack } from '@setup-pack/core';
import type { EditorStore } from '../../model/store.js';
import { exportFileName, serializePack } from '../../model/serialize.js';
import { duplicatesDropped, duplicatesStillThere, numbersRewritten, numbersStillRead } from '../../model/fileText.js';

export function exportPack(store: EditorStore): void {
  const p = store.pack;
  const { origin } = store.getState();
  if (!confirmExport(store)) return;
  download(serializePack(p, origin, { exportedAt: new Date() }), exportFileName(p));
  store.markSaved();
}

/**
 * Whether to go on: asked when the pack has errors, or when an edited pack would not write the
 * opened file's numbers and properties as the file did. An untouched pack is written as its
 * file's text, every number and property as written; an edited one as the editor reads it: the
 * numbers that reads as others (numbersRewritten) and the properties written more than once,
 * whose earlier values it drops (duplicatesDropped), are named first.
 */
function confirmExport(store: EditorStore): boolean {
  const p = store.pack;
  const { origin, numbers, duplicates } = store.getState();
  const errors = validatePack(p).diagnostics.filter(blocksUse).length;
  const edited = origin?.value !== p;
  const rewritten = edited && numbers ? numbersRewritten(numbersStillRead(p, numbers)) : undefined;
  const dropped = edited && duplicates ? duplicatesDropped(duplicatesStillThere(p, duplicates)) : undefined;
  const asks = [errors > 0 ? `The pack has ${plural(errors, 'error')}.` : undefined, rewritten, dropped].filter((q) => q !== undefined);
  return !asks.length || confirm(`${asks.join('\n\n')}${rewritten || dropped ? '\n\n' : ' '}Export anyway?`);
}

function download(text: string, name: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
