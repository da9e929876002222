// @setup-pack/core: read and check Setup Packs. Pure and isomorphic: no node: imports.
export * from './types.js';
export * from './diagnostics.js';
export {
  validatePack,
  notAPack,
  placeFindings,
  placesKey,
  validateAutomationDocument,
  type ValidateOptions,
  type ValidateResult,
} from './validate.js';
export {
  parseJsonText,
  jsonSyntaxError,
  createSourceText,
  keepsItsDigits,
  numbersNotKept,
  readNumber,
  MAX_DEPTH,
  NOT_AS_WRITTEN,
  type SourceText,
  type Position,
} from './json/parse.js';
export { encodingProblem, utf8Problem } from './json/encoding.js';
export { createLineIndex, locateAll, type LineIndex, type LocateRequest } from './json/positions.js';
export {
  toPointer,
  parsePointer,
  resolvePointer,
  describePointer,
  pointerParam,
  escapeToken,
  unescapeToken,
  sharedDepth,
  tokenIndex,
} from './json/pointer.js';
export {
  validateAgainstSchema,
  schemaValidator,
  schemaId,
  SCHEMA_BASE,
  codePoints,
  schemaTypeWords,
  ruleWords,
} from './schema/validator.js';
export { publishedSchemas } from './generated/schemas.js';
export { RULES } from './rules/index.js';
export type { Rule, RuleContext } from './rules/rule.js';
export {
  NODE_CATALOG,
  NODE_KINDS,
  nodeKindInfo,
  outputHandles,
  declaredOutcomes,
  summarizeConfig,
  describeConfig,
  type NodeKindInfo,
  type ConfigField,
  type ConfigFieldType,
} from './catalog/nodes.js';
export {
  MERGE_TAGS,
  MERGE_TAG_SCOPES,
  MERGE_TAG_PATTERN,
  mergeTagInfo,
  type MergeTagInfo,
  type MergeTagScope,
} from './catalog/merge-tags.js';
export { buildGraphModel, findCycle, reachableFromTriggers, GraphModel } from './graph/model.js';
export { checkConnection, outputsList, TRIGGER_CANNOT_BE_ENTERED, type ConnectionCheck, type ConnectionSpec } from './graph/connect.js';
export {
  FILTER_GROUP_TYPES,
  FILTER_OPERATORS,
  FILTER_FIELD_REFERENCES,
  isFilterGroup,
  isFilterCondition,
  describeFilter,
  filterText,
  filterPlace,
  type FilterGroupType,
  type SummaryPart,
} from './filters.js';
export { configRefIds, type ConfigRefId } from './config-refs.js';
export {
  packKeysByReferenceType,
  packItemsByReferenceType,
  stringsInConfig,
  type PackItemOfReference,
  CREATABLE_REFERENCE_TYPES,
  RESOURCE_KIND_OF_REFERENCE,
} from './references.js';
export {
  isBase64,
  base64Padding,
  hasCanonicalPadding,
  strictBase64Size,
  decodeBase64,
  decodeStrictBase64,
  sha256Hex,
  portableHasher,
  type Base64Hasher,
} from './hash.js';
export { closest, editDistance, count, plural, pluralWord, printable, printableLine } from './text.js';
export * from './format/index.js';
export * from './diff/index.js';

export { RULE_METADATA } from './rules/metadata.js';
export { renderRulesMarkdown, renderCatalogMarkdown, renderBehaviourMarkdown, ruleExamples, ruleAnchor, type RuleExample } from './docs.js';
export * from './plan/index.js';
export * from './export/index.js';
export { getOwn, setOwn } from './own.js';
export { fixPack, fixedPack, mayBeFixed } from './fix.js';
export { repeatedStageNames, missingClosedStages, fixedStageProbability, REQUIRED_CLOSED_STAGES } from './pipeline.js';
export {
  RESOURCE_KINDS,
  ASSET_ROLES,
  REFERENCE_TYPES,
  STAGE_TYPES,
  MESSAGE_CHANNELS,
  SCHEMA_VERSIONS,
  PACK_FORMAT,
  maxLengthOf,
  numberLimitsOf,
  fieldsOf,
  acceptsProperty,
  propertyFindings,
} from './schema/enums.js';
export * from './behaviour/index.js';
