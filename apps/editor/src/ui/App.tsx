// The editor shell: open/export, sidebar, the canvas or item form, inspector and diagnostics.
// State lives in EditorStore (model/); this file wires it to the components.
import { ConnectPanel } from './ConnectPanel.js';
import { PLAN_KIND_LIST, PlanPanel } from './PlanPanel.js';
import { FlowMap } from './FlowMap.js';
import { SimulatePanel } from './SimulatePanel.js';
import type { Connected } from '../workspace/connection.js';
import { useWorkspaceState, WorkspaceContext } from '../workspace/catalog.js';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type DragEvent, type ReactNode } from 'react';
import { blocksUse, packItemsByReferenceType, plural, sortDiagnostics, validatePack, type Diagnostic, type PackItemOfReference } from '@setup-pack/core';
import type { EditorStore } from '../model/store.js';
import { documentOf, items, newPack, updateItem, type PackValue, type Target } from '../model/pack.js';
import { editGraph } from '../model/actions.js';
import { nodeAt } from '../model/graph.js';
import { fieldOf, findingsOnForm, formPath, formPointer, indexFindings, locate, type FindingIndex } from '../model/findings.js';
import { exportFileName, serializePack } from '../model/serialize.js';
import { createFixer } from '../model/fixes.js';
import { defaultDraftStore, draftSuperseded, noteLeaving, packOfDraft, readLeaving } from '../model/autosave.js';
import { canRedo, canUndo } from '../model/history.js';
import { str, type Obj } from '../model/json.js';
import { duplicatesDropped, duplicatesStillThere, lostOnOpen, lostOnOpenBanner, numbersRewritten, numbersStillRead, packFileText, parsePackText, type DuplicateNotKept, type NumberNotKept } from '../model/fileText.js';
import { useValidation } from './useValidation.js';
import { Canvas, type CanvasProps } from './Canvas.js';
import { ReferencesContext } from './BlockNode.js';
import { sameReferenceItems, stableRefIndex } from './flow.js';
import type { RefIndex } from '../model/references.js';
import { Sidebar } from './Sidebar.js';
import { AutomationInspector } from './Inspector.js';
import { FieldFindings } from './fields.js';
import { DiagnosticsPanel } from './DiagnosticsPanel.js';
import { renderCounts } from './renderCounts.js';
import { AssetEditor, PackFields, PipelineEditor, ResourceEditor, SmartListEditor, TemplateEditor } from './ItemEditors.js';
import { DiffView, type Release } from './DiffView.js';

const targetKey = (t: Target) => (t.kind === 'pack' ? 'pack' : `${t.kind}/${t.index}`);

const drafts = defaultDraftStore();
/** This page load, named in its drafts and in the note left when it is left (autosave.ts Leaving). */
const PAGE = typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function' ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;

/** The pack list a plan step's kind names its item in. */

/** What a clicked finding can give the focus to. */
const FOCUSABLE = 'input, select, textarea, button, [tabindex]';

