// Startup: unsaved work wins over ?pack= (nothing lost on reload); ?old=&new= opens a comparison.
import { useEffect, useRef, useState, type Dispatch, type RefObject, type SetStateAction } from 'react';
import type { EditorStore } from '../../model/store.js';
import { draftSuperseded, packOfDraft, readLeaving, type Draft } from '../../model/autosave.js';
import { parsePackText } from '../../model/fileText.js';
import type { PackValue } from '../../model/pack.js';
import type { CompareState } from '../CompareForm.js';
import type { Release } from '../DiffView.js';
import { drafts } from './drafts.js';
import type { PackFile } from './usePackFile.js';

export interface Startup {
  /** Whether the startup has decided what to show (until then the editor says "Opening…"). */
  ready: boolean;
  /** The same, for the autosave, which must not save the pack shown before. */
  restored: RefObject<boolean>;
}

export function useStartup(
  store: EditorStore,
  file: Pick<PackFile, 'openUrl' | 'canvasSeq' | 'setBanner'>,
  setDiff: Dispatch<SetStateAction<CompareState>>,
): Startup {
  const restored = useRef(false);
  const started = useRef(false);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice in development
    started.current = true;
    const params = new URLSearchParams(location.search);
    const url = params.get('pack');
    void drafts
      .load()
      .catch(() => undefined)
      .then(async (found) => {
        // A draft is restored without awaiting anything, so `restored` is set in the same turn as
        // the pack it restored (the autosave's run on that pack reads it).
        const draft = restorable(found, url);
        if (draft) restore(store, draft, file);
        else if (url) await file.openUrl(url);
        // Opened to compare two releases (?old=&new=) and nothing else: the editor behind the
        // comparison holds the new release, so "Back to editor" edits it rather than an empty pack.
        else if (params.get('new')) await file.openUrl(params.get('new')!);
        restored.current = true;
        setReady(true);
      });
    openComparison(params, setDiff);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return { ready, restored };
}

/**
 * The draft to restore, with its pack: unsaved work always; saved work when the address names no
 * pack, or the one it came from. A draft of work undone before the page was left is not work to
 * restore (draftSuperseded).
 */
function restorable(found: Draft | undefined, url: string | null): { draft: Draft; pack: PackValue } | undefined {
  const draft = found && !draftSuperseded(found, readLeaving()) ? found : undefined;
  const pack = draft && packOfDraft(draft);
  return draft && pack && (draft.dirty || !url || draft.source === url) ? { draft, pack } : undefined;
}

function restore(
  store: EditorStore,
  { draft, pack }: { draft: Draft; pack: PackValue },
  file: Pick<PackFile, 'canvasSeq' | 'setBanner'>,
): void {
  file.canvasSeq.current++;
  store.open(pack, draft.source ?? 'restored draft', draft.dirty ? undefined : draft.originText, {
    dirty: draft.dirty,
    numbers: draft.numbers,
    duplicates: draft.duplicates,
  });
  if (draft.dirty) file.setBanner(`Restored unsaved work from ${new Date(draft.savedAt).toLocaleString()}.`);
}

/**
 * The releases ?old=&new= name, loaded into the compare form. A release that cannot be loaded or
 * read leaves the form open, saying why under its chooser (the other one chosen when it loaded),
 * never the editor as if nothing was asked.
 */
function openComparison(params: URLSearchParams, setDiff: Dispatch<SetStateAction<CompareState>>): void {
  const oldUrl = params.get('old');
  const newUrl = params.get('new');
  if (!oldUrl && !newUrl) return;
  void Promise.all([loadRelease(oldUrl), loadRelease(newUrl)]).then(([a, b]) =>
    setDiff({
      old: a.release,
      new: b.release,
      open: true,
      shown: !!(a.release && b.release),
      problems: { old: a.problem, new: b.problem },
    }),
  );
}

async function loadRelease(u: string | null): Promise<{ release?: Release; problem?: string }> {
  if (!u) return {};
  try {
    const res = await fetch(u);
    if (!res.ok) return { problem: `Cannot load ${u}: HTTP ${res.status}` };
    const r = parsePackText(await res.text());
    return r.value ? { release: { pack: r.value, name: u } } : { problem: `Cannot open ${u}: ${r.error}` };
  } catch (e) {
    return { problem: `Cannot load ${u}: ${e instanceof Error ? e.message : String(e)}` };
  }
}
