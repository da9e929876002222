// The theme: the device's (prefers-color-scheme) unless the author picked light or dark, which is
// remembered in this browser. styles.css holds both themes' tokens; the choice is data-theme on
// <html>, set before the first render so a dark page never flashes light.
import { useCallback } from 'react';
import { preference, usePreference } from './preference.js';

export type ThemeChoice = 'system' | 'light' | 'dark';

const theme = preference<ThemeChoice>('setup-pack.theme', ['system', 'light', 'dark']);

/** Puts the remembered choice on <html>; main.tsx calls it before React renders. */
export function applyTheme(choice: ThemeChoice = theme.get()): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
}

/** The theme the page shows now: the choice, or the device's when the choice is `system`. */
export function shownTheme(choice: ThemeChoice): 'light' | 'dark' {
  if (choice !== 'system') return choice;
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Shows the other theme than the one shown: an explicit choice, unless it is the device's, which is then followed again (two toggles undo one). */
export function toggleTheme(): void {
  const next = shownTheme(theme.get()) === 'dark' ? 'light' : 'dark';
  const choice = next === shownTheme('system') ? 'system' : next;
  theme.set(choice);
  applyTheme(choice);
}

/** The choice, the theme shown, and the toggle. */
export function useTheme(): { choice: ThemeChoice; shown: 'light' | 'dark'; toggle: () => void } {
  const choice = usePreference(theme);
  return { choice, shown: shownTheme(choice), toggle: useCallback(toggleTheme, []) };
}
