// Export (pure): workspace snapshot + install ledger → Pack, the inverse of plan + apply.
export {
  exportPack,
  exportCollections,
  referenceCollections,
  mediaToDownload,
  ledgerSourceOf,
  ALL_COLLECTIONS,
  type ExportInput,
  type ExportOptions,
  type ExportNote,
  type ExportResult,
} from './export.js';
export { slugify, KeyAllocator } from './keys.js';
export { roundTripForm, storedForm } from './normal.js';
