// Every semantic rule, one module each, named after its code.
import type { Rule } from './rule.js';
import assetInvalidBase64 from './asset-invalid-base64.js';
import assetSha256Mismatch from './asset-sha256-mismatch.js';
import assetSizeMismatch from './asset-size-mismatch.js';
import assetSourceUrlNotAllowed from './asset-source-url-not-allowed.js';
import assetSourceUrlRequired from './asset-source-url-required.js';
import assetUnusedEmailImage from './asset-unused-email-image.js';
import catalogConfigField from './catalog-config-field.js';
import catalogUnknownConfigField from './catalog-unknown-config-field.js';
import filtersUnrecognized from './filters-unrecognized.js';
import flowCascadeLoop from './flow-cascade-loop.js';
import flowConflictingActions from './flow-conflicting-actions.js';
import flowOutsideSendWindow from './flow-outside-send-window.js';
import flowSelfTrigger from './flow-self-trigger.js';
import graphCycle from './graph-cycle.js';
import graphDuplicateEdge from './graph-duplicate-edge.js';
import graphDuplicateEdgeId from './graph-duplicate-edge-id.js';
import graphDuplicateNodeId from './graph-duplicate-node-id.js';
import graphEdgeIntoTrigger from './graph-edge-into-trigger.js';
import graphInvalidHandle from './graph-invalid-handle.js';
import graphNoTrigger from './graph-no-trigger.js';
import graphUnknownField from './graph-unknown-field.js';
import graphUnknownNode from './graph-unknown-node.js';
import graphUnreachableNode from './graph-unreachable-node.js';
import graphUnwiredOutput from './graph-unwired-output.js';
import packDuplicateKey from './pack-duplicate-key.js';
import packSchemaVersionBrand from './pack-schema-version-brand.js';
import pipelineDuplicateStageKey from './pipeline-duplicate-stage-key.js';
import pipelineDuplicateStageName from './pipeline-duplicate-stage-name.js';
import pipelineMissingLostStage from './pipeline-missing-lost-stage.js';
import pipelineMissingWonStage from './pipeline-missing-won-stage.js';
import pipelineProbabilityNormalised from './pipeline-probability-normalised.js';
import referenceMissingName from './reference-missing-name.js';
import referenceUnresolvedId from './reference-unresolved-id.js';
import referenceUnused from './reference-unused.js';
import settingsDuplicateDay from './settings-duplicate-day.js';
import settingsSendWindowEmpty from './settings-send-window-empty.js';
import settingsSendWindowIncomplete from './settings-send-window-incomplete.js';

export const RULES: readonly Rule[] = [
  assetInvalidBase64,
  assetSha256Mismatch,
  assetSizeMismatch,
  assetSourceUrlNotAllowed,
  assetSourceUrlRequired,
  assetUnusedEmailImage,
  catalogConfigField,
  catalogUnknownConfigField,
  filtersUnrecognized,
  flowCascadeLoop,
  flowConflictingActions,
  flowOutsideSendWindow,
  flowSelfTrigger,
  graphCycle,
  graphDuplicateEdge,
  graphDuplicateEdgeId,
  graphDuplicateNodeId,
  graphEdgeIntoTrigger,
  graphInvalidHandle,
  graphNoTrigger,
  graphUnknownField,
  graphUnknownNode,
  graphUnreachableNode,
  graphUnwiredOutput,
  packDuplicateKey,
  packSchemaVersionBrand,
  pipelineDuplicateStageKey,
  pipelineDuplicateStageName,
  pipelineMissingLostStage,
  pipelineMissingWonStage,
  pipelineProbabilityNormalised,
  referenceMissingName,
  referenceUnresolvedId,
  referenceUnused,
  settingsDuplicateDay,
  settingsSendWindowEmpty,
  settingsSendWindowIncomplete,
];
