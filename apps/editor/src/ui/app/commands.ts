// The command palette's entries run through the editor's own actions; going to an item or a
// finding leaves the Flow map and the comparison for the editor.
import type { EditorStore } from '../../model/store.js';
import type { Target } from '../../model/pack.js';
import type { Diagnostic } from '@setup-pack/core';
import type { CommandHandlers } from '../CommandPalette.js';
import { showIds } from '../preference.js';
import { toggleTheme } from '../theme.js';
import type { Panels } from './usePanels.js';
import type { PackFile } from './usePackFile.js';

export interface CommandSources {
  store: EditorStore;
  panels: Panels;
  file: Pick<PackFile, 'newPack' | 'fileInput'>;
  select: (t: Target) => void;
  pickDiagnostic: (d: Diagnostic) => void;
  doExport: () => void;
}

export function commandHandlers({ store, panels, file, select, pickDiagnostic, doExport }: CommandSources): CommandHandlers {
  const { setView, setDiff, setDialog } = panels;
  const leaveViews = () => {
    setView((v) => ({ ...v, flowMap: false }));
    setDiff((d) => ({ ...d, open: false }));
  };
  return {
    add: (kind) => panels.setAddRequest({ kind, seq: Date.now() }),
    open: (t) => (leaveViews(), select(t)),
    finding: (d) => (leaveViews(), pickDiagnostic(d)),
    actions: {
      plan: () => panels.setPlanOpen(true),
      connect: () => panels.setConnectRequest((n) => n + 1),
      simulate: () => setView((v) => ({ ...v, simulate: true })),
      export: doExport,
      flowMap: () => setView((v) => ({ ...v, flowMap: true })),
      compare: () => setDiff((d) => ({ ...d, open: true, shown: false })),
      newPack: file.newPack,
      openFile: () => file.fileInput.current?.click(),
      theme: toggleTheme,
      ids: () => showIds.set(showIds.get() === 'shown' ? 'hidden' : 'shown'),
      shortcuts: () => setDialog('shortcuts'),
      undo: () => store.undo(),
      redo: () => store.redo(),
    },
  };
}
