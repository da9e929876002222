// What a command sees of the process: streams, environment and working directory, so commands
// never reach for globals and tests can read what they wrote.
import { colorEnabled, makeColors, type Colors } from './color.js';

export interface Output {
  write(text: string): void;
  isTTY?: boolean;
}

export interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
  /** Colours for stdout and stderr, decided by the flags, NO_COLOR, FORCE_COLOR and the TTY. */
  colors(stream: 'stdout' | 'stderr'): Colors;
}

export function processContext(colorFlag?: boolean): CommandContext {
  const stdout: Output = { write: (t) => void process.stdout.write(t), isTTY: process.stdout.isTTY };
  const stderr: Output = { write: (t) => void process.stderr.write(t), isTTY: process.stderr.isTTY };
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout,
    stderr,
    colors: (s) => makeColors(colorEnabled(s === 'stdout' ? stdout : stderr, process.env, colorFlag)),
  };
}
