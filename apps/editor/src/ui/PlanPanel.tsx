// Plan preview: what installing the pack being edited would do to the connected workspace, in the
// words and symbols of `setup-pack plan` (+ create, ~ update, - remove, ! conflict, = unchanged),
// computed by core's planner. The workspace's ledger and catalog are read once, on demand
// ("Refresh"), into the copy the inspector's reference pickers share (workspace/catalog.ts); edits
// to the pack re-plan against that copy in a worker (usePlanPreview), never a request per keystroke.
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { blocksUse, count, plural, printable, type Pack, type PlanError } from '@setup-pack/core';
import { exportWorkspace, install, PlanFailedError, symbolOf } from '@setup-pack/installer';
import { readFailure, type WorkspaceState } from '../workspace/catalog.js';
import { RefMark } from './RefPicker.js';
import { usePlanPreview } from './usePlanPreview.js';
import type { PlanStepView, PlanView } from '../model/planView.js';

const KIND_LABEL: Record<string, string> = {
  resource: 'Resources',
  pipeline: 'Pipelines',
  asset: 'Assets',
  template: 'Message templates',
  brand: 'Brand',
  smartList: 'Smart lists',
  automation: 'Automations',
};

/** The pack's list each kind of plan item is in. */
export const PLAN_KIND_LIST: Record<string, string> = {
  resource: 'resources',
  pipeline: 'pipelines',
  asset: 'assets',
  template: 'messageTemplates',
  smartList: 'smartLists',
  automation: 'automations',
};

/**
 * The items of the pack being edited that a plan row or warning can open, as `kind:key`: an item
 * gone from this release (one prune removes or keeps) has nothing to open. The brand is the pack's
 * own fields. Worked out once per pack, not once per row: a plan has a row for each of up to 900 items.
 */
export function openableItems(pack: Pack): Set<string> {
  const out = new Set<string>();
  if (pack.brand != null) out.add('brand:');
  for (const [kind, list] of Object.entries(PLAN_KIND_LIST)) {
    const items = (pack as unknown as Record<string, unknown>)[list];
    if (Array.isArray(items))
      for (const x of items) if (typeof (x as { key?: unknown } | null)?.key === 'string') out.add(`${kind}:${(x as { key: string }).key}`);
  }
  return out;
}

const opens = (openable: Set<string>, kind: string, key: string) => openable.has(kind === 'brand' ? 'brand:' : `${kind}:${key}`);

/**
 * A reference the plan cannot bind, as the editor can fix it: what installing does with it (the
 * mark the reference's own field shows) and the automations that use it, each a button that opens
 * it, where `Choose…` on the block picks the workspace object. Core's message says the same for the
 * command line (`--bind type:id=…`), which the editor has no use for.
 */
function ReferenceProblem({
  reference: r,
  automations,
  onPick,
}: {
  reference: NonNullable<PlanError['reference']>;
  automations: readonly { key: string; name?: string; document?: { name?: string } }[];
  onPick?: (kind: string, key: string) => void;
}) {
  return (
    <>
      <span>
        {r.type} {r.name ? `“${printable(r.name)}” ` : ''}
        <code>{printable(r.id)}</code>
      </span>
      <RefMark type={r.type} id={r.id} />
      <span className="help">Used by </span>
      {r.usedBy.map((key, i) => {
        const a = automations.find((x) => x.key === key);
        return (
          <span key={key}>
            {i > 0 && ', '}
            <button className="linkish" onClick={() => onPick?.('automation', key)} title="Open this automation">
              {printable(a?.document?.name ?? a?.name ?? key)}
            </button>
          </span>
        );
      })}
    </>
  );
}

type OnPick = (kind: string, key: string) => void;

