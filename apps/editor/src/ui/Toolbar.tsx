// The editor's header: its name, where the pack came from and whether it has unsaved work, and the
// toolbar — file, history, views, the workspace, the command palette and the theme.
import type { RefObject } from 'react';
import {
  Command,
  FilePlus2,
  FolderOpen,
  GitCompare,
  Map as MapIcon,
  Moon,
  Redo2,
  Download,
  Sun,
  Undo2,
  FlaskConical,
  ClipboardCheck,
} from 'lucide-react';
import type { Connected } from '../workspace/connection.js';
import { ConnectPanel } from './ConnectPanel.js';
import { isMac } from '../model/shortcuts.js';
import { useTheme } from './theme.js';

export interface ToolbarProps {
  source: string;
  dirty: boolean;
  /** Whether the unsaved work is already kept in this browser (autosave). */
  draftKept: boolean;
  fileInput: RefObject<HTMLInputElement | null>;
  onFile: (file: File) => void;
  onNew: () => void;
  canUndo: boolean;
  canRedo: boolean;
  onUndo: () => void;
  onRedo: () => void;
  onExport: () => void;
  compare: boolean;
  onCompare: () => void;
  flowMap: boolean;
  onFlowMap: () => void;
  simulate: boolean;
  onSimulate: () => void;
  connected?: Connected;
  onConnected: (c: Connected | undefined) => void;
  /** Bumped to open the connect dialog from elsewhere (the command palette). */
  connectRequest?: number;
  planOpen: boolean;
  onPlan: () => void;
  onCommands: () => void;
  /** The startup is still opening the pack: what works on the pack waits for it. */
  opening: boolean;
}

const icon = { size: 15, 'aria-hidden': true } as const;

export function Toolbar(p: ToolbarProps) {
  const theme = useTheme();
  const other = theme.shown === 'dark' ? 'light' : 'dark';
  return (
    <header className="toolbar">
      <h1 className="title">Setup Pack editor</h1>
      <span className="source" title={p.source}>
        <span className="address">{p.source}</span>
        {p.dirty && (
          <span className="dirty" aria-label="Unsaved changes">
            {' '}
            ● unsaved
          </span>
        )}
        {p.dirty && (
          <span className="help" data-testid="draft-state">
            {' '}
            · {p.draftKept ? 'draft kept in this browser' : 'saving draft…'}
          </span>
        )}
      </span>
      <div className="actions" role="toolbar" aria-label="Editor">
        <button
          onClick={p.onCommands}
          aria-label={`Command palette ${isMac() ? '⌘K' : 'Ctrl+K'}`}
          aria-keyshortcuts="Control+K Meta+K"
          title="The command palette: add a block, go to an item or a finding, run Plan, Simulate or Export"
        >
          <Command {...icon} /> <kbd>{isMac() ? '⌘K' : 'Ctrl+K'}</kbd>
        </button>
        <span className="separator" aria-hidden="true" />
        <button onClick={p.onNew}>
          <FilePlus2 {...icon} /> New pack
        </button>
        <button onClick={() => p.fileInput.current?.click()} aria-label="Open pack file" title="Open (Ctrl+O)">
          <FolderOpen {...icon} /> Open…
        </button>
        <input
          ref={p.fileInput}
          type="file"
          accept=".json,application/json"
          hidden
          aria-label="Pack file"
          data-testid="open-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) p.onFile(f);
            e.target.value = '';
          }}
        />
        <button onClick={p.onUndo} disabled={!p.canUndo} aria-label="Undo" title="Undo (Ctrl+Z)">
          <Undo2 {...icon} />
        </button>
        <button onClick={p.onRedo} disabled={!p.canRedo} aria-label="Redo" title="Redo (Ctrl+Shift+Z)">
          <Redo2 {...icon} />
        </button>
        <span className="separator" aria-hidden="true" />
        <button onClick={p.onCompare} aria-pressed={p.compare}>
          <GitCompare {...icon} /> Compare releases
        </button>
        <button onClick={p.onFlowMap} aria-pressed={p.flowMap} disabled={p.opening}>
          <MapIcon {...icon} /> Flow map
        </button>
        <button onClick={p.onSimulate} aria-pressed={p.simulate} disabled={p.opening}>
          <FlaskConical {...icon} /> Simulate
        </button>
        <span className="separator" aria-hidden="true" />
        <ConnectPanel onChange={p.onConnected} openRequest={p.connectRequest} />
        {p.connected && (
          <button onClick={p.onPlan} aria-pressed={p.planOpen} disabled={p.opening} data-testid="plan-button">
            <ClipboardCheck {...icon} /> Plan
          </button>
        )}
        <button className="primary" onClick={p.onExport} aria-label="Export pack" title="Export (Ctrl+S)">
          <Download {...icon} /> Export
        </button>
        <button
          onClick={theme.toggle}
          aria-label={`Switch to the ${other} theme`}
          title={`Switch to the ${other} theme (${theme.choice === 'system' ? "following the device's now" : `chosen: ${theme.choice}`})`}
        >
          {theme.shown === 'dark' ? <Sun {...icon} /> : <Moon {...icon} />}
        </button>
      </div>
    </header>
  );
}
