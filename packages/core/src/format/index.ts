// Canonical form of a pack (key order, formatting). Filled in by the CLI work.
export {};
