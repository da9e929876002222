// Parts of the workspace API's contract that the installer, the CLI and the server each need,
// stated once: the server's routes take their request schemas from here, the installer its
// defaults, the CLI its option checks and help.

/** An install ledger's lock (POST /v1/install-ledgers/{packId}/lock, renewed by each checkpoint). */
export const LEDGER_LOCK = {
  /** Seconds until a lock not renewed expires: how long a crashed run blocks the next. */
  ttlSeconds: { minimum: 5, default: 300, maximum: 3600 },
  /** The longest holder name a lock takes (the name status and a refused run show). */
  holderMaxLength: 200,
} as const;
