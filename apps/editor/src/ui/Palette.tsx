// Searchable block palette (quick-add): type to filter the catalog, Enter or click to add.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { NODE_CATALOG } from '@setup-pack/core';

export function Palette(props: { onPick: (kind: string) => void; onClose: () => void; allowTriggers: boolean }) {
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const options = useMemo(() => {
    const q = query.trim().toLowerCase();
    return [...NODE_CATALOG.values()].filter(
      (k) => (props.allowTriggers || k.group !== 'trigger') && (!q || k.label.toLowerCase().includes(q) || k.kind.includes(q) || k.description.toLowerCase().includes(q)),
    );
  }, [query, props.allowTriggers]);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') props.onClose();
    else if (e.key === 'ArrowDown') (setActive((a) => Math.min(a + 1, options.length - 1)), e.preventDefault());
    else if (e.key === 'ArrowUp') (setActive((a) => Math.max(a - 1, 0)), e.preventDefault());
    else if (e.key === 'Enter' && options[active]) props.onPick(options[active].kind);
  };
  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}>
      <div className="palette" role="dialog" aria-label="Add a block">
        <input autoFocus aria-label="Search blocks" placeholder="Search blocks…" value={query} onChange={(e) => (setQuery(e.target.value), setActive(0))} onKeyDown={onKey} />
        <ul role="listbox" aria-label="Blocks">
          {options.map((k, i) => (
            <li key={k.kind}>
              <button role="option" aria-selected={i === active} onClick={() => props.onPick(k.kind)} data-kind={k.kind}>
                {k.label} <small>{k.group} · {k.description}</small>
              </button>
            </li>
          ))}
          {options.length === 0 && <li className="empty">No block matches.</li>}
        </ul>
      </div>
    </div>
  );
}
