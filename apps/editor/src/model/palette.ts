// The palette's sections: the catalog filtered by the search text and grouped by category in a
// fixed order (triggers, actions, controls), each with its heading (ui/icons.ts gives the icons).
import type { NodeKindInfo } from '@setup-pack/core';

export type PaletteGroup = 'trigger' | 'action' | 'control';
export interface PaletteSection<K> {
  group: PaletteGroup;
  title: string;
  blocks: K[];
}

const SECTIONS: { group: PaletteGroup; title: string }[] = [
  { group: 'trigger', title: 'Triggers' },
  { group: 'action', title: 'Actions' },
  { group: 'control', title: 'Controls' },
];

export function paletteSections<K extends Pick<NodeKindInfo, 'kind' | 'label' | 'description' | 'group'>>(
  catalog: readonly K[],
  query: string,
  allowTriggers: boolean,
): PaletteSection<K>[] {
  const q = query.trim().toLowerCase();
  const matches = (k: K) => !q || k.label.toLowerCase().includes(q) || k.kind.includes(q) || k.description.toLowerCase().includes(q);
  return SECTIONS.filter((s) => allowTriggers || s.group !== 'trigger')
    .map((s) => ({ ...s, blocks: catalog.filter((k) => k.group === s.group && matches(k)) }))
    .filter((s) => s.blocks.length > 0);
}
