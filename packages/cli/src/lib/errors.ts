// A usage error ends the command with exit code 2 and one line on stderr.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * An output that could not be written (lib/write.ts): exit code 2 and one line, `cannot write
 * '<path>': <reason>`, as a usage error. `reason` alone is for a command that reports it per file (fmt, fix).
 */
export class WriteError extends UsageError {
  constructor(
    readonly shown: string,
    readonly reason: string,
  ) {
    super(`cannot write '${shown}': ${reason}`);
    this.name = 'WriteError';
  }
}

/**
 * A pack given to a command that does not parse, build or validate: one line on stderr, as a usage
 * error, but exit code 1, as `validate` gives for the same file (2 stays for usage errors and files
 * that cannot be read).
 */
export class InvalidPackInputError extends UsageError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidPackInputError';
  }
}

export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;
