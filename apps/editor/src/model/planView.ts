// What the plan preview shows of a plan, and the plan itself worked out from the workspace's copy:
// one pure function, run in the plan worker (plan.worker.ts) and, where no worker can start, on
// the main thread. The view holds words only (a step's symbol, name and description, not its
// content), so what crosses from the worker on each edit is small.
import {
  plan,
  requiredCollections,
  type InstallLedger,
  type Pack,
  type PlanError,
  type PlanResult,
  type WorkspaceCollection,
  type WorkspaceSnapshot,
} from '@setup-pack/core';
import { describeStep, summaryLine, symbolOf } from '@setup-pack/installer';

export interface PlanStepView {
  itemId: string;
  kind: string;
  key: string;
  action: string;
  symbol: string;
  name: string;
  description: string;
}

export interface PlanView {
  ok: boolean;
  hasChanges: boolean;
  /** `setup-pack plan`'s summary line. */
  summary: string;
  errors: { message: string; reference?: PlanError['reference'] }[];
  warnings: { code: string; message: string; item: { kind: string; key: string; name?: string } }[];
  steps: PlanStepView[];
  /** The references bound to what the workspace has (not to the pack's own items). */
  references: { type: string; id: string; name?: string; workspaceId?: string; source: PlanResult['bindings'][number]['source'] }[];
}

/** What the workspace was read into, as the planner takes it. */
export interface PlanInput {
  ledger: InstallLedger | null;
  snapshot: WorkspaceSnapshot;
  collections: WorkspaceCollection[];
  options: { prune: boolean; others?: readonly InstallLedger[] };
}

/** The plan of the pack against the workspace's copy, as the panel shows it, or a note saying why there is none. */
export function planView(pack: Pack, input: PlanInput): { view?: PlanView; note?: string } {
  const read = new Set(input.collections);
  if (requiredCollections(pack, input.ledger).some((c) => !read.has(c)))
    return { note: 'The pack now uses parts of the workspace not read yet: refresh.' };
  // Prune keeps what the workspace's other installed packs hold: planned once their ledgers are read.
  if (input.options.prune && input.ledger && !input.options.others)
    return { note: 'Reading the packs installed beside this one, which prune must leave their items…' };
  try {
    return { view: viewOf(plan(pack, input.ledger, input.snapshot, input.options)) };
  } catch (e) {
    return { note: `Cannot plan this pack: ${(e as Error).message}` };
  }
}

function viewOf(p: PlanResult): PlanView {
  return {
    ok: p.ok,
    hasChanges: p.hasChanges,
    summary: p.ok ? summaryLine(p) : '',
    errors: p.errors.map((e) => ({ message: e.message, ...(e.reference ? { reference: e.reference } : {}) })),
    warnings: p.warnings.map((w) => ({
      code: w.code,
      message: w.message,
      item: { kind: w.item.kind, key: w.item.key, name: w.item.name },
    })),
    steps: p.steps.map((s) => ({
      itemId: s.itemId,
      kind: s.kind,
      key: s.key,
      action: s.action,
      symbol: symbolOf(s),
      name: s.name,
      description: describeStep(s),
    })),
    references: p.bindings
      .filter((b) => b.source !== 'pack')
      .map((b) => ({
        type: b.type,
        id: b.id,
        name: b.name,
        source: b.source,
        ...('workspaceId' in b.target ? { workspaceId: b.target.workspaceId } : {}),
      })),
  };
}
