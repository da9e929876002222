// @setup-pack/installer: put a pack into a live workspace through its REST API, upgrade it, remove it.
export {
  WorkspaceClient,
  WorkspaceApiError,
  describeWait,
  type WaitEvent,
  type ClientOptions,
  type ClientStats,
  type ErrorType,
  type ErrorFields,
  type InstallLock,
  type Page,
} from './client.js';
export {
  fetchSnapshot,
  readLedger,
  ledgerIn,
  listLedgers,
  LedgerLock,
  LockTakenError,
  breakLock,
  type LedgerRecord,
  type ListedLedger,
  type BreakLockResult,
} from './workspace.js';
export {
  install,
  uninstall,
  planInstall,
  otherLedgers,
  otherLedgersIn,
  checkWriteScopes,
  PlanFailedError,
  WorkspaceBusyError,
  InstallStepError,
  InvalidPackError,
  ReplayedCreationError,
  type InstallOptions,
  type PlanInstallOptions,
  type InstallResult,
  type UninstallResult,
  type ProgressEvent,
} from './install.js';
export {
  formatPlanText,
  summaryLine,
  symbolOf,
  describeStep,
  stepLabel,
  parseBinding,
  bindingKeyProblem,
  noPaint,
  type Paint,
} from './render.js';
export { generatedPack, fullPack } from './generate.js';
export { exportWorkspace, type WorkspaceExportOptions, type WorkspaceExportResult, type ExportProgress } from './export.js';
