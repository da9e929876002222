// Searchable block palette (quick-add): the catalog grouped by category (triggers, actions,
// controls) with an icon per group; type to filter, arrows to move, Enter or click to add.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { NODE_CATALOG } from '@setup-pack/core';
import { paletteSections } from '../model/palette.js';

export function Palette(props: { onPick: (kind: string) => void; onClose: () => void; allowTriggers: boolean }) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const sections = useMemo(() => paletteSections([...NODE_CATALOG.values()], query, props.allowTriggers), [query, props.allowTriggers]);
  const options = useMemo(() => sections.flatMap((s) => s.blocks), [sections]);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') props.onClose();
    else if (e.key === 'ArrowDown') (setActive((a) => Math.min(a + 1, options.length - 1)), e.preventDefault());
    else if (e.key === 'ArrowUp') (setActive((a) => Math.max(a - 1, 0)), e.preventDefault());
    else if (e.key === 'Enter' && options[active]) props.onPick(options[active].kind);
  };
  let index = 0;
  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}>
      <div className="palette" role="dialog" aria-label="Add a block">
        <input autoFocus aria-label="Search blocks" placeholder="Search blocks… (/ opens this)" value={query} onChange={(e) => (setQuery(e.target.value), setActive(0))} onKeyDown={onKey} />
        <div role="listbox" aria-label="Blocks" className="palette-list">
          {sections.map((s) => (
            <div role="group" aria-labelledby={`palette-${s.group}`} key={s.group}>
              <div className="palette-heading" id={`palette-${s.group}`}>
                <span aria-hidden="true" className={`palette-icon ${s.group}`}>{s.icon}</span> {s.title}
              </div>
              {s.blocks.map((k) => {
                const i = index++;
                return (
                  <button key={k.kind} role="option" aria-selected={i === active} onClick={() => props.onPick(k.kind)} data-kind={k.kind}>
                    <span aria-hidden="true" className={`palette-icon ${s.group}`}>{s.icon}</span> {k.label} <small>{k.description}</small>
                  </button>
                );
              })}
            </div>
          ))}
          {options.length === 0 && <div className="empty">No block matches.</div>}
        </div>
      </div>
    </div>
  );
}
