// A callback of one identity for the component's whole life that calls the function of the latest
// render: for handlers given to memoized rows (which would all be drawn again if the handler were
// made anew per render) and for listeners an effect adds once.
import { useCallback, useRef } from 'react';

export function useLatestCallback<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const latest = useRef(fn);
  latest.current = fn;
  return useCallback((...args: A) => latest.current(...args), []);
}
