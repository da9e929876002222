// The keys of a search field over a list of options (the block palette, the command palette): ↑
// and ↓ move the active option within the list, Enter picks it, Escape closes where the list has
// no dialog to close it. One statement, so the two palettes answer the same keys the same way.
import { useState, type KeyboardEvent } from 'react';

export function useActiveOption(count: number, pick: (index: number) => void, close?: () => void) {
  const [active, setActive] = useState(0);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && close) return close();
    if (e.key === 'ArrowDown') setActive((a) => Math.min(a + 1, count - 1));
    else if (e.key === 'ArrowUp') setActive((a) => Math.max(a - 1, 0));
    else if (e.key === 'Enter' && active < count) pick(active);
    else return;
    e.preventDefault();
  };
  return { active, setActive, onKey };
}