export function App({ store }: { store: EditorStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const pack = state.history.present;
  const target = state.target;
  const validation = useValidation(pack);
  // The numbers of the opened file the pack still reads as others (1e-400 as 0), and the
  // properties it writes more than once (JSON.parse keeps the last): findings of their own, first
  // in the panel (in the text's order), on their fields too. Validation reads the pack, which has
  // no trace of them; they come from the text at open (lostOnOpen), and are looked up in the pack
  // on screen (a few pointers), so they belong to the same pack as the findings. The same arrays
  // while unchanged, so a keystroke elsewhere changes no finding.
  const heldRef = useRef<readonly NumberNotKept[]>([]);
  const held = useMemo(() => (heldRef.current = numbersStillRead(pack, state.numbers ?? [], heldRef.current)), [pack, state.numbers]);
  const twiceRef = useRef<readonly DuplicateNotKept[]>([]);
  const twice = useMemo(() => (twiceRef.current = duplicatesStillThere(pack, state.duplicates ?? [], twiceRef.current)), [pack, state.duplicates]);
  const diagnostics = useMemo(() => {
    if (!held.length && !twice.length) return validation.diagnostics;
    const lost = sortDiagnostics([...held.map((n) => n.finding), ...twice.map((d) => d.finding)]);
    return [...lost, ...validation.diagnostics];
  }, [held, twice, validation.diagnostics]);
  // Only a new validation result changes the findings (not every keystroke, nor the "checking…"
  // state): a result that found the same things keeps the index, and so the canvas's blocks, the
  // sidebar's badges and the form's notes, as they are.
  const packRef = useRef(pack);
  packRef.current = pack;
  const findingsRef = useRef<FindingIndex>(undefined);
  const findings = useMemo(() => {
    const next = indexFindings(validation.pack ?? packRef.current, diagnostics, findingsRef.current);
    if (next !== findingsRef.current) {
      renderCounts.findingIndex++;
      renderCounts.findingsPlaced += next.newlyPlaced;
    }
    return (findingsRef.current = next);
  }, [validation.pack, diagnostics]);
  // core's mechanical fixes on offer for the findings shown, in the pack they belong to: asked
  // for each validated pack (not on every keystroke), run only when a finding is about a place
  // the fixes write, and the same array while the offer reads the same. Fix itself runs them on
  // the pack as it is then.
  const fixer = useMemo(() => createFixer(), []);
  const fixes = useMemo(() => fixer.offered(validation.pack, validation.diagnostics), [fixer, validation.pack, validation.diagnostics]);
  const applyFixes = useCallback(() => {
    const { pack: fixed, changes } = fixer.apply(store.pack);
    store.commit(() => fixed); // one undoable step; nothing recorded when nothing changes
    return changes;
  }, [fixer, store]);
  // The pack's items by reference type and key, kept as the same object while no key or name changes.
  const refsRef = useRef<{ pack: PackValue; refs: RefIndex }>(undefined);
  const refs = useMemo(() => {
    const prev = refsRef.current;
    if (prev && sameReferenceItems(prev.pack, pack)) return (refsRef.current = { pack, refs: prev.refs }).refs;
    return (refsRef.current = { pack, refs: stableRefIndex(prev?.refs, packItemsByReferenceType(pack)) }).refs;
  }, [pack]);
  const [selection, setSelection] = useState<{ nodes: string[]; edges: string[] }>({ nodes: [], edges: [] });
  const [focus, setFocus] = useState<CanvasProps['focus']>();
  const [fieldFocus, setFieldFocus] = useState<{ path: string[]; seq: number }>();
  const [banner, setBanner] = useState<string>();
  const [dragging, setDragging] = useState(false);
  // The compare form: both releases chosen, in any order, then shown (the pack being edited is one choice).
  const [connected, setConnected] = useState<Connected | undefined>();
  const [planOpen, setPlanOpen] = useState(false);
  // What the pack will do: the Flow map (in place of the canvas) and the Simulate panel.
  const [view, setView] = useState<{ flowMap: boolean; simulate: boolean }>({ flowMap: false, simulate: false });
  // The connected workspace's catalog, shared by the plan preview and the reference pickers.
  const workspace = useWorkspaceState(connected, pack as never);
  // `problems`: why a release the address named (?old=, ?new=) could not be opened, said under its chooser.
  const [diff, setDiff] = useState<{ old?: Release; new?: Release; open: boolean; shown?: boolean; problems?: { old?: string; new?: string } }>({ open: false });
  const [notice, setNotice] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
  const canvasSeq = useRef(0);
  const restored = useRef(false);
  const started = useRef(false);
  const [ready, setReady] = useState(false);
  const [draftPack, setDraftPack] = useState<PackValue>();

  const notify = useCallback((text: string) => {
    setNotice(text);
    setTimeout(() => setNotice((n) => (n === text ? undefined : n)), 3500);
  }, []);

  const openText = useCallback(
    (text: string, source: string) => {
      const r = parsePackText(text);
      if (!r.value) return notify(`Cannot open ${source}: ${r.error}`);
      canvasSeq.current++;
      const lost = lostOnOpen(text);
      store.open(r.value, source, text, { numbers: lost.numbers, duplicates: lost.duplicates });
      setSelection({ nodes: [], edges: [] });
      setBanner(lostOnOpenBanner(lost));
    },
    [store, notify],
  );

  const openUrl = useCallback(
    async (url: string) => {
      try {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        openText(await res.text(), url);
      } catch (e) {
        notify(`Cannot load ${url}: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    [openText, notify],
  );

  useEffect(() => {
    // For the end-to-end tests and the benchmark: open pack text as the file picker would.
    Object.assign(window, { __openPackText: openText, __drafts: drafts });
  }, [openText]);

  // Startup: unsaved work wins over ?pack= (nothing lost on reload); ?old=&new= opens a diff.
  useEffect(() => {
    if (started.current) return; // StrictMode runs effects twice in development
    started.current = true;
    const params = new URLSearchParams(location.search);
    const url = params.get('pack');
    void drafts
      .load()
      .catch(() => undefined)
      .then(async (found) => {
        // A draft of work undone before the page was left is not work to restore (draftSuperseded).
        const draft = found && !draftSuperseded(found, readLeaving()) ? found : undefined;
        const pack = draft && packOfDraft(draft);
        if (draft && pack && (draft.dirty || !url || draft.source === url)) {
          canvasSeq.current++;
          store.open(pack, draft.source ?? 'restored draft', draft.dirty ? undefined : draft.originText, { dirty: draft.dirty, numbers: draft.numbers, duplicates: draft.duplicates });
          if (draft.dirty) setBanner(`Restored unsaved work from ${new Date(draft.savedAt).toLocaleString()}.`);
        } else if (url) await openUrl(url);
        restored.current = true;
        setReady(true);
      });
    // A release the address names that cannot be loaded or read leaves the compare form open,
    // saying why under its chooser (the other one chosen when it loaded), never the editor as if
    // nothing was asked.
    const oldUrl = params.get('old');
    const newUrl = params.get('new');
    if (oldUrl || newUrl) {
      const load = async (u: string | null): Promise<{ release?: Release; problem?: string }> => {
        if (!u) return {};
        try {
          const res = await fetch(u);
          if (!res.ok) return { problem: `Cannot load ${u}: HTTP ${res.status}` };
          const r = parsePackText(await res.text());
          return r.value ? { release: { pack: r.value, name: u } } : { problem: `Cannot open ${u}: ${r.error}` };
        } catch (e) {
          return { problem: `Cannot load ${u}: ${e instanceof Error ? e.message : String(e)}` };
        }
      };
      void Promise.all([load(oldUrl), load(newUrl)]).then(([a, b]) =>
        setDiff({ old: a.release, new: b.release, open: true, shown: !!(a.release && b.release), problems: { old: a.problem, new: b.problem } }),
      );
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Autosave (debounced; not before the startup restore has decided) and the unsaved-changes warning.
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
        .save({ savedAt: new Date().toISOString(), pack: untouched ? undefined : saving, originText: untouched ? s.origin!.text : undefined, numbers: s.numbers?.length ? s.numbers : undefined, duplicates: s.duplicates?.length ? s.duplicates : undefined, source: s.source, dirty: store.dirty, page: PAGE })
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
  }, [pack, store, notify, state.savedPack]);
  // Leaving the page (reload, close, tab switch) saves at once rather than after the pause; the
  // listeners stay for the page's life (not added and removed on every keystroke). That write is
  // asynchronous and the browser may drop it with the page, so whether there is unsaved work is
  // also noted synchronously (noteLeaving): the next page then does not restore a draft of work
  // undone since.
  useEffect(() => {
    const onHide = (e: Event) => {
      // Not before the startup restore has decided: the pack shown until then is no one's work.
      if (restored.current && (e.type === 'pagehide' || document.visibilityState === 'hidden')) noteLeaving(PAGE, store.dirty);
      saveNow.current();
    };
    window.addEventListener('pagehide', onHide);
    document.addEventListener('visibilitychange', onHide);
    return () => {
      window.removeEventListener('pagehide', onHide);
      document.removeEventListener('visibilitychange', onHide);
    };
  }, [store]);
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!store.dirty) return;
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [store]);

  const doExport = useCallback(() => {
    const p = store.pack;
    const { origin, numbers, duplicates } = store.getState();
    const errors = validatePack(p).diagnostics.filter(blocksUse).length;
    // An untouched pack is written as its file's text, every number and property as written; an
    // edited one as the editor reads it: the numbers that reads as others (numbersRewritten) and
    // the properties written more than once, whose earlier values it drops (duplicatesDropped),
    // are named first.
    const edited = origin?.value !== p;
    const rewritten = edited && numbers ? numbersRewritten(numbersStillRead(p, numbers)) : undefined;
    const dropped = edited && duplicates ? duplicatesDropped(duplicatesStillThere(p, duplicates)) : undefined;
    const asks = [errors > 0 ? `The pack has ${plural(errors, 'error')}.` : undefined, rewritten, dropped].filter((q) => q !== undefined);
    if (asks.length && !confirm(`${asks.join('\n\n')}${rewritten || dropped ? '\n\n' : ' '}Export anyway?`)) return;
    const text = serializePack(p, origin, { exportedAt: new Date() });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    a.download = exportFileName(p);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    store.markSaved();
  }, [store]);

  const newPackAction = () => {
    if (store.dirty && !confirm('Discard unsaved changes and start a new pack?')) return;
    canvasSeq.current++;
    store.open(newPack(), 'new pack');
  };

  // Global keys: undo/redo, export, open.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      if (!mod) return;
      const t = e.target as HTMLElement | null;
      const inText = !!t && (t.isContentEditable || /^(INPUT|TEXTAREA)$/.test(t.tagName));
      const key = e.key.toLowerCase();
      if (key === 'z' && !inText) (e.preventDefault(), e.shiftKey ? store.redo() : store.undo());
      else if (key === 'y' && !inText) (e.preventDefault(), store.redo());
      else if (key === 's') (e.preventDefault(), doExport());
      else if (key === 'o') (e.preventDefault(), fileInput.current?.click());
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, doExport]);

  const select = useCallback(
    (t: Target) => {
      store.select(t);
      setSelection({ nodes: [], edges: [] });
    },
    [store],
  );
  // A reference in a block's summary (or a ref field) opens the item it names; a deal stage, its
  // pipeline with the stage's name focused.
  const openReference = useCallback(
    (item: PackItemOfReference) => {
      select({ kind: item.kind, index: item.index });
      if (item.stage !== undefined) setFieldFocus({ path: ['stages', String(item.stage), 'name'], seq: Date.now() });
    },
    [select],
  );
  const references = useMemo(() => ({ refs, open: openReference }), [refs, openReference]);
  const commitPack = useCallback((fn: (p: PackValue) => PackValue) => store.commit(fn), [store]);

  const pickDiagnostic = (d: Diagnostic) => {
    const loc = locate(pack, d.pointer);
    if (targetKey(loc.target) !== targetKey(target)) select(loc.target);
    if (loc.target.kind === 'automations') setFocus({ nodeId: loc.nodeId, edgeId: loc.edgeId, seq: Date.now() });
    if (!loc.nodeId) setSelection({ nodes: [], edges: [] });
    const kind = loc.nodeId && loc.target.kind === 'automations' ? nodeAt(documentOf(pack, loc.target.index), loc.nodeId)?.kind : undefined;
    setFieldFocus({ path: formPath(loc, typeof kind === 'string' ? kind : undefined, d.missing), seq: Date.now() });
  };

  // Stable for the diagnostics list (which then re-renders only on a new validation result).
  const pickRef = useRef(pickDiagnostic);
  pickRef.current = pickDiagnostic;
  const onPickDiagnostic = useCallback((d: Diagnostic) => pickRef.current(d), []);

  // Focus the field a clicked diagnostic points at: the field it is shown on (fieldOf).
  useEffect(() => {
    if (!fieldFocus) return;
    const t = setTimeout(() => {
      const fields = [...document.querySelectorAll<HTMLElement>('.inspector [data-path], .editor-pane [data-path]')];
      const field = fieldOf(fieldFocus.path, fields.map((e) => e.dataset.path ?? ''));
      const found = fields.find((e) => e.dataset.path === field);
      // A group of controls (the send days) is not focusable itself: the control it marks as the
      // one that fixes it (data-focus: a stage list's Add stage) is, else its first control.
      const el = found && !found.matches(FOCUSABLE) ? (found.querySelector<HTMLElement>('[data-focus]') ?? found.querySelector<HTMLElement>(FOCUSABLE) ?? found) : found;
      if (el) {
        // Shown as focused even after the finding was clicked with the mouse: the browser draws no
        // ring on a button or checkbox focused by script after a click (:focus-visible), and the
        // author would not see where the finding went.
        el.focus({ focusVisible: true } as FocusOptions);
        el.scrollIntoView({ block: 'center' });
      }
    }, 80);
    return () => clearTimeout(t);
  }, [fieldFocus]);

  // Opening a file replaces the pack: unsaved work is never dropped without asking (as New pack asks).
  const openFile = (file: File) => {
    if (store.dirty && !confirm(`Discard unsaved changes and open ${file.name}?`)) return;
    void packFileText(file).then((r) => ('error' in r ? notify(`Cannot open ${file.name}: ${r.error}`) : openText(r.text, file.name)));
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    if (file) openFile(file);
  };

  /** Opens the automation of pack key `key` on the canvas, with `nodes` selected (the Simulate panel's steps and paths). */
  const openAutomation = (key: string, nodes: string[]) => {
    const index = ((pack as Record<string, unknown>).automations as { key?: string }[] | undefined)?.findIndex((a) => a?.key === key) ?? -1;
    if (index < 0) return;
    setView((v) => ({ ...v, flowMap: false }));
    select({ kind: 'automations', index });
    setFocus({ nodeIds: nodes, seq: Date.now() });
  };
  const automationIndex = target.kind === 'automations' ? target.index : -1;
  const doc = automationIndex >= 0 ? documentOf(pack, automationIndex) : undefined;
  const editDoc = useCallback(
    (fn: (d: Obj) => Obj, coalesce?: string) => store.commit((p) => editGraph(p, automationIndex, fn), coalesce ? `a${automationIndex}:${coalesce}` : undefined),
    [store, automationIndex],
  );
  // The findings the form on screen shows on its fields: the item's, or the selected block's.
  const block = doc && selection.nodes.length === 1 ? nodeAt(doc, selection.nodes[0]!) : undefined;
  const blockId = block ? selection.nodes[0] : undefined;
  const blockKind = block ? str(block.kind) : undefined;
  const shownFindings = useMemo(
    () => findingsOnForm(findings, target, blockId === undefined ? undefined : { id: blockId, kind: blockKind ?? '' }),
    [findings, target, blockId, blockKind],
  );
  // Where the form's field paths start in the pack: what a field's own note names the field by.
  const formAt = formPointer(pack, target, blockId);
  const form = (el: ReactNode) => (
    <ReferencesContext.Provider value={references}>
      <FieldFindings findings={shownFindings} at={formAt}>{el}</FieldFindings>
    </ReferencesContext.Provider>
  );
  const editItem = (fn: (i: Obj) => Obj, coalesce?: string) => {
    if (target.kind === 'pack') store.commit(fn, coalesce ? `pack:${coalesce}` : undefined);
    else store.commit((p) => updateItem(p, target.kind as Exclude<Target['kind'], 'pack'>, (target as { index: number }).index, fn), coalesce ? `${targetKey(target)}:${coalesce}` : undefined);
  };
  const item = target.kind === 'pack' ? undefined : items(pack, target.kind)[target.index];
  useEffect(() => {
    document.title = `${store.dirty ? '● ' : ''}${typeof pack.name === 'string' && pack.name ? pack.name : 'Untitled pack'} — Setup Pack editor`;
  }, [pack, state.savedPack, store]);
  const onSelection = useCallback((nodes: string[], edges: string[]) => setSelection({ nodes, edges }), []);

  const openRelease = (which: 'old' | 'new') => async (file: File | undefined) => {
    if (!file) return;
    const read = await packFileText(file);
    if ('error' in read) return notify(`Cannot open ${file.name}: ${read.error}`);
    const r = parsePackText(read.text);
    if (!r.value) return notify(`Cannot open ${file.name}: ${r.error}`);
    setDiff((d) => ({ ...d, [which]: { pack: r.value!, name: file.name }, problems: { ...d.problems, [which]: undefined } }));
  };

  return (
    <WorkspaceContext.Provider value={workspace}>
    <div className="app" onDragOver={(e) => (e.preventDefault(), setDragging(true))} onDragLeave={(e) => e.currentTarget === e.target && setDragging(false)} onDrop={onDrop}>
      <header className="toolbar" role="toolbar" aria-label="Editor">
        <span className="title">Setup Pack editor</span>
        <span className="source" title={state.source}>
          <span className="address">{state.source}</span>
          {store.dirty && <span className="dirty" aria-label="Unsaved changes"> ● unsaved</span>}
          {store.dirty && <span className="help" data-testid="draft-state"> · {draftPack === pack ? 'draft kept in this browser' : 'saving draft…'}</span>}
        </span>
        <button onClick={newPackAction}>New pack</button>
        <button onClick={() => fileInput.current?.click()} aria-label="Open pack file">Open…</button>
        <input ref={fileInput} type="file" accept=".json,application/json" hidden aria-label="Pack file" data-testid="open-file" onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) openFile(f);
          e.target.value = '';
        }} />
        <button onClick={() => store.undo()} disabled={!canUndo(state.history)} aria-label="Undo" title="Undo (Ctrl+Z)">↶ Undo</button>
        <button onClick={() => store.redo()} disabled={!canRedo(state.history)} aria-label="Redo" title="Redo (Ctrl+Shift+Z)">↷ Redo</button>
        <button onClick={() => setDiff((d) => ({ ...d, open: !d.open, shown: false }))} aria-pressed={diff.open}>Compare releases</button>
        <button className="primary" onClick={doExport} aria-label="Export pack" title="Export (Ctrl+S)">Export</button>
        <ConnectPanel onChange={setConnected} />
        {connected && <button onClick={() => setPlanOpen((o) => !o)} aria-pressed={planOpen} data-testid="plan-button">Plan</button>}
        <button onClick={() => setView((v) => ({ ...v, flowMap: !v.flowMap }))} aria-pressed={view.flowMap}>Flow map</button>
        <button onClick={() => setView((v) => ({ ...v, simulate: !v.simulate }))} aria-pressed={view.simulate}>Simulate</button>
      </header>
      {workspace && planOpen && (
        <PlanPanel pack={pack as never} workspace={workspace} errors={validation.diagnostics.filter(blocksUse).length} onOpen={(text, source) => {
          if (store.dirty && !confirm(`Discard unsaved changes and open ${source}?`)) return;
          openText(text, source);
        }} onPick={(kind, key) => {
          // The brand is edited with the pack's own fields.
          if (kind === 'brand') return select({ kind: 'pack' });
          const list = PLAN_KIND_LIST[kind];
          const index = list ? ((pack as Record<string, unknown>)[list] as { key?: string }[] | undefined)?.findIndex((x) => x?.key === key) ?? -1 : -1;
          if (list && index >= 0) select({ kind: list as never, index });
          // The automation's own form: the canvas lets go of its blocks too (it is not made anew
          // when the automation is the one already open, and would keep a block shown selected).
          if (list === 'automations') setFocus({ seq: Date.now() });
        }} />
      )}
      {view.simulate && (
        <SimulatePanel pack={pack as never} onClose={() => setView((v) => ({ ...v, simulate: false }))}
          onStep={(key, node) => openAutomation(key, node ? [node] : [])} onPath={(key, nodes) => openAutomation(key, nodes)} />
      )}
      {banner && (
        <div className="banner" role="status">
          {banner}
          <button onClick={() => setBanner(undefined)}>OK</button>
          <button onClick={() => void drafts.clear().finally(() => location.reload())}>Discard and reload</button>
        </div>
      )}
      {!ready ? (
        <p className="empty" role="status">Opening…</p>
      ) : diff.open ? (
        diff.old && diff.new && diff.shown ? (
          <DiffView old={diff.old} new={diff.new} onClose={() => setDiff((d) => ({ ...d, open: false, shown: false }))} />
        ) : (
          <div className="editor-pane">
            <h2>Compare two releases</h2>
            <label htmlFor="old-release">Old release</label>
            <input id="old-release" type="file" accept=".json" onChange={(e) => void openRelease('old')(e.target.files?.[0])} />
            <p className="help" data-testid="old-choice">{diff.old ? `Chosen: ${diff.old.name}` : 'Choose a pack file.'}</p>
            {diff.problems?.old && <p className="field-error error" role="alert" data-testid="old-problem">{diff.problems.old}</p>}
            <label htmlFor="new-release">New release</label>
            <input id="new-release" type="file" accept=".json" onChange={(e) => void openRelease('new')(e.target.files?.[0])} />
            <p className="help" data-testid="new-choice">
              {diff.new ? `Chosen: ${diff.new.name}` : 'Choose a pack file, or '}
              {!diff.new && <button onClick={() => setDiff((d) => ({ ...d, new: { pack, name: 'the pack being edited' }, problems: { ...d.problems, new: undefined } }))}>use the pack being edited</button>}
            </p>
            {diff.problems?.new && <p className="field-error error" role="alert" data-testid="new-problem">{diff.problems.new}</p>}
            <p>
              <button className="primary" disabled={!diff.old || !diff.new} onClick={() => setDiff((d) => ({ ...d, shown: true }))}>Compare</button>{' '}
              <button onClick={() => setDiff((d) => ({ ...d, open: false }))}>Back to editor</button>
            </p>
          </div>
        )
      ) : (
        <div className="body">
          <Sidebar pack={pack} target={target} findings={findings} select={select} commit={commitPack} />
          <main className="main" aria-label="Editor">
            {view.flowMap ? (
              <FlowMap pack={pack as never} onClose={() => setView((v) => ({ ...v, flowMap: false }))} onOpen={(index) => {
                setView((v) => ({ ...v, flowMap: false }));
                select({ kind: 'automations', index });
              }} />
            ) : doc ? (
              <ReferencesContext.Provider value={references}><Canvas key={`${canvasSeq.current}/${automationIndex}`} doc={doc} automation={automationIndex} findings={findings} edit={editDoc} onSelection={onSelection} focus={focus} notify={notify} refs={refs} /></ReferencesContext.Provider>
            ) : target.kind === 'pack' ? (
              form(<PackFields pack={pack} edit={editItem} />)
            ) : !item ? (
              <p className="empty">Nothing selected.</p>
            ) : target.kind === 'messageTemplates' ? (
              form(<TemplateEditor item={item} edit={editItem} assets={(pack as Record<string, unknown>).assets} />)
            ) : target.kind === 'smartLists' ? (
              form(<SmartListEditor item={item} edit={editItem} />)
            ) : target.kind === 'pipelines' ? (
              form(<PipelineEditor item={item} edit={editItem} />)
            ) : target.kind === 'resources' ? (
              form(<ResourceEditor item={item} edit={editItem} />)
            ) : (
              form(<AssetEditor item={item} edit={editItem} notify={notify} />)
            )}
            {notice && <div className="notice" role="status">{notice}</div>}
          </main>
          <aside className="inspector" aria-label="Inspector">
            {doc && item ? (
              form(<ReferencesContext.Provider value={references}><AutomationInspector doc={doc} item={item} selected={selection.nodes} edit={editDoc} editItem={editItem} notify={notify} selectBlocks={(ids) => setFocus({ nodeIds: ids, seq: Date.now() })} /></ReferencesContext.Provider>)
            ) : (
              <div>
                <h2>Keyboard</h2>
                <p className="help">/ add block · Delete remove · Ctrl+C/V copy/paste · Ctrl+D duplicate · Ctrl+A select all · arrows move between blocks · Ctrl+Z/Shift+Z undo/redo · Ctrl+S export</p>
              </div>
            )}
          </aside>
        </div>
      )}
      {/* The edited pack's findings belong to the editor, not to the comparison. */}
      {!diff.open && <DiagnosticsPanel key={state.opened} diagnostics={diagnostics} pending={validation.pending} onPick={onPickDiagnostic} fixes={fixes} onFix={applyFixes} />}
      {dragging && <div className="drop-overlay">Drop a pack file to open it</div>}
    </div>
    </WorkspaceContext.Provider>
  );
}
