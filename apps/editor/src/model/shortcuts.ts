// Every key the editor answers to, in one list: the `?` dialog shows it, the inspector's hint and
// the command palette's entries quote it. Ctrl is ⌘ on a Mac (shownKeys).

export interface Shortcut {
  keys: readonly string[];
  does: string;
  /** Where the keys work. */
  where: 'Anywhere' | 'Canvas' | 'Palettes and pickers';
}

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Ctrl+K'], does: 'Command palette: add a block, go to an item or a finding, run Plan, Simulate or Export', where: 'Anywhere' },
  { keys: ['?'], does: 'This list of shortcuts', where: 'Anywhere' },
  { keys: ['Ctrl+Z'], does: 'Undo', where: 'Anywhere' },
  { keys: ['Ctrl+Shift+Z', 'Ctrl+Y'], does: 'Redo', where: 'Anywhere' },
  { keys: ['Ctrl+S'], does: 'Export the pack', where: 'Anywhere' },
  { keys: ['Ctrl+O'], does: 'Open a pack file', where: 'Anywhere' },
  { keys: ['/', 'N'], does: 'Add a block (the block palette)', where: 'Canvas' },
  { keys: ['↑', '↓', '←', '→'], does: 'Select the nearest block in that direction', where: 'Canvas' },
  { keys: ['Shift+arrows'], does: 'Move the selected blocks by 10 px', where: 'Canvas' },
  { keys: ['Delete', 'Backspace'], does: 'Delete the selected blocks and connections', where: 'Canvas' },
  { keys: ['Ctrl+C', 'Ctrl+X', 'Ctrl+V'], does: 'Copy, cut and paste blocks (through the system clipboard)', where: 'Canvas' },
  { keys: ['Ctrl+D'], does: 'Duplicate the selected blocks', where: 'Canvas' },
  { keys: ['Ctrl+A'], does: 'Select every block', where: 'Canvas' },
  { keys: ['Enter'], does: 'Pick the highlighted entry', where: 'Palettes and pickers' },
  { keys: ['Escape'], does: 'Close the palette, picker or dialog', where: 'Palettes and pickers' },
];

/** The keys as this platform writes them: ⌘ for Ctrl on a Mac. */
export function shownKeys(keys: string, mac: boolean): string {
  return mac ? keys.replace(/Ctrl\+/g, '⌘').replace(/Shift\+/g, '⇧') : keys;
}

export const isMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);
