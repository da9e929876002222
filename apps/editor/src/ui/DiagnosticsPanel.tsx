// The findings list; clicking one focuses the item, node or field it points at. Repeats of one
// code and message shape fold into one row with a count (as `setup-pack validate` prints them),
// and only the rows in view are rendered, so 50,000 findings scroll and type as smoothly as 5.
import { memo, useCallback, useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { count, describePointer, plural, printable, type Diagnostic } from '@setup-pack/core';
import { renderCounts } from './renderCounts.js';
import { flattenRows, groupId, regroupRows, type FindingRow, type GroupedRows } from '../model/findingRows.js';

const ROW_HEIGHT = 24;

// A message quotes the pack's own keys and values: printable writes a bidirectional override or a
// control character in them as JSON escapes it, so it cannot reorder the row (as in the CLI).
function FindingButton({ d, nested, onPick }: { d: Diagnostic; nested: boolean; onPick: (d: Diagnostic) => void }) {
  return (
    <button className={nested ? 'nested' : undefined} onClick={() => onPick(d)} data-code={d.code} title={d.hint && printable(d.hint)}>
      <span className={`sev ${d.severity}`}>{d.severity}</span>
      <code>{d.code}</code>
      <span className="msg">{printable(d.message)}</span>
      {d.hint && <span className="hint">Hint: {printable(d.hint)}</span>}
      <span className="help">{printable(describePointer(d.pointer))}</span>
    </button>
  );
}

// The rows depend only on the findings (a new validation result) and which groups are open, not
// on each keystroke's "checking…" state: memoised, with a stable onPick, they are not re-rendered
// while typing.
const Rows = memo(function Rows({ diagnostics, onPick }: { diagnostics: Diagnostic[]; onPick: (d: Diagnostic) => void }) {
  renderCounts.findingRows++;
  // Regrouped from the groups before: an edit that changes a few of 50,000 findings regroups those.
  const grouped = useRef<GroupedRows>(undefined);
  const groups = useMemo(() => (grouped.current = regroupRows(grouped.current, diagnostics)).groups, [diagnostics]);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const rows = useMemo(() => flattenRows(groups, open), [groups, open]);
  const toggle = useCallback(
    (id: string) =>
      setOpen((s) => {
        const next = new Set(s);
        if (!next.delete(id)) next.add(id);
        return next;
      }),
    [],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
    getItemKey: (i) => rows[i].id,
  });
  // No findings is one line, not an empty list (a list must hold items).
  if (rows.length === 0) return <p className="help diagnostics-empty">No findings: every rule of the format holds.</p>;
  return (
    <div className="diagnostics-rows" ref={scroller} role="list" aria-label="Findings">
      <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {virtual.getVirtualItems().map((v) => {
          const row: FindingRow = rows[v.index];
          return (
            <div
              key={v.key}
              role="listitem"
              className="diagnostics-row"
              style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_HEIGHT, transform: `translateY(${v.start}px)` }}
            >
              {row.type === 'item' ? (
                <FindingButton d={row.finding} nested={row.nested} onPick={onPick} />
              ) : (
                <div className="group">
                  <button
                    className="toggle"
                    aria-expanded={row.open}
                    aria-label={`${row.open ? 'Hide' : 'Show'} all ${count(row.group.items.length)} findings like this`}
                    onClick={() => toggle(groupId(row.group))}
                  >
                    {row.open ? '▾' : '▸'}
                  </button>
                  <FindingButton d={row.group.items[0]} nested={false} onPick={onPick} />
                  <span className="count" title="findings with this code and message">
                    ×{count(row.group.items.length)}
                  </span>
                </div>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
});

/** How many of the lines a fix changed the panel lists (the rest are counted). */
const REPORT_LINES = 5;

/**
 * The panel. `fixes`: what core's mechanical fixes (setup-pack fix) would change in the pack the
 * findings belong to, a line each; when there are any, a Fix button applies them (`onFix`, one
 * undoable edit, returns the lines it changed) and the panel lists them for a few seconds.
 */
export const DiagnosticsPanel = memo(function DiagnosticsPanel(props: {
  diagnostics: Diagnostic[];
  pending: boolean;
  onPick: (d: Diagnostic) => void;
  fixes: readonly string[];
  onFix: () => string[];
}) {
  const { diagnostics, fixes, onFix } = props;
  const [errors, warnings] = useMemo(() => {
    let e = 0;
    let w = 0;
    for (const d of diagnostics) {
      if (d.severity === 'error') e++;
      else if (d.severity === 'warning') w++;
    }
    return [e, w];
  }, [diagnostics]);
  const infos = diagnostics.length - errors - warnings;
  const [report, setReport] = useState<{ lines: string[] }>();
  useEffect(() => {
    if (!report) return;
    const t = setTimeout(() => setReport(undefined), 8000);
    return () => clearTimeout(t);
  }, [report]);
  const fix = useCallback(
    (e: MouseEvent) => {
      e.preventDefault(); // a button in the summary: do not fold the panel too
      setReport({ lines: onFix() });
    },
    [onFix],
  );
  return (
    <section aria-label="Diagnostics">
      <details className="diagnostics" open>
        <summary>
          Diagnostics: <span data-testid="error-count">{plural(errors, 'error')}</span>,{' '}
          <span data-testid="warning-count">{plural(warnings, 'warning')}</span>, {plural(infos, 'info')}
          {props.pending ? ' (checking…)' : ''}
          {fixes.length > 0 && (
            <button className="fix" onClick={fix} title={`What setup-pack fix would change:\n${listed(fixes, 10).join('\n')}`}>
              Fix
            </button>
          )}
        </summary>
        {report && (
          <div className="fix-report" role="status" aria-label="Fixed">
            {report.lines.length === 0 ? (
              'Nothing left to fix.'
            ) : (
              <>
                Made {plural(report.lines.length, 'fix', 'fixes')} (Undo puts {report.lines.length === 1 ? 'it' : 'them'} back):
                <ul>
                  {listed(report.lines, REPORT_LINES).map((line, i) => (
                    <li key={i}>{line}</li>
                  ))}
                </ul>
              </>
            )}
            <button aria-label="Close" onClick={() => setReport(undefined)}>
              ×
            </button>
          </div>
        )}
        <Rows diagnostics={diagnostics} onPick={props.onPick} />
      </details>
    </section>
  );
});

/** The first `n` lines, printable (they quote the pack's own keys), and a count of the rest. */
function listed(lines: readonly string[], n: number): string[] {
  const shown = lines.slice(0, n).map((l) => printable(l));
  return lines.length > n ? [...shown, `and ${count(lines.length - n)} more`] : shown;
}
