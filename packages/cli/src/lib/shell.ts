// A command line printed for the user to run (new's "Next:"), as a POSIX shell reads it back.

/** A word as a shell reads it back: quoted only when it has to be. */
export const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** A path argument as a shell reads it back, and never taken for an option (`-x` → `./-x`). */
export const shellPath = (path: string): string => shellWord(path.startsWith('-') ? `./${path}` : path);
