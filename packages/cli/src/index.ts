// Programmatic entry points of the setup-pack CLI package.
export { main } from './main.js';
export { unpackToFiles, buildFromFiles, type SourceFiles, type BuildResult } from './source/layout.js';
// Running the CLI in-process (tests, wrappers): main(argv, context) with streams of your own.
export { makeColors } from './lib/color.js';
export type { CommandContext } from './lib/context.js';
