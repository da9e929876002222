// The findings list; clicking one focuses the item, node or field it points at.
import { describePointer, type Diagnostic } from '@setup-pack/core';

/** Rendering thousands of rows would stall typing; the first ones are the ones to fix. */
const SHOWN = 300;

export function DiagnosticsPanel(props: { diagnostics: Diagnostic[]; pending: boolean; onPick: (d: Diagnostic) => void }) {
  const { diagnostics } = props;
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.filter((d) => d.severity === 'warning').length;
  return (
    <details className="diagnostics" open aria-label="Diagnostics">
      <summary>
        Diagnostics: <span data-testid="error-count">{errors}</span> errors, <span data-testid="warning-count">{warnings}</span> warnings, {diagnostics.length - errors - warnings} info{props.pending ? ' (checking…)' : ''}
      </summary>
      <ul>
        {diagnostics.slice(0, SHOWN).map((d, i) => (
          <li key={i}>
            <button onClick={() => props.onPick(d)} data-code={d.code} title={d.hint}>
              <span className={`sev ${d.severity}`}>{d.severity}</span>
              <code>{d.code}</code>
              <span>{d.message}</span>
              <span className="help">{describePointer(d.pointer)}</span>
            </button>
          </li>
        ))}
        {diagnostics.length > SHOWN && <li className="help" style={{ padding: '3px 10px' }}>… and {diagnostics.length - SHOWN} more (fix these first, or run `setup-pack validate` for the full list)</li>}
      </ul>
    </details>
  );
}
