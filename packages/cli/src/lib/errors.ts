// A usage error ends the command with exit code 2 and one line on stderr.
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const EXIT = { ok: 0, findings: 1, usage: 2 } as const;
