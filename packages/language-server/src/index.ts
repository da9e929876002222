// @setup-pack/language-server: the Setup Pack language server over LSP (`setup-pack lsp --stdio`).
export { startServer, DEFAULT_DEBOUNCE_MS, type ServerOptions } from './server.js';
export { SERVER_COMMANDS, type BuildArguments, type BuildSummary } from './commands.js';
export type { WorkspaceSummary, CheckedFile } from './workspace-check.js';
export type { HasherModule } from './protocol.js';
export type { FolderAnalysis, FolderBuild, SourceFolderSupport } from './folder-support.js';
export { looksLikePack } from './detect.js';
export { ruleDocsUrl, RULES_DOCS_URL } from './diagnostics.js';
