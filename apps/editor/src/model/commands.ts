// The command palette's entries (Ctrl/Cmd-K): what can be run, added or gone to from the pack as
// it is — the editor's actions, a block of any catalog kind (in an automation), every item of the
// pack, and the findings — and the search over them. Plain data: the palette runs an entry's
// action through the editor (ui/CommandPalette.tsx).
import { describePointer, NODE_CATALOG, printable, type Diagnostic } from '@setup-pack/core';
import { ITEM_KINDS, KIND_LABELS, itemName, items, type PackValue, type Target } from './pack.js';

export type EditorAction =
  | 'plan'
  | 'connect'
  | 'simulate'
  | 'export'
  | 'flowMap'
  | 'compare'
  | 'newPack'
  | 'openFile'
  | 'theme'
  | 'ids'
  | 'shortcuts'
  | 'undo'
  | 'redo';

export type CommandAction =
  | { type: 'run'; action: EditorAction }
  | { type: 'add'; kind: string }
  | { type: 'open'; target: Target }
  | { type: 'finding'; finding: Diagnostic };

export interface Command {
  id: string;
  section: 'Actions' | 'Add a block' | 'Go to' | 'Findings';
  title: string;
  /** A second line: what the action does, the block's description, where a finding is. */
  detail?: string;
  /** The keys that do the same, as the shortcuts list writes them. */
  shortcut?: string;
  /** For the icon: a block's kind and group, an item's kind, a finding's severity. */
  icon?: { kind?: string; group?: string; severity?: Diagnostic['severity'] };
  action: CommandAction;
}

/** What the palette offers depends on: whether a workspace is connected, and whether an automation is shown (blocks are added to it). */
export interface CommandContext {
  pack: PackValue;
  target: Target;
  diagnostics: readonly Diagnostic[];
  connected: boolean;
}

/** How many findings the palette lists (the diagnostics panel lists them all). */
export const FINDINGS_LISTED = 200;

function actions(ctx: CommandContext): Command[] {
  const run = (action: EditorAction, title: string, detail: string, shortcut?: string): Command => ({
    id: `run:${action}`,
    section: 'Actions',
    title,
    detail,
    shortcut,
    action: { type: 'run', action },
  });
  return [
    ctx.connected
      ? run('plan', 'Plan', 'Preview what installing this pack would do to the workspace')
      : run('connect', 'Connect to workspace…', 'A base URL and an API key; then Plan previews an install'),
    run('simulate', 'Simulate', 'Follow one contact through the automations, step by step'),
    run('export', 'Export', 'Download the pack file', 'Ctrl+S'),
    run('flowMap', 'Flow map', 'The automations and the starts between them'),
    run('compare', 'Compare releases', 'What changed between two releases'),
    run('undo', 'Undo', 'Take back the last change', 'Ctrl+Z'),
    run('redo', 'Redo', 'Make the change undone again', 'Ctrl+Shift+Z'),
    run('openFile', 'Open…', 'Open a pack file', 'Ctrl+O'),
    run('newPack', 'New pack', 'Start from a pack with one automation'),
    run('theme', 'Switch theme', "Light or dark; the device's until you switch"),
    run('ids', 'Show or hide block ids', "Each block's id on its card (the inspector always shows it)"),
    run('shortcuts', 'Keyboard shortcuts', 'Every key the editor answers to', '?'),
  ];
}

function blocks(ctx: CommandContext): Command[] {
  if (ctx.target.kind !== 'automations') return [];
  return [...NODE_CATALOG.values()].map((k) => ({
    id: `add:${k.kind}`,
    section: 'Add a block',
    title: k.label,
    detail: k.description,
    icon: { kind: k.kind, group: k.group },
    action: { type: 'add', kind: k.kind },
  }));
}

function goTo(ctx: CommandContext): Command[] {
  const out: Command[] = [
    {
      id: 'open:pack',
      section: 'Go to',
      title: `Pack: ${printable(String(ctx.pack.name ?? ''))}`,
      detail: "The pack's own fields",
      action: { type: 'open', target: { kind: 'pack' } },
    },
  ];
  for (const kind of ITEM_KINDS) {
    items(ctx.pack, kind).forEach((item, index) => {
      out.push({
        id: `open:${kind}/${index}`,
        section: 'Go to',
        title: printable(itemName(kind, item)),
        detail: KIND_LABELS[kind],
        icon: { kind },
        action: { type: 'open', target: { kind, index } },
      });
    });
  }
  return out;
}

function findings(ctx: CommandContext): Command[] {
  return ctx.diagnostics.slice(0, FINDINGS_LISTED).map((d, i) => ({
    id: `finding:${i}`,
    section: 'Findings',
    title: printable(d.message),
    detail: `${d.severity} · ${d.code} · ${printable(describePointer(d.pointer))}`,
    icon: { severity: d.severity },
    action: { type: 'finding', finding: d },
  }));
}

/** Every entry, in the palette's order: actions, blocks to add, items to go to, findings. */
export function commandsFor(ctx: CommandContext): Command[] {
  return [...actions(ctx), ...blocks(ctx), ...goTo(ctx), ...findings(ctx)];
}

/** The words of a text, for a search to match the start of: "schema/too-short" is schema, too, short. */
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * The entries a search keeps, best first: every word of the query must start a word of the
 * section, the title or the detail ("add wait" finds the Wait block to add; "tag" finds Add tag,
 * not Stage); titles that start with the query come first, then titles holding every word, then
 * the rest, each in the palette's order. An empty query keeps the actions and the items to go to
 * (a block or a finding is searched for).
 */
export function searchCommands(commands: readonly Command[], query: string, limit = 50): Command[] {
  const q = query.trim().toLowerCase();
  if (!q) return commands.filter((c) => c.section === 'Actions' || c.section === 'Go to').slice(0, limit);
  const asked = wordsOf(q);
  const starts = (words: readonly string[]) => asked.every((w) => words.some((x) => x.startsWith(w)));
  const ranked: [number, Command][] = [];
  for (const c of commands) {
    const title = wordsOf(c.title);
    if (!starts([...wordsOf(c.section), ...title, ...wordsOf(c.detail ?? '')])) continue;
    const rank = c.title.toLowerCase().startsWith(q) ? 0 : starts(title) ? 1 : 2;
    ranked.push([rank, c]);
  }
  // A stable sort: equal ranks keep the palette's order.
  return ranked
    .sort((a, b) => a[0] - b[0])
    .slice(0, limit)
    .map(([, c]) => c);
}