export function PlanPanel({
  pack,
  workspace,
  errors,
  onPick,
  onOpen,
  onClose,
}: {
  pack: Pack;
  workspace: WorkspaceState;
  errors: number;
  onPick?: OnPick;
  onOpen?: (text: string, source: string) => void;
  onClose?: () => void;
}) {
  const { connected, catalog, refresh } = workspace;
  const actions = usePlanActions(pack, workspace, onOpen);
  const busy = actions.busy || workspace.busy;
  useReadOnOpen(workspace);
  useEscapeCloses(onClose);
  const status = actions.status || workspace.status || (workspace.busy ? 'Reading the workspace…' : '');
  const result = usePlanPreview(pack, workspace, errors);
  const plan = result.view;
  // Offered only for a pack with 0 errors whose plan binds every reference and changes something.
  const canInstall = !!plan?.ok && errors === 0 && plan.hasChanges && !busy && !workspace.unreachable;
  return (
    <section className="popover plan-panel" aria-label="Plan preview">
      <h2>Install into {connected.workspace.name}</h2>
      <p>
        <button onClick={() => (actions.clearInstalled(), void refresh())} disabled={busy}>
          {catalog ? 'Refresh' : 'Read the workspace and plan'}
        </button>{' '}
        <button
          onClick={() => void actions.openFromWorkspace(false)}
          disabled={busy || !catalog?.ledger}
          title={
            catalog?.ledger
              ? 'Open this pack as it is installed in the workspace'
              : 'Read the workspace first; the pack must be installed there'
          }
        >
          Open installed
        </button>{' '}
        <button onClick={() => void actions.openFromWorkspace(true)} disabled={busy}>
          Open workspace snapshot
        </button>{' '}
        {catalog && <span className="help">Workspace read at {catalog.readAt.toLocaleTimeString()}; edits re-plan against that copy.</span>}
      </p>
      <p className="plan-options">
        <label title="As setup-pack plan --prune and install --prune: an item the workspace's copy of which was edited, or that another installed pack or a reference of this release uses, is kept, with a warning">
          <input type="checkbox" checked={workspace.prune} disabled={busy} onChange={(e) => workspace.setPrune(e.target.checked)} /> Remove
          items gone from this release, when unedited (<code>--prune</code>)
        </label>
      </p>
      <PlanStatus pack={pack} workspace={workspace} busy={busy} status={status} progress={actions.progress} />
      {actions.installed && (
        <p role="status" data-testid="install-summary">
          {actions.installed}{' '}
          <button className="link" onClick={() => void actions.openFromWorkspace(false)} disabled={busy}>
            Open the automations as installed
          </button>
        </p>
      )}
      {result.note && (
        <p role="status" className="help">
          {result.note}
        </p>
      )}
      {plan && (
        <>
          <p data-testid="plan-summary">
            <strong>{plan.ok ? plan.summary : 'The plan failed:'}</strong>
          </p>
          <p>
            <button
              className="primary"
              disabled={!canInstall}
              onClick={() => void actions.runInstall()}
              title={
                canInstall
                  ? 'Install this pack into the workspace'
                  : 'Needs a pack with 0 errors, every reference bound, and something to change'
              }
            >
              Install
            </button>
          </p>
          <PlanBody plan={plan} pack={pack} onPick={onPick} />
        </>
      )}
    </section>
  );
}

