// The findings list; clicking one focuses the item, node or field it points at.
import { memo, useMemo } from 'react';
import { describePointer, type Diagnostic } from '@setup-pack/core';

/** Rendering thousands of rows would stall typing; the first ones are the ones to fix. */
const SHOWN = 300;

// The rows depend only on the findings (a new validation result), not on each keystroke's
// "checking…" state: memoised, with a stable onPick, they are not re-rendered while typing.
const Rows = memo(function Rows({ diagnostics, onPick }: { diagnostics: Diagnostic[]; onPick: (d: Diagnostic) => void }) {
  return (
    <ul>
      {diagnostics.slice(0, SHOWN).map((d, i) => (
        <li key={i}>
          <button onClick={() => onPick(d)} data-code={d.code} title={d.hint}>
            <span className={`sev ${d.severity}`}>{d.severity}</span>
            <code>{d.code}</code>
            <span>{d.message}</span>
            <span className="help">{describePointer(d.pointer)}</span>
          </button>
        </li>
      ))}
      {diagnostics.length > SHOWN && <li className="help" style={{ padding: '3px 10px' }}>… and {diagnostics.length - SHOWN} more (fix these first, or run `setup-pack validate` for the full list)</li>}
    </ul>
  );
});

export const DiagnosticsPanel = memo(function DiagnosticsPanel(props: { diagnostics: Diagnostic[]; pending: boolean; onPick: (d: Diagnostic) => void }) {
  const { diagnostics } = props;
  const [errors, warnings] = useMemo(() => {
    let e = 0;
    let w = 0;
    for (const d of diagnostics) {
      if (d.severity === 'error') e++;
      else if (d.severity === 'warning') w++;
    }
    return [e, w];
  }, [diagnostics]);
  return (
    <details className="diagnostics" open aria-label="Diagnostics">
      <summary>
        Diagnostics: <span data-testid="error-count">{errors}</span> errors, <span data-testid="warning-count">{warnings}</span> warnings, {diagnostics.length - errors - warnings} info{props.pending ? ' (checking…)' : ''}
      </summary>
      <Rows diagnostics={diagnostics} onPick={props.onPick} />
    </details>
  );
});
