// The upgrade planner (pure): plan(pack, ledger, snapshot, options) and what the installer needs
// to execute a plan with the same hashing and rewriting rules.
export * from './types.js';
export { plan, planUninstall, requiredCollections, type PlanResult } from './plan.js';
export {
  bindReferences,
  itemBindings,
  unusedBindings,
  candidatesOf,
  bindingKey,
  createdReferenceKey,
  createdReferenceItemId,
  createdReferenceOf,
  legacyCreatedReferenceOf,
  normalizeName,
  packTarget,
  markReferences,
  pickedReferenceId,
  COLLECTION_OF_REFERENCE,
  type BindResult,
  type CreatedResource,
  type ReferenceMark,
} from './bind.js';
export {
  canonicalJson,
  contentHash,
  projectWorkspaceObject,
  workspaceObjectHash,
  resourceContent,
  templateContent,
  pipelineContent,
  stageContent,
  smartListContent,
  automationContent,
  assetContent,
  brandContent,
  brandAssetToken,
  isBrandAsset,
  emailImageAddresses,
  COLLECTION_OF_RESOURCE_KIND,
  PHASE,
  itemId,
  ITEM_KIND_WORD,
  itemLabel,
  type Json,
} from './content.js';
export {
  applyRewrites,
  resolveStep,
  idempotencyKeyFor,
  idempotencyPrefix,
  resumedRun,
  resolveTarget,
  ledgerItemAfterWrite,
  ledgerItemForExisting,
  type ResolvedItem,
  type ResolvedStep,
  type ItemLookup,
} from './resolve.js';
export { compareSemver, parseSemver } from './version.js';
export {
  API_ERROR_TYPES,
  COLLECTION_PATH,
  COLLECTIONS,
  LEDGER_LOCK,
  LIST_PATH,
  type ApiErrorType,
  type CollectionContract,
} from './contract.js';
export { WORKSPACE_LIMITS, base64Length, apiLimitErrors, unstorableBody, unstorableText, hasLoneSurrogate } from './limits.js';
