// Pack and automation diffs. Filled in by the CLI work.
export {};
