// Plan preview: what installing the pack being edited would do to the connected workspace, in the
// words and symbols of `setup-pack plan` (+ create, ~ update, - remove, ! conflict, = unchanged),
// computed by core's planner. The workspace's ledger and catalog are read once, on demand
// ("Refresh"); edits to the pack re-plan locally against that copy, never a request per keystroke.
import { useMemo, useState } from 'react';
import { plan as planPack, requiredCollections, type InstallLedger, type Pack, type PlanResult, type WorkspaceSnapshot } from '@setup-pack/core';
import { describeStep, fetchSnapshot, readLedger, summaryLine, symbolOf, WorkspaceClient } from '@setup-pack/installer';
import type { Connected } from '../workspace/connection.js';

interface Catalog {
  ledger: InstallLedger | null;
  snapshot: WorkspaceSnapshot;
  collections: Set<string>;
  readAt: Date;
}

const KIND_LABEL: Record<string, string> = { resource: 'Resources', pipeline: 'Pipelines', asset: 'Assets', template: 'Message templates', brand: 'Brand', smartList: 'Smart lists', automation: 'Automations' };

export function PlanPanel({ pack, connected, errors, onPick }: { pack: Pack; connected: Connected; errors: number; onPick?: (kind: string, key: string) => void }) {
  const [catalog, setCatalog] = useState<Catalog>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);

  const refresh = async () => {
    setBusy(true);
    setStatus('Reading the workspace…');
    try {
      const client = new WorkspaceClient({ baseUrl: connected.baseUrl, apiKey: connected.apiKey });
      const ledger = (await readLedger(client, pack.packId))?.ledger ?? null;
      const collections = requiredCollections(pack, ledger);
      const snapshot = await fetchSnapshot(client, collections, ledger?.state === 'in_progress' ? pack.packId : undefined);
      setCatalog({ ledger, snapshot, collections: new Set(collections), readAt: new Date() });
      setStatus('');
    } catch (e) {
      setStatus(`Could not read the workspace: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const result = useMemo((): { plan?: PlanResult; note?: string } => {
    if (!catalog) return {};
    if (errors > 0) return { note: `The pack has ${errors} error${errors === 1 ? '' : 's'}: fix ${errors === 1 ? 'it' : 'them'} to see what installing it would do.` };
    const needed = requiredCollections(pack, catalog.ledger);
    if (needed.some((c) => !catalog.collections.has(c))) return { note: 'The pack now uses parts of the workspace not read yet: refresh.' };
    try {
      return { plan: planPack(pack, catalog.ledger, catalog.snapshot) };
    } catch (e) {
      return { note: `Cannot plan this pack: ${(e as Error).message}` };
    }
  }, [pack, catalog, errors]);

  const plan = result.plan;
  const groups = new Map<string, NonNullable<typeof plan>['steps']>();
  for (const s of plan?.steps ?? []) groups.set(s.kind, [...(groups.get(s.kind) ?? []), s]);

  return (
    <section className="plan-panel" aria-label="Plan preview">
      <h2>Install into {connected.workspace.name}</h2>
      <p>
        <button onClick={() => void refresh()} disabled={busy}>{catalog ? 'Refresh' : 'Read the workspace and plan'}</button>{' '}
        {catalog && <span className="help">Workspace read at {catalog.readAt.toLocaleTimeString()}; edits re-plan against that copy.</span>}
      </p>
      {status && <p role="status" className="connect-status">{status}</p>}
      {result.note && <p role="status" className="help">{result.note}</p>}
      {plan && (
        <>
          <p data-testid="plan-summary"><strong>{plan.ok ? summaryLine(plan) : 'The plan failed:'}</strong></p>
          {plan.errors.length > 0 && (
            <ul className="plan-errors">
              {plan.errors.map((e, i) => <li key={i}>{e.message}</li>)}
            </ul>
          )}
          {[...groups].map(([kind, steps]) => (
            <div key={kind}>
              <h3>{KIND_LABEL[kind] ?? kind}</h3>
              <ul className="plan-steps">
                {steps.map((s, i) => (
                  <li key={`${s.itemId}-${i}`} data-action={s.action}>
                    <button className="linkish" onClick={() => onPick?.(s.kind, s.key)} title="Open this item">
                      <code>{symbolOf(s)}</code> {s.name}
                    </button>{' '}
                    <span className="help">{describeStep(s)}</span>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </>
      )}
    </section>
  );
}