/** Opening the panel the first time reads the workspace and plans: one click shows the plan. */
function useReadOnOpen(workspace: WorkspaceState) {
  useEffect(() => {
    if (!workspace.catalog && !workspace.busy) void workspace.refresh();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}

/** Escape closes the panel, as it closes the editor's other popovers. */
function useEscapeCloses(onClose: (() => void) | undefined) {
  useEffect(() => {
    if (!onClose) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && !e.defaultPrevented && onClose();
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);
}

/** What the panel is doing or waiting for, in words: the workspace read for another pack, not installed there, a read, an install's progress. */
function PlanStatus({
  pack,
  workspace,
  busy,
  status,
  progress,
}: {
  pack: Pack;
  workspace: WorkspaceState;
  busy: boolean;
  status: string;
  progress?: string;
}) {
  const { catalog, connected } = workspace;
  return (
    <>
      {workspace.stale && !busy && (
        <p role="status" className="help" data-testid="read-for-another-pack">
          The workspace was read for another pack: read it again to plan this one.
        </p>
      )}
      {catalog && !catalog.ledger && (
        <p className="help" data-testid="not-installed">
          {printable(pack.name ?? 'This pack')} is not installed in {connected.workspace.name}.
        </p>
      )}
      {status && (
        <p role="status" className="connect-status">
          {status}
        </p>
      )}
      {progress && (
        <p role="status" data-testid="install-progress">
          Installing… {progress}
        </p>
      )}
      {workspace.waiting && (
        <p role="status" data-testid="workspace-waiting" className="help">
          {workspace.waiting}
        </p>
      )}
    </>
  );
}

/**
 * The panel's two actions on the workspace and their state: Install (the same installer the CLI
 * runs: ledger, lock, resume, pacing by the rate-limit headers) and Open from the workspace
 * (`setup-pack export`, the installed pack or a snapshot of everything, validated before it replaces what is open).
 */
function usePlanActions(pack: Pack, workspace: WorkspaceState, onOpen?: (text: string, source: string) => void) {
  const { connected, refresh } = workspace;
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<string>();
  const [installed, setInstalled] = useState<string>();
  const runInstall = async () => {
    setBusy(true);
    setInstalled(undefined);
    setStatus('');
    try {
      // The choice the preview shows (prune), as `setup-pack install --prune` takes it: the installer
      // plans again with it, reading the other packs' ledgers itself.
      const r = await install(workspace.client(), pack, {
        holder: 'setup-pack-editor',
        prune: workspace.prune,
        onProgress: (e) => setProgress(`${count(e.done)} of ${count(e.total)}: ${symbolOf(e.step)} ${e.step.name}`),
      });
      setInstalled(`Installed ${pack.name} ${pack.version} into ${connected.workspace.name}: ${plural(r.written, 'write')}.`);
    } catch (e) {
      setStatus(
        e instanceof PlanFailedError
          ? `The plan failed: ${printable(e.plan.errors.map((x) => x.message).join('; '))}`
          : `The install stopped: ${(e as Error).message}. What was written is recorded; Install again resumes.`,
      );
    } finally {
      setProgress(undefined);
      setBusy(false);
      await refresh();
    }
  };
  const openFromWorkspace = async (all: boolean) => {
    setBusy(true);
    setStatus(all ? 'Reading the whole workspace…' : 'Reading the installed pack…');
    try {
      const r = await exportWorkspace(workspace.client(), all ? { all: true } : { packId: pack.packId });
      const bad = r.diagnostics.filter(blocksUse);
      if (bad.length)
        setStatus(`The export does not validate (${plural(bad.length, 'error')}, e.g. ${bad[0].message}); nothing was opened.`);
      else {
        setStatus('');
        onOpen?.(
          `${JSON.stringify(r.pack, null, 2)}\n`,
          all ? `${connected.workspace.name} (snapshot)` : `${connected.workspace.name}: ${r.pack.name} ${r.pack.version}`,
        );
      }
    } catch (e) {
      // Said as every read of the workspace says it (a server gone, a key refused), not in the browser's words.
      setStatus(readFailure(connected, e));
    } finally {
      setBusy(false);
    }
  };
  return { status, busy, progress, installed, clearInstalled: () => setInstalled(undefined), runInstall, openFromWorkspace };
}

/** The plan's references, errors, warnings and steps by kind; which items can be opened is worked out once per pack. */
function PlanBody({ plan, pack, onPick }: { plan: PlanView; pack: Pack; onPick?: OnPick }) {
  const openable = useOpenable(pack);
  const groups = useMemo(() => {
    const out = new Map<string, PlanStepView[]>();
    for (const s of plan.steps) {
      const list = out.get(s.kind);
      if (list) list.push(s);
      else out.set(s.kind, [s]);
    }
    return out;
  }, [plan]);
  return (
    <>
      <References plan={plan} />
      <PlanErrors plan={plan} pack={pack} onPick={onPick} />
      <PlanWarnings plan={plan} openable={openable} onPick={onPick} />
      <PlanSteps groups={groups} openable={openable} onPick={onPick} />
    </>
  );
}

/** What stops the plan; a reference it cannot bind says how to fix it in the editor. */
function PlanErrors({ plan, pack, onPick }: { plan: PlanView; pack: Pack; onPick?: OnPick }) {
  if (!plan.errors.length) return null;
  return (
    <ul className="plan-errors" data-testid="plan-errors" aria-label="Errors">
      {plan.errors.map((e, i) => (
        <li key={i}>
          {e.reference ? (
            <ReferenceProblem reference={e.reference} automations={pack.automations ?? []} onPick={onPick} />
          ) : (
            printable(e.message)
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * Core's warnings, in its words (as `setup-pack plan` prints them): the plan goes through and
 * Install stays offered; each opens the item it is about.
 */
function PlanWarnings({ plan, openable, onPick }: { plan: PlanView; openable: Set<string>; onPick?: OnPick }) {
  if (!plan.warnings.length) return null;
  return (
    <ul className="plan-warnings" data-testid="plan-warnings" aria-label="Warnings">
      {plan.warnings.map((w, i) => (
        <li key={i} data-code={w.code}>
          <span className="warning-mark" aria-hidden="true">
            ⚠
          </span>{' '}
          <strong>Warning:</strong> {printable(w.message)}
          {opens(openable, w.item.kind, w.item.key) && (
            <>
              {' '}
              <button className="linkish" onClick={() => onPick?.(w.item.kind, w.item.key)} title="Open this item">
                Open {printable(w.item.name || w.item.key)}
              </button>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * openableItems of the pack, the same set as long as its members are: a keystroke in a field
 * changes the pack but seldom its keys, and the steps (memoized) are then not gone through again.
 */
function useOpenable(pack: Pack): Set<string> {
  const last = useRef<Set<string>>(undefined);
  return useMemo(() => {
    const next = openableItems(pack);
    const prev = last.current;
    if (prev && prev.size === next.size && [...next].every((k) => prev.has(k))) return prev;
    return (last.current = next);
  }, [pack]);
}

/** The plan's steps by kind, each a button that opens its item (an item gone from this release has none); drawn again only for a new plan or new keys. */
const PlanSteps = memo(function PlanSteps({
  groups,
  openable,
  onPick,
}: {
  groups: Map<string, PlanStepView[]>;
  openable: Set<string>;
  onPick?: OnPick;
}) {
  return [...groups].map(([kind, steps]) => (
    <div key={kind}>
      <h3>{KIND_LABEL[kind] ?? kind}</h3>
      <ul className="plan-steps">
        {steps.map((s, i) => (
          <StepRow
            key={`${s.itemId}-${i}`}
            kind={s.kind}
            itemKey={s.key}
            action={s.action}
            symbol={s.symbol}
            name={printable(s.name)}
            description={s.description}
            openable={opens(openable, s.kind, s.key)}
            onPick={onPick}
          />
        ))}
      </ul>
    </div>
  ));
});

/**
 * One step of the plan, in words only (strings and a flag), so that a re-plan after a keystroke
 * renders again only the rows whose words changed: a plan of the pack at every limit has 900.
 */
const StepRow = memo(function StepRow({
  kind,
  itemKey,
  action,
  symbol,
  name,
  description,
  openable,
  onPick,
}: {
  kind: string;
  itemKey: string;
  action: string;
  symbol: string;
  name: string;
  description: string;
  openable: boolean;
  onPick?: OnPick;
}) {
  return (
    <li data-action={action}>
      {openable ? (
        <button className="linkish" onClick={() => onPick?.(kind, itemKey)} title="Open this item">
          <code>{symbol}</code> {name}
        </button>
      ) : (
        // Gone from this release: nothing in the pack to open.
        <span className="gone" title="Not in this pack: only the workspace has it">
          <code>{symbol}</code> {name}
        </span>
      )}{' '}
      <span className="help">{description}</span>
    </li>
  );
});

const BOUND_BY: Record<PlanView['references'][number]['source'], string> = {
  pack: "the pack's own item",
  option: 'chosen',
  ledger: 'as installed',
  name: 'matched by name',
  create: 'created by the install',
};

/** The references the plan binds to what the workspace has (not to the pack's own items), as `setup-pack plan` lists them. */
function References({ plan }: { plan: PlanView }) {
  const external = plan.references;
  if (!external.length) return null;
  return (
    <div data-testid="plan-references">
      <h3>References</h3>
      <ul className="plan-steps">
        {external.map((b) => (
          <li key={`${b.type}:${b.id}`}>
            {b.type.replace(/_/g, ' ')} {printable(b.name ?? b.id)} →{' '}
            {b.workspaceId !== undefined ? <code>{printable(b.workspaceId)}</code> : `a new ${b.type.replace(/_/g, ' ')}`}{' '}
            <span className="help">({BOUND_BY[b.source]})</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
