// A choice the author makes once for this browser (the theme, whether blocks show their ids):
// kept in localStorage, read by every component that shows it, and changed from any of them
// (a toolbar toggle, the command palette) with each of them re-rendered.
import { useSyncExternalStore } from 'react';

export interface Preference<T extends string> {
  // Properties, not methods: React's useSyncExternalStore is handed get and subscribe unbound.
  get: () => T;
  set: (value: T) => void;
  subscribe: (listener: () => void) => () => void;
}

/** A preference stored under `key`: one of `values`, the first when none (or another) is stored. */
export function preference<T extends string>(key: string, values: readonly [T, ...T[]]): Preference<T> {
  const listeners = new Set<() => void>();
  let memory: T | undefined;
  const get = (): T => {
    try {
      const v = localStorage.getItem(key);
      return values.includes(v as T) ? (v as T) : values[0];
    } catch {
      return memory ?? values[0];
    }
  };
  return {
    get,
    set(value) {
      memory = value;
      try {
        if (value === values[0]) localStorage.removeItem(key);
        else localStorage.setItem(key, value);
      } catch {
        // Storage refused (a private window's quota): the choice holds for this page.
      }
      for (const l of listeners) l();
    },
    subscribe(l) {
      listeners.add(l);
      return () => void listeners.delete(l);
    },
  };
}

export function usePreference<T extends string>(p: Preference<T>): T {
  return useSyncExternalStore(p.subscribe, p.get, p.get);
}

/** Whether blocks on the canvas show their ids (the inspector always does). */
export const showIds = preference<'hidden' | 'shown'>('setup-pack.block-ids', ['hidden', 'shown']);
