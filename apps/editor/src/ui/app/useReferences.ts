// The pack's items by reference type and key, for the blocks' summaries and the reference fields,
// and what opening a reference does (ReferencesContext).
import { useMemo, useRef } from 'react';
import { packItemsByReferenceType, type PackItemOfReference } from '@setup-pack/core';
import type { PackValue } from '../../model/pack.js';
import type { RefIndex } from '../../model/references.js';
import { sameReferenceItems, stableRefIndex } from '../flow.js';

export interface References {
  refs: RefIndex;
  open: (item: PackItemOfReference) => void;
}

export function useReferences(pack: PackValue, open: (item: PackItemOfReference) => void): References {
  const refs = useRefIndex(pack);
  return useMemo(() => ({ refs, open }), [refs, open]);
}

/** Kept as the same object while no key or name changes, so a keystroke elsewhere re-renders no summary. */
function useRefIndex(pack: PackValue): RefIndex {
  const refsRef = useRef<{ pack: PackValue; refs: RefIndex }>(undefined);
  return useMemo(() => {
    const prev = refsRef.current;
    if (prev && sameReferenceItems(prev.pack, pack)) return (refsRef.current = { pack, refs: prev.refs }).refs;
    return (refsRef.current = { pack, refs: stableRefIndex(prev?.refs, packItemsByReferenceType(pack)) }).refs;
  }, [pack]);
}
