// The editor shell: open/export, sidebar, the canvas or item form, inspector and diagnostics.
// State lives in EditorStore (model/); the hooks of app/ wire it to the components, one concern
// each, so App reads as what the editor holds and what it shows.
import { useCallback, useSyncExternalStore } from 'react';
import { blocksUse } from '@setup-pack/core';
import type { EditorStore } from '../model/store.js';
import { canRedo, canUndo } from '../model/history.js';
import { WorkspaceContext } from '../workspace/catalog.js';
import { useConnectedWorkspace } from '../workspace/useConnectedWorkspace.js';
import { PlanPanel } from './PlanPanel.js';
import { SimulatePanel } from './SimulatePanel.js';
import { useAutosave } from './useAutosave.js';
import { Toolbar } from './Toolbar.js';
import { CompareForm } from './CompareForm.js';
import { CommandPalette, runCommand, usePaletteKeys } from './CommandPalette.js';
import { Shortcuts } from './Shortcuts.js';
import { useValidation } from './useValidation.js';
import { DiagnosticsPanel } from './DiagnosticsPanel.js';
import { DiffView } from './DiffView.js';
import { commandHandlers } from './app/commands.js';
import { drafts, PAGE } from './app/drafts.js';
import { EditorBody } from './app/EditorBody.js';
import { OpenBanner } from './app/OpenBanner.js';
import { exportPack } from './app/exportPack.js';
import { useDocumentTitle } from './app/useDocumentTitle.js';
import { useFieldFocus } from './app/useFieldFocus.js';
import { useFileDrop } from './app/useFileDrop.js';
import { useFindings } from './app/useFindings.js';
import { useGlobalKeys } from './app/useGlobalKeys.js';
import { useGoTo } from './app/useGoTo.js';
import { useNotice } from './app/useNotice.js';
import { usePackFile } from './app/usePackFile.js';
import { usePanels } from './app/usePanels.js';
import { useReferences } from './app/useReferences.js';
import { useSelection } from './app/useSelection.js';
import { useStartup } from './app/useStartup.js';

export function App({ store }: { store: EditorStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getState);
  const pack = state.history.present;
  const validation = useValidation(pack);
  const { diagnostics, findings, fixes, applyFixes } = useFindings(store, state, validation);
  const panels = usePanels();
  const { connected, setConnected, workspace } = useConnectedWorkspace(pack as never);
  const { notice, notify } = useNotice();
  const nav = useSelection(store);
  const goTo = useGoTo(nav, pack, state.target, panels.closeFlowMap);
  const references = useReferences(pack, goTo.openReference);
  const file = usePackFile(store, notify, nav.clearSelection);
  const { ready, restored } = useStartup(store, file, panels.setDiff);
  // Autosave (not before the startup restore has decided) and the unsaved-changes warning.
  const draftPack = useAutosave(store, drafts, PAGE, restored, notify);
  const doExport = useCallback(() => exportPack(store), [store]);
  useGlobalKeys(store, doExport, file.fileInput);
  useFieldFocus(nav.fieldFocus);
  useDocumentTitle(store, pack, state.savedPack);
  usePaletteKeys(panels.setDialog);
  const drop = useFileDrop(file.openFile);
  const commands = commandHandlers({ store, panels, file, select: nav.select, pickDiagnostic: goTo.pickDiagnostic, doExport });
  const { diff, setDiff, view, dialog, setDialog } = panels;

  return (
    <WorkspaceContext.Provider value={workspace}>
      <div className="app" {...drop.handlers}>
        <Toolbar
          source={state.source}
          dirty={store.dirty}
          draftKept={draftPack === pack}
          fileInput={file.fileInput}
          onFile={file.openFile}
          onNew={file.newPack}
          canUndo={canUndo(state.history)}
          canRedo={canRedo(state.history)}
          onUndo={() => store.undo()}
          onRedo={() => store.redo()}
          onExport={doExport}
          compare={diff.open}
          onCompare={panels.toggleCompare}
          flowMap={view.flowMap}
          onFlowMap={panels.toggleFlowMap}
          simulate={view.simulate}
          onSimulate={panels.toggleSimulate}
          connected={connected}
          onConnected={setConnected}
          connectRequest={panels.connectRequest}
          planOpen={panels.planOpen}
          onPlan={panels.togglePlan}
          onCommands={() => setDialog('commands')}
          opening={!ready}
        />
        {/* The panels that read the pack wait for the startup to open it: a plan read for the
            pack shown before would be a copy for another pack, and Plan would ask to read again. */}
        {ready && workspace && panels.planOpen && (
          <PlanPanel
            pack={pack as never}
            workspace={workspace}
            errors={validation.diagnostics.filter(blocksUse).length}
            onClose={panels.closePlan}
            onOpen={file.openFromWorkspace}
            onPick={goTo.openPlanItem}
          />
        )}
        {ready && view.simulate && (
          <SimulatePanel
            pack={pack as never}
            onClose={() => panels.setView((v) => ({ ...v, simulate: false }))}
            onStep={(key, node) => goTo.openAutomation(key, node ? [node] : [])}
            onPath={(key, nodes) => goTo.openAutomation(key, nodes)}
          />
        )}
        {file.banner && <OpenBanner text={file.banner} onOk={() => file.setBanner(undefined)} />}
        {!ready ? (
          <Opening />
        ) : diff.open ? (
          <Compare diff={diff} setDiff={setDiff} pack={pack} notify={notify} />
        ) : (
          <EditorBody
            store={store}
            pack={pack}
            target={state.target}
            findings={findings}
            nav={nav}
            references={references}
            flowMap={view.flowMap}
            closeFlowMap={panels.closeFlowMap}
            canvasSeq={file.canvasSeq.current}
            addRequest={panels.addRequest}
            notify={notify}
            notice={notice}
            onShortcuts={() => setDialog('shortcuts')}
          />
        )}
        {/* The edited pack's findings belong to the editor, not to the comparison. */}
        {!diff.open && (
          <DiagnosticsPanel
            key={state.opened}
            diagnostics={diagnostics}
            pending={validation.pending}
            onPick={goTo.onPickDiagnostic}
            fixes={fixes}
            onFix={applyFixes}
          />
        )}
        {drop.dragging && <div className="drop-overlay">Drop a pack file to open it</div>}
        {dialog === 'commands' && (
          <CommandPalette
            context={{ pack, target: state.target, diagnostics, connected: !!connected }}
            onRun={(a) => runCommand(a, commands)}
            onClose={() => setDialog(undefined)}
          />
        )}
        {dialog === 'shortcuts' && <Shortcuts onClose={() => setDialog(undefined)} />}
      </div>
    </WorkspaceContext.Provider>
  );
}

/** The main area while the startup restore decides what to open. */
function Opening() {
  return (
    <main className="main">
      <p className="empty" role="status">
        Opening…
      </p>
    </main>
  );
}

/** The comparison: its form until both sides are read, then the diff of the two. */
function Compare({ diff, setDiff, pack, notify }: Parameters<typeof CompareForm>[0]) {
  if (diff.old && diff.new && diff.shown)
    return <DiffView old={diff.old} new={diff.new} onClose={() => setDiff((d) => ({ ...d, open: false, shown: false }))} />;
  return <CompareForm diff={diff} setDiff={setDiff} pack={pack} notify={notify} />;
}
