// Pack and automation diffs: shared by `setup-pack diff` and the editor's visual diff.
// The types are ./types.ts; the implementation is ./diff.ts.
export type * from './types.js';
export * from './diff.js';
export { cannotPairReason, describeUnpaired, unpairedEntries } from './unpaired.js';
export { diffFilterNodes, diffFilters } from './filters.js';
export { describeValueChange, linesSummary, valueChange, valueText } from './values.js';
