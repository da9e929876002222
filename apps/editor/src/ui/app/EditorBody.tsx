// The editor on a pack: the sidebar of its items; the canvas of an automation (or the Flow map, or
// another item's form); the inspector of the automation and its selected blocks.
import { useCallback, type ReactNode } from 'react';
import type { EditorStore } from '../../model/store.js';
import type { PackValue, Target } from '../../model/pack.js';
import type { FindingIndex } from '../../model/findings.js';
import { AutomationInspector } from '../Inspector.js';
import { Canvas } from '../Canvas.js';
import { FieldFindings } from '../fields.js';
import { FlowMap } from '../FlowMap.js';
import { ItemPane } from '../ItemPane.js';
import { KeyboardHelp } from '../Shortcuts.js';
import { ReferencesContext } from '../BlockNode.js';
import { Sidebar } from '../Sidebar.js';
import { useFormFindings, useItemEditing } from './useItemEditing.js';
import type { References } from './useReferences.js';
import type { Selection } from './useSelection.js';

export interface EditorBodyProps {
  store: EditorStore;
  pack: PackValue;
  target: Target;
  findings: FindingIndex;
  nav: Selection;
  references: References;
  flowMap: boolean;
  closeFlowMap: () => void;
  /** Bumped by every pack opened: the canvas is made anew for it (usePackFile). */
  canvasSeq: number;
  /** A block the command palette asked the canvas to add. */
  addRequest: { kind: string; seq: number } | undefined;
  notify: (text: string) => void;
  notice: string | undefined;
  onShortcuts: () => void;
}

export function EditorBody(p: EditorBodyProps) {
  const { store, pack, target, findings, nav, references, notify } = p;
  const { automationIndex, doc, item, editDoc, editItem, addAutomation } = useItemEditing(store, pack, target, nav.select);
  const shown = useFormFindings(findings, pack, target, doc, nav.selection.nodes);
  const commitPack = useCallback((fn: (p: PackValue) => PackValue) => store.commit(fn), [store]);
  const form = (el: ReactNode) => (
    <ReferencesContext.Provider value={references}>
      <FieldFindings findings={shown.findings} at={shown.at}>
        {el}
      </FieldFindings>
    </ReferencesContext.Provider>
  );
  const openFromMap = (index: number) => {
    p.closeFlowMap();
    nav.select({ kind: 'automations', index });
  };
  return (
    <div className="body">
      <Sidebar pack={pack} target={target} findings={findings} select={nav.select} commit={commitPack} />
      <main className="main" aria-label="Editor">
        {p.flowMap ? (
          <FlowMap pack={pack as never} onClose={p.closeFlowMap} onOpen={openFromMap} />
        ) : doc ? (
          <ReferencesContext.Provider value={references}>
            <Canvas
              key={`${p.canvasSeq}/${automationIndex}`}
              doc={doc}
              automation={automationIndex}
              findings={findings}
              edit={editDoc}
              onSelection={nav.onSelection}
              focus={nav.focus}
              notify={notify}
              refs={references.refs}
              add={p.addRequest}
            />
          </ReferencesContext.Provider>
        ) : (
          form(<ItemPane pack={pack} target={target} edit={editItem} notify={notify} onAddAutomation={addAutomation} />)
        )}
        {p.notice && (
          <div className="notice" role="status">
            {p.notice}
          </div>
        )}
      </main>
      <aside className="inspector" aria-label="Inspector">
        {doc && item ? (
          form(
            <ReferencesContext.Provider value={references}>
              <AutomationInspector
                doc={doc}
                item={item}
                selected={nav.selection.nodes}
                edit={editDoc}
                editItem={editItem}
                notify={notify}
                selectBlocks={(ids) => nav.setFocus({ nodeIds: ids, seq: Date.now() })}
              />
            </ReferencesContext.Provider>,
          )
        ) : (
          <KeyboardHelp onAll={p.onShortcuts} />
        )}
      </aside>
    </div>
  );
}
