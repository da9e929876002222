// The command palette (Ctrl/Cmd-K): one search over the editor's actions, the blocks to add, the
// pack's items and its findings (model/commands.ts); ↑/↓ move, Enter runs, Escape closes. Also the
// keys that open it and the shortcuts list (`?`), for the whole page.
import { useEffect, useMemo, useState } from 'react';
import { CircleAlert, Info, TriangleAlert, type LucideIcon } from 'lucide-react';
import { commandsFor, searchCommands, type Command, type CommandAction, type CommandContext } from '../model/commands.js';
import { isMac, shownKeys } from '../model/shortcuts.js';
import { blockIcon, GROUP_ICONS } from './icons.js';
import { useActiveOption } from './useActiveOption.js';
import { useDialogFocus } from './useDialogFocus.js';
import { useLatestCallback } from './useLatestCallback.js';

const SEVERITY_ICONS: Record<string, LucideIcon> = { error: CircleAlert, warning: TriangleAlert, info: Info };

function CommandIcon({ c }: { c: Command }) {
  const group = c.icon?.group ?? (c.section === 'Add a block' ? 'action' : 'command');
  const Icon = c.icon?.severity
    ? SEVERITY_ICONS[c.icon.severity]
    : c.icon?.kind && c.icon.group
      ? blockIcon(c.icon.kind, c.icon.group)
      : c.section === 'Go to'
        ? GROUP_ICONS.control
        : GROUP_ICONS.action;
  return (
    <span aria-hidden="true" className={`palette-icon ${group}`}>
      <Icon size={14} />
    </span>
  );
}

export function CommandPalette({
  context,
  onRun,
  onClose,
}: {
  context: CommandContext;
  onRun: (a: CommandAction) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState('');
  const ref = useDialogFocus<HTMLDivElement>(onClose);
  const all = useMemo(() => commandsFor(context), [context]);
  const shown = useMemo(() => searchCommands(all, query), [all, query]);
  const mac = isMac();
  const run = (c: Command | undefined) => {
    if (!c) return;
    onClose();
    onRun(c.action);
  };
  // Escape is the dialog's (useDialogFocus), which also gives the focus back.
  const { active, setActive, onKey } = useActiveOption(shown.length, (i) => run(shown[i]));
  const optionId = (i: number) => `command-${i}`;
  // The active entry stays in view as the arrows move it. (Braces: Chromium's scrollIntoView
  // returns a promise, which an effect must not.)
  useEffect(() => {
    void document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  let section = '';
  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="palette command-palette" role="dialog" aria-modal="true" aria-label="Command palette" ref={ref}>
        <input
          role="combobox"
          aria-expanded="true"
          aria-controls="command-list"
          aria-autocomplete="list"
          aria-activedescendant={shown[active] ? optionId(active) : undefined}
          aria-label="Search commands, blocks, items and findings"
          placeholder="Add a block, go to an item or a finding, run Plan, Simulate, Export…"
          value={query}
          onChange={(e) => (setQuery(e.target.value), setActive(0))}
          onKeyDown={onKey}
        />
        <div role="listbox" id="command-list" aria-label="Commands" className="palette-list">
          {shown.map((c, i) => {
            const heading = c.section !== section ? (section = c.section) : undefined;
            return (
              <div key={c.id} role="presentation">
                {heading && (
                  <div className="palette-heading" role="presentation">
                    {heading}
                  </div>
                )}
                <div
                  id={optionId(i)}
                  role="option"
                  className="palette-option"
                  aria-selected={i === active}
                  onClick={() => run(c)}
                  onMouseMove={() => i !== active && setActive(i)}
                >
                  <CommandIcon c={c} />
                  <span className="text">
                    {c.title}
                    {c.detail && <small>{c.detail}</small>}
                  </span>
                  {c.shortcut && <kbd>{shownKeys(c.shortcut, mac)}</kbd>}
                </div>
              </div>
            );
          })}
          {shown.length === 0 && (
            <div className="empty" role="presentation">
              Nothing matches “{query}”.
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

/** Ctrl/Cmd-K opens the command palette, `?` the shortcuts (not while typing in a field). */
export function usePaletteKeys(open: (which: 'commands' | 'shortcuts') => void) {
  const openLatest = useLatestCallback(open);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      const inText = !!t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        openLatest('commands');
      } else if (e.key === '?' && !inText && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        openLatest('shortcuts');
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [openLatest]);
}

/** What running an entry does, given by the editor. */
export interface CommandHandlers {
  add: (kind: string) => void;
  open: (target: Extract<CommandAction, { type: 'open' }>['target']) => void;
  finding: (finding: Extract<CommandAction, { type: 'finding' }>['finding']) => void;
  actions: Record<Extract<CommandAction, { type: 'run' }>['action'], () => void>;
}

export function runCommand(a: CommandAction, h: CommandHandlers): void {
  if (a.type === 'add') h.add(a.kind);
  else if (a.type === 'open') h.open(a.target);
  else if (a.type === 'finding') h.finding(a.finding);
  else h.actions[a.action]();
}
