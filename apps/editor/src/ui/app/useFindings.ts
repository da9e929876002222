// The findings the editor shows, worked out from the validation result: the opened file's lost
// numbers and repeated properties first, every finding placed in the pack (the index the canvas,
// the sidebar and the forms read), and core's fixes on offer.
import { useCallback, useMemo, useRef } from 'react';
import { sortDiagnostics, type Diagnostic } from '@setup-pack/core';
import type { EditorState, EditorStore } from '../../model/store.js';
import type { PackValue } from '../../model/pack.js';
import { indexFindings, type FindingIndex } from '../../model/findings.js';
import { createFixer } from '../../model/fixes.js';
import { duplicatesStillThere, numbersStillRead, type DuplicateNotKept, type NumberNotKept } from '../../model/fileText.js';
import type { ValidationState } from '../useValidation.js';
import { renderCounts } from '../renderCounts.js';

export interface Findings {
  /** Every finding of the pack on screen, in the panel's order. */
  diagnostics: Diagnostic[];
  findings: FindingIndex;
  /** The fixes on offer for the validated pack; `applyFixes` runs them on the pack as it is then. */
  fixes: readonly string[];
  applyFixes: () => string[];
}

export function useFindings(store: EditorStore, state: EditorState, validation: ValidationState): Findings {
  const pack = state.history.present;
  const diagnostics = useDiagnostics(pack, state, validation.diagnostics);
  const findings = useFindingIndex(pack, validation.pack, diagnostics);
  const { fixes, applyFixes } = useFixes(store, validation);
  return { diagnostics, findings, fixes, applyFixes };
}

/**
 * The numbers of the opened file the pack still reads as others (1e-400 as 0), and the properties
 * it writes more than once (JSON.parse keeps the last): findings of their own, first in the panel
 * (in the text's order), on their fields too. Validation reads the pack, which has no trace of
 * them; they come from the text at open (lostOnOpen), and are looked up in the pack on screen (a
 * few pointers), so they belong to the same pack as the findings. The same arrays while
 * unchanged, so a keystroke elsewhere changes no finding.
 */
function useDiagnostics(pack: PackValue, state: Pick<EditorState, 'numbers' | 'duplicates'>, validated: Diagnostic[]): Diagnostic[] {
  const heldRef = useRef<readonly NumberNotKept[]>([]);
  const held = useMemo(() => (heldRef.current = numbersStillRead(pack, state.numbers ?? [], heldRef.current)), [pack, state.numbers]);
  const twiceRef = useRef<readonly DuplicateNotKept[]>([]);
  const twice = useMemo(
    () => (twiceRef.current = duplicatesStillThere(pack, state.duplicates ?? [], twiceRef.current)),
    [pack, state.duplicates],
  );
  return useMemo(() => {
    if (!held.length && !twice.length) return validated;
    const lost = sortDiagnostics([...held.map((n) => n.finding), ...twice.map((d) => d.finding)]);
    return [...lost, ...validated];
  }, [held, twice, validated]);
}

/**
 * Only a new validation result changes the findings (not every keystroke, nor the "checking…"
 * state): a result that found the same things keeps the index, and so the canvas's blocks, the
 * sidebar's badges and the form's notes, as they are.
 */
function useFindingIndex(pack: PackValue, validatedPack: PackValue | undefined, diagnostics: Diagnostic[]): FindingIndex {
  const packRef = useRef(pack);
  packRef.current = pack;
  const findingsRef = useRef<FindingIndex>(undefined);
  return useMemo(() => {
    const next = indexFindings(validatedPack ?? packRef.current, diagnostics, findingsRef.current);
    if (next !== findingsRef.current) {
      renderCounts.findingIndex++;
      renderCounts.findingsPlaced += next.newlyPlaced;
    }
    return (findingsRef.current = next);
  }, [validatedPack, diagnostics]);
}

/**
 * core's mechanical fixes on offer for the findings shown, in the pack they belong to: asked for
 * each validated pack (not on every keystroke), run only when a finding is about a place the fixes
 * write, and the same array while the offer reads the same. Fix itself runs them on the pack as it
 * is then.
 */
function useFixes(store: EditorStore, validation: ValidationState): Pick<Findings, 'fixes' | 'applyFixes'> {
  const fixer = useMemo(() => createFixer(), []);
  const fixes = useMemo(() => fixer.offered(validation.pack, validation.diagnostics), [fixer, validation.pack, validation.diagnostics]);
  const applyFixes = useCallback(() => {
    const { pack: fixed, changes } = fixer.apply(store.pack);
    store.commit(() => fixed); // one undoable step; nothing recorded when nothing changes
    return changes;
  }, [fixer, store]);
  return { fixes, applyFixes };
}
