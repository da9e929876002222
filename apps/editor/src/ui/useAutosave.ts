// Nothing lost: the pack's states autosaved to this browser (after a pause, when it is idle), the
// state saved at once when the page is left, and a question before leaving unsaved work.
import { useEffect, useRef, useState, type RefObject } from 'react';
import type { EditorStore } from '../model/store.js';
import type { PackValue } from '../model/pack.js';
import { noteLeaving, type DraftStore } from '../model/autosave.js';

/**
 * Saves the store's states into `drafts` once `restored` (the startup has decided what to show),
 * and returns the pack state last kept there (the toolbar says whether unsaved work is kept).
 * `page` names this page load in its drafts and in the note left when it is left.
 */
export function useAutosave(
  store: EditorStore,
  drafts: DraftStore,
  page: string,
  restored: RefObject<boolean>,
  notify: (text: string) => void,
): PackValue | undefined {
  const state = store.getState();
  const pack = state.history.present;
  const [draftPack, setDraftPack] = useState<PackValue>();
  // `saveNow` saves the state the store holds when it runs, once per pack state.
  const saveNow = useRef<() => void>(() => {});
  useEffect(() => {
    if (!restored.current) return;
    let idle: number | undefined;
    let done = false;
    const save = () => {
      if (done) return;
      done = true;
      const s = store.getState();
      const saving = s.history.present;
      // A pack as it was opened is stored as its text alone (packOfDraft parses it back).
      const untouched = s.origin?.value === saving;
      drafts
        .save({
          savedAt: new Date().toISOString(),
          pack: untouched ? undefined : saving,
          originText: untouched ? s.origin!.text : undefined,
          numbers: s.numbers?.length ? s.numbers : undefined,
          duplicates: s.duplicates?.length ? s.duplicates : undefined,
          source: s.source,
          dirty: store.dirty,
          page,
        })
        .then(() => setDraftPack(saving))
        .catch(() => notify('Autosave failed: browser storage is full or unavailable.'));
    };
    saveNow.current = save;
    // After a pause, and when the browser is idle: storing a big pack clones it on this thread.
    // A state without unsaved work (the pack as opened, every edit undone, just exported) is
    // stored after the pause alone: until it is, the draft says there is unsaved work and a
    // reload would bring back what was undone, and Chromium may grant no idle time for the
    // callback's whole 2 s timeout (it did after a keyboard Ctrl+Z). Such states are rare and
    // mostly text alone (packOfDraft), so they cost a busy frame little.
    const clean = !store.dirty;
    const t = setTimeout(() => {
      if (!clean && typeof requestIdleCallback === 'function') idle = requestIdleCallback(save, { timeout: 2000 });
      else save();
    }, 400);
    return () => {
      clearTimeout(t);
      if (idle !== undefined) cancelIdleCallback(idle);
    };
  }, [pack, store, drafts, page, restored, notify, state.savedPack]);
  // Leaving the page (reload, close, tab switch) saves at once rather than after the pause; the
  // listeners stay for the page's life (not added and removed on every keystroke). That write is
  // asynchronous and the browser may drop it with the page, so whether there is unsaved work is
  // also noted synchronously (noteLeaving): the next page then does not restore a draft of work
  // undone since.
  useEffect(() => {
    const onHide = (e: Event) => {
      // Not before the startup restore has decided: the pack shown until then is no one's work.
      if (restored.current && (e.type === 'pagehide' || document.visibilityState === 'hidden')) noteLeaving(page, store.dirty);
      saveNow.current();
    };
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onHide);
    return () => {
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onHide);
    };
  }, [store, page, restored]);
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!store.dirty) return;
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [store]);
  return draftPack;
}
