// Implementation of diffPacks (see index.ts for the contract). To be written by the CLI work.
export {};
