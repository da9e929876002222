// What a command sees of the process: streams, environment and working directory, so commands
// never reach for globals and tests can read what they wrote.
import { colorEnabled, makeColors, type Colors } from './color.js';

export interface Output {
  /** false: the stream's buffer is full, wait for drain() before writing more. */
  write(text: string): boolean | void;
  isTTY?: boolean;
  /** True once the reader has gone (EPIPE): later writes are dropped. */
  readonly closed?: boolean;
  /** Resolves when the stream can take more (at once if it is not full), or has closed. */
  drain?(): Promise<void>;
  /** How much the stream holds that it has not handed on yet (a pipe whose reader is behind). */
  queued?(): number;
}

/**
 * Files the binary began to read before the command was loaded (bin/setup-pack.js, read-ahead),
 * by absolute path: the bytes, or undefined when that read fell short. Each is taken once.
 */
export type ReadAhead = Map<string, Promise<Buffer | undefined>>;

export interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: Output;
  stderr: Output;
  /** Colours for stdout and stderr, decided by the flags, NO_COLOR, FORCE_COLOR and the TTY. */
  colors(stream: 'stdout' | 'stderr'): Colors;
  /** Files already being read (the binary's read-ahead), for the command that reads them. */
  readAhead?: ReadAhead;
}

/**
 * A process stream as an Output. A reader that goes away (`setup-pack validate … | head`) makes
 * the stream fail with EPIPE: that closes the Output quietly instead of crashing with a stack
 * trace, and the command still ends with its own exit code.
 */
export function streamOutput(stream: NodeJS.WriteStream): Output {
  let closed = false;
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    closed = true;
    stream.emit('setup-pack:closed');
  });
  return {
    write: (t) => (closed ? false : stream.write(t)),
    isTTY: stream.isTTY,
    get closed() {
      return closed;
    },
    drain: () =>
      new Promise<void>((resolve) => {
        if (closed || !stream.writableNeedDrain) return resolve();
        const done = () => {
          stream.off('drain', done);
          stream.off('setup-pack:closed', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('setup-pack:closed', done);
      }),
    queued: () => stream.writableLength,
  };
}

export function processContext(colorFlag?: boolean, readAhead?: ReadAhead): CommandContext {
  const stdout = streamOutput(process.stdout);
  const stderr = streamOutput(process.stderr);
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout,
    stderr,
    colors: (s) => makeColors(colorEnabled(s === 'stdout' ? stdout : stderr, process.env, colorFlag)),
    readAhead,
  };
}
