// The status line under the editor: a message shown for a few seconds (a refused connection, what
// a paste did), unless a newer one replaced it.
import { useCallback, useState } from 'react';

export function useNotice(): { notice: string | undefined; notify: (text: string) => void } {
  const [notice, setNotice] = useState<string>();
  const notify = useCallback((text: string) => {
    setNotice(text);
    setTimeout(() => setNotice((n) => (n === text ? undefined : n)), 3500);
  }, []);
  return { notice, notify };
}
