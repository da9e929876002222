// The editor shell: open/export, sidebar, the canvas or item form, inspector and diagnostics.
// State lives in EditorStore (model/); this file wires it to the components.
import { PLAN_KIND_LIST, PlanPanel } from './PlanPanel.js';
import { FlowMap } from './FlowMap.js';
import { SimulatePanel } from './SimulatePanel.js';
import type { Connected } from '../workspace/connection.js';
import { useWorkspaceState, WorkspaceContext } from '../workspace/catalog.js';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type DragEvent, type ReactNode } from 'react';
import { blocksUse, packItemsByReferenceType, plural, sortDiagnostics, validatePack, type Diagnostic, type PackItemOfReference } from '@setup-pack/core';
import type { EditorStore } from '../model/store.js';
import { addItem, documentOf, items, newItem, newPack, updateItem, type PackValue, type Target } from '../model/pack.js';
import { editGraph } from '../model/actions.js';
import { nodeAt } from '../model/graph.js';
import { fieldOf, findingsOnForm, formPath, formPointer, indexFindings, locate, type FindingIndex } from '../model/findings.js';
import { exportFileName, serializePack } from '../model/serialize.js';
import { createFixer } from '../model/fixes.js';
import { defaultDraftStore, draftSuperseded, packOfDraft, readLeaving } from '../model/autosave.js';
import { canRedo, canUndo } from '../model/history.js';
import { str, type Obj } from '../model/json.js';
import { duplicatesDropped, duplicatesStillThere, lostOnOpen, lostOnOpenBanner, numbersRewritten, numbersStillRead, packFileText, parsePackText, type DuplicateNotKept, type NumberNotKept } from '../model/fileText.js';
import { useAutosave } from './useAutosave.js';
import { Toolbar } from './Toolbar.js';
import { CompareForm, type CompareState } from './CompareForm.js';
import { ItemPane } from './ItemPane.js';
import { CommandPalette, runCommand, usePaletteKeys, type CommandHandlers } from './CommandPalette.js';
import { KeyboardHelp, Shortcuts } from './Shortcuts.js';
import { showIds } from './preference.js';
import { toggleTheme } from './theme.js';
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
  const closePlan = useCallback(() => setPlanOpen(false), []);
  // What the pack will do: the Flow map (in place of the canvas) and the Simulate panel.
  const [view, setView] = useState<{ flowMap: boolean; simulate: boolean }>({ flowMap: false, simulate: false });
  // The connected workspace's catalog, shared by the plan preview and the reference pickers.
  const workspace = useWorkspaceState(connected, pack as never);
  const [diff, setDiff] = useState<CompareState>({ open: false });
  // The command palette or the shortcuts list, when open; a block the palette asked the canvas to
  // add; the connect dialog asked open from the palette.
  const [dialog, setDialog] = useState<'commands' | 'shortcuts'>();
  const [addRequest, setAddRequest] = useState<{ kind: string; seq: number }>();
  const [connectRequest, setConnectRequest] = useState(0);
  const [notice, setNotice] = useState<string>();
  const fileInput = useRef<HTMLInputElement>(null);
  const canvasSeq = useRef(0);
  const restored = useRef(false);
  const started = useRef(false);
  const [ready, setReady] = useState(false);

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
        // Opened to compare two releases (?old=&new=) and nothing else: the editor behind the
        // comparison holds the new release, so "Back to editor" edits it rather than an empty pack.
        else if (params.get('new')) await openUrl(params.get('new')!);
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

  // Autosave (not before the startup restore has decided) and the unsaved-changes warning.
  const draftPack = useAutosave(store, drafts, PAGE, restored, notify);

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
        // A field under a closed section (a block's Advanced) is shown first.
        const section = el.closest('details');
        if (section) section.open = true;
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
  const item = target.kind === 'automations' ? items(pack, 'automations')[target.index] : undefined;
  useEffect(() => {
    document.title = `${store.dirty ? '● ' : ''}${typeof pack.name === 'string' && pack.name ? pack.name : 'Untitled pack'} — Setup Pack editor`;
  }, [pack, state.savedPack, store]);
  const onSelection = useCallback((nodes: string[], edges: string[]) => setSelection({ nodes, edges }), []);
  const addAutomation = () => {
    let index = 0;
    store.commit((p) => {
      const r = addItem(p, 'automations', newItem(p, 'automations'));
      index = r.index;
      return r.pack;
    });
    select({ kind: 'automations', index });
  };

  // The command palette's entries run through the editor's own actions; going to an item or a
  // finding leaves the Flow map and the comparison for the editor.
  usePaletteKeys(setDialog);
  const leaveViews = () => {
    setView((v) => ({ ...v, flowMap: false }));
    setDiff((d) => ({ ...d, open: false }));
  };
  const commands: CommandHandlers = {
    add: (kind) => setAddRequest({ kind, seq: Date.now() }),
    open: (t) => (leaveViews(), select(t)),
    finding: (d) => (leaveViews(), pickDiagnostic(d)),
    actions: {
      plan: () => setPlanOpen(true),
      connect: () => setConnectRequest((n) => n + 1),
      simulate: () => setView((v) => ({ ...v, simulate: true })),
      export: doExport,
      flowMap: () => setView((v) => ({ ...v, flowMap: true })),
      compare: () => setDiff((d) => ({ ...d, open: true, shown: false })),
      newPack: newPackAction,
      openFile: () => fileInput.current?.click(),
      theme: toggleTheme,
      ids: () => showIds.set(showIds.get() === 'shown' ? 'hidden' : 'shown'),
      shortcuts: () => setDialog('shortcuts'),
      undo: () => store.undo(),
      redo: () => store.redo(),
    },
  };

  return (
    <WorkspaceContext.Provider value={workspace}>
    <div className="app" onDragOver={(e) => (e.preventDefault(), setDragging(true))} onDragLeave={(e) => e.currentTarget === e.target && setDragging(false)} onDrop={onDrop}>
      <Toolbar source={state.source} dirty={store.dirty} draftKept={draftPack === pack} fileInput={fileInput} onFile={openFile} onNew={newPackAction}
        canUndo={canUndo(state.history)} canRedo={canRedo(state.history)} onUndo={() => store.undo()} onRedo={() => store.redo()} onExport={doExport}
        compare={diff.open} onCompare={() => setDiff((d) => ({ ...d, open: !d.open, shown: false }))}
        flowMap={view.flowMap} onFlowMap={() => setView((v) => ({ ...v, flowMap: !v.flowMap }))}
        simulate={view.simulate} onSimulate={() => setView((v) => ({ ...v, simulate: !v.simulate }))}
        connected={connected} onConnected={setConnected} connectRequest={connectRequest} planOpen={planOpen} onPlan={() => setPlanOpen((o) => !o)} onCommands={() => setDialog('commands')} />
      {workspace && planOpen && (
        <PlanPanel pack={pack as never} workspace={workspace} errors={validation.diagnostics.filter(blocksUse).length} onClose={closePlan} onOpen={(text, source) => {
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
        <main className="main"><p className="empty" role="status">Opening…</p></main>
      ) : diff.open ? (
        diff.old && diff.new && diff.shown ? (
          <DiffView old={diff.old} new={diff.new} onClose={() => setDiff((d) => ({ ...d, open: false, shown: false }))} />
        ) : (
          <CompareForm diff={diff} setDiff={setDiff} pack={pack} notify={notify} />
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
              <ReferencesContext.Provider value={references}><Canvas key={`${canvasSeq.current}/${automationIndex}`} doc={doc} automation={automationIndex} findings={findings} edit={editDoc} onSelection={onSelection} focus={focus} notify={notify} refs={refs} add={addRequest} /></ReferencesContext.Provider>
            ) : (
              form(<ItemPane pack={pack} target={target} edit={editItem} notify={notify} onAddAutomation={addAutomation} />)
            )}
            {notice && <div className="notice" role="status">{notice}</div>}
          </main>
          <aside className="inspector" aria-label="Inspector">
            {doc && item ? (
              form(<ReferencesContext.Provider value={references}><AutomationInspector doc={doc} item={item} selected={selection.nodes} edit={editDoc} editItem={editItem} notify={notify} selectBlocks={(ids) => setFocus({ nodeIds: ids, seq: Date.now() })} /></ReferencesContext.Provider>)
            ) : (
              <KeyboardHelp onAll={() => setDialog('shortcuts')} />
            )}
          </aside>
        </div>
      )}
      {/* The edited pack's findings belong to the editor, not to the comparison. */}
      {!diff.open && <DiagnosticsPanel key={state.opened} diagnostics={diagnostics} pending={validation.pending} onPick={onPickDiagnostic} fixes={fixes} onFix={applyFixes} />}
      {dragging && <div className="drop-overlay">Drop a pack file to open it</div>}
      {dialog === 'commands' && <CommandPalette context={{ pack, target, diagnostics, connected: !!connected }} onRun={(a) => runCommand(a, commands)} onClose={() => setDialog(undefined)} />}
      {dialog === 'shortcuts' && <Shortcuts onClose={() => setDialog(undefined)} />}
    </div>
    </WorkspaceContext.Provider>
  );
}
