// Searchable block palette (quick-add): the catalog grouped by category (triggers, actions,
// controls), each block with its kind's icon in its category's colour; type to filter, arrows to
// move, Enter or click to add. The search field is a combobox over the list (the options are not
// Tab stops), as a screen reader expects of a search that picks.
import { useMemo, useState } from 'react';
import { NODE_CATALOG } from '@setup-pack/core';
import { paletteSections } from '../model/palette.js';
import { blockIcon, GROUP_ICONS } from './icons.js';
import { useActiveOption } from './useActiveOption.js';

export function Palette(props: { onPick: (kind: string) => void; onClose: () => void; allowTriggers: boolean }) {
  const [query, setQuery] = useState('');
  const sections = useMemo(() => paletteSections([...NODE_CATALOG.values()], query, props.allowTriggers), [query, props.allowTriggers]);
  const options = useMemo(() => sections.flatMap((s) => s.blocks), [sections]);
  const { active, setActive, onKey } = useActiveOption(options.length, (i) => props.onPick(options[i].kind), props.onClose);
  const optionId = (kind: string) => `palette-option-${kind.replace(/\W/g, '-')}`;
  let index = 0;
  return (
    <div className="palette-backdrop" onMouseDown={(e) => e.target === e.currentTarget && props.onClose()}>
      <div className="palette" role="dialog" aria-label="Add a block">
        <input
          autoFocus
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-blocks"
          aria-autocomplete="list"
          aria-activedescendant={options[active] ? optionId(options[active].kind) : undefined}
          aria-label="Search blocks"
          placeholder="Search blocks… (/ opens this)"
          value={query}
          onChange={(e) => (setQuery(e.target.value), setActive(0))}
          onKeyDown={onKey}
        />
        <div role="listbox" id="palette-blocks" aria-label="Blocks" className="palette-list">
          {sections.map((s) => {
            const GroupIcon = GROUP_ICONS[s.group];
            return (
              <div role="group" aria-labelledby={`palette-${s.group}`} key={s.group}>
                <div className="palette-heading" id={`palette-${s.group}`}>
                  <span aria-hidden="true" className={`palette-icon ${s.group}`}>
                    <GroupIcon size={14} />
                  </span>{' '}
                  {s.title}
                </div>
                {s.blocks.map((k) => {
                  const i = index++;
                  const Icon = blockIcon(k.kind, s.group);
                  return (
                    <div
                      key={k.kind}
                      id={optionId(k.kind)}
                      role="option"
                      className="palette-option"
                      aria-selected={i === active}
                      onClick={() => props.onPick(k.kind)}
                      onMouseMove={() => i !== active && setActive(i)}
                      data-kind={k.kind}
                    >
                      <span aria-hidden="true" className={`palette-icon ${s.group}`}>
                        <Icon size={14} />
                      </span>
                      <span className="text">
                        {k.label} <small>{k.description}</small>
                      </span>
                    </div>
                  );
                })}
              </div>
            );
          })}
          {options.length === 0 && <div className="empty">No block matches.</div>}
        </div>
      </div>
    </div>
  );
}
