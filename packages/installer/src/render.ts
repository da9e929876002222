// Plans as text, Terraform style: + create, ~ update, - remove, ! conflict, = unchanged.
import {
  closest,
  count,
  ITEM_KIND_WORD,
  itemLabel,
  plural,
  printable as p,
  REFERENCE_TYPES,
  type PlanResult,
  type PlanStep,
  type ReferenceType,
} from '@setup-pack/core';

export interface Paint {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

export const noPaint: Paint = { green: (s) => s, red: (s) => s, yellow: (s) => s, bold: (s) => s, dim: (s) => s };

export function symbolOf(step: PlanStep): string {
  switch (step.action) {
    case 'create':
      return '+';
    case 'update':
      return '~';
    case 'remove':
      return step.write ? '-' : '=';
    case 'conflict':
      return '!';
    default:
      return '=';
  }
}

/** A step's item as the plan lists it: `automation welcome "New lead welcome"`. */
export function stepLabel(step: PlanStep): string {
  return itemLabel(step);
}

/** Why a step does what it does, in the words `setup-pack plan` prints. */
export function describeStep(step: PlanStep): string {
  const why = whyOf(step);
  return step.renamedFrom !== undefined ? `${why}; key renamed from ${step.renamedFrom}` : why;
}

function whyOf(step: PlanStep): string {
  // An uninstall's kept item: its reason says it all (uninstall takes no --overwrite).
  if (step.action === 'conflict' && step.resolution === undefined) return step.reason;
  if (step.action === 'conflict') {
    // An item the user edited, or an object of theirs the pack did not write (the workspace's own brand).
    const why = step.reason.startsWith('edited') ? 'edited in the workspace' : step.reason;
    return step.resolution === 'overwrite' ? `${why}: overwritten (--overwrite)` : `${why}: kept (--overwrite replaces it)`;
  }
  if (step.action === 'orphan') {
    // Kept because something uses it: another installed pack, or a reference of this release.
    if (step.reason.includes('used by ')) return step.reason;
    return step.reason.includes('edited') ? 'gone from the release, edited: kept' : 'gone from the release: kept (--prune removes it)';
  }
  return step.reason;
}

/** The plan as lines a person reads; `all` also lists unchanged items. */
export function formatPlanText(plan: PlanResult, paint: Paint = noPaint, options: { all?: boolean } = {}): string {
  const out: string[] = [];
  const from = plan.fromVersion ?? 'not installed';
  // Names, keys, ids and messages come from the pack and the workspace: printable (as p) keeps a
  // terminal or a CI log from acting on a control character in any of them.
  out.push(`${paint.bold(p(plan.packName))} ${paint.dim(p(plan.packId))}`);
  out.push(
    plan.versionChange === 'uninstall'
      ? `version: ${p(from)} → not installed (uninstall)`
      : `version: ${p(from)} → ${p(plan.toVersion)} (${plan.versionChange})`,
  );
  if (!plan.ok) {
    out.push('', paint.red(paint.bold(`The plan failed (${plural(plan.errors.length, 'problem')}):`)));
    for (const e of plan.errors) {
      out.push(`  ${paint.red('✗')} ${p(e.message)}`);
      const label = e.code === 'plan/unresolved-reference' || e.code === 'plan/unknown-binding' ? 'in the workspace:' : 'candidate';
      for (const c of e.candidates ?? []) out.push(`      ${label} ${p(c.id)}${c.name ? ` "${p(c.name)}"` : ''}`);
      // A member is the one reference type a workspace server of your own adds by hand: say how.
      if (e.code === 'plan/unresolved-reference' && e.reference?.type === 'user' && e.reference.name) {
        out.push(
          `      or add the member to the workspace: workspace-server add-member --workspace <workspace id> --name ${JSON.stringify(p(e.reference.name))} --email <address>`,
        );
      }
    }
    return out.join('\n') + '\n';
  }
  const external = plan.bindings.filter((b) => b.source !== 'pack');
  if (external.length) {
    out.push('', 'References:');
    for (const b of external) {
      const target = 'workspaceId' in b.target ? p(b.target.workspaceId) : `new ${b.type} "${p(b.name ?? b.id)}"`;
      out.push(`  ${b.type} ${p(b.id)}${b.name ? ` "${p(b.name)}"` : ''} → ${target} ${paint.dim(`(${b.source})`)}`);
    }
  }
  const color = (s: string, step: PlanStep) =>
    step.action === 'create'
      ? paint.green(s)
      : step.action === 'update'
        ? paint.yellow(s)
        : step.action === 'remove' && step.write
          ? paint.red(s)
          : step.action === 'conflict'
            ? paint.red(paint.bold(s))
            : paint.dim(s);
  // A renamed key is listed even when its object is up to date: the ledger moves it to the new key.
  const shown = plan.steps.filter((s) => options.all || s.action !== 'unchanged' || s.renamedFrom !== undefined);
  if (shown.length) out.push('');
  for (const s of shown) {
    const name = s.name && s.name !== s.key ? ` "${p(s.name)}"` : '';
    out.push(color(`  ${symbolOf(s)} ${ITEM_KIND_WORD[s.kind] ?? s.kind} ${p(s.key)}${name}`, s) + paint.dim(` (${p(describeStep(s))})`));
  }
  // What the user should know about a plan that goes through: each once, after the items it is
  // about and before the summary, so the last lines a run prints still say what it does.
  if (plan.warnings.length) {
    out.push('');
    for (const w of plan.warnings) out.push(`${paint.yellow(paint.bold('warning:'))} ${p(w.message)} ${paint.dim(`[${w.code}]`)}`);
  }
  out.push('', summaryLine(plan));
  return out.join('\n') + '\n';
}

export function summaryLine(plan: PlanResult): string {
  const s = plan.summary;
  // A conflict is an item the user edited, or an object of theirs the pack did not write (the brand).
  const theirs = plan.steps.filter((x) => x.action === 'conflict' && !x.reason.startsWith('edited')).length;
  const edited = s.conflict - theirs;
  const warned = plan.warnings.length ? ` ${plural(plan.warnings.length, 'warning')}.` : '';
  if (!plan.hasChanges)
    return `No changes. ${plural(s.unchanged + s.adopt, 'item')} up to date${edited ? `, ${count(edited)} edited in the workspace kept` : ''}${theirs ? `, ${count(theirs)} of the workspace's own kept` : ''}${s.orphan ? `, ${count(s.orphan)} orphaned kept` : ''}.${warned}`;
  const parts = [
    `${count(s.create)} to create`,
    `${count(s.update)} to update`,
    `${count(plan.steps.filter((x) => x.action === 'remove' && x.write).length)} to remove`,
  ];
  const overwrite = plan.steps.filter((x) => x.action === 'conflict' && x.write).length;
  if (s.conflict) parts.push(`${plural(s.conflict, 'conflict')} (${overwrite ? `${count(overwrite)} overwritten` : 'kept'})`);
  if (s.orphan) parts.push(`${count(s.orphan)} orphaned kept`);
  parts.push(`${count(s.unchanged + s.adopt)} unchanged`);
  return `Plan: ${parts.join(', ')}.${plan.writes === 0 ? ' (Only the install ledger changes.)' : ''}${warned}`;
}

/** Why `type` is not one of the format's reference types (core's REFERENCE_TYPES, the reference schema's enum); `shown` is where it was written. */
function referenceTypeProblem(type: string, shown: string): string | undefined {
  if (REFERENCE_TYPES.includes(type as ReferenceType)) return undefined;
  const guess = closest(type, REFERENCE_TYPES);
  return `'${type}' in '${shown}' is not a reference type${guess ? `; did you mean '${guess}'?` : ''} (${REFERENCE_TYPES.join(', ')})`;
}

/**
 * Why `key` cannot be a binding's key, `type:id` with a reference type of the format and an id
 * (as a bindings file writes them), or undefined. A key no reference can have would be ignored by
 * the planner without a word, and the reference it was meant for left to name matching.
 */
export function bindingKeyProblem(key: string): string | undefined {
  const m = /^([^:]+):(.+)$/.exec(key);
  if (!m) return `'${key}' is not type:id (e.g. user:usr_8841)`;
  return referenceTypeProblem(m[1], key);
}

/** `type:id=workspaceId` → bindings entry; throws a readable message when malformed or the type is not a reference type. */
export function parseBinding(text: string): [string, string] {
  const m = /^([a-z_]+):(.+)=([^=]+)$/.exec(text.trim());
  if (!m) throw new Error(`--bind expects type:id=workspaceId (e.g. user:usr_8841=mem_123), got '${text}'`);
  const problem = referenceTypeProblem(m[1], text);
  if (problem) throw new Error(`--bind: ${problem}`);
  return [`${m[1]}:${m[2]}`, m[3]];
}
