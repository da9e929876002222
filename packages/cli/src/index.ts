// Programmatic entry points of the setup-pack CLI package.
export { main } from './main.js';
export { unpackToFiles, buildFromFiles, type SourceFiles, type BuildResult } from './source/layout.js';
