// The command table: one module per command, loaded only when that command runs, so start-up
// stays lean.
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';

export interface CommandModule {
  spec: CommandSpec;
  run(ctx: CommandContext, args: Parsed): Promise<number>;
}

export interface CommandEntry {
  summary: string;
  load(): Promise<CommandModule>;
}

export const COMMANDS: Record<string, CommandEntry> = {
  validate: { summary: 'Check pack files and report diagnostics (pretty, json, sarif, github).', load: () => import('./validate.js') },
  build: { summary: 'Compile a pack source folder into one pack file.', load: () => import('./build.js') },
  unpack: { summary: 'Split a pack file into a source folder.', load: () => import('./unpack.js') },
  new: { summary: 'Scaffold a pack source folder with a fresh packId.', load: () => import('./new.js') },
  fmt: { summary: 'Rewrite pack files in the canonical form (--check to only check).', load: () => import('./fmt.js') },
  fix: {
    summary: 'Recompute asset hashes, normalise won/lost probabilities, move sourceHandle to handle.',
    load: () => import('./fix.js'),
  },
  diff: { summary: 'Show what changed between two releases of a pack.', load: () => import('./diff.js') },
  schema: { summary: 'Print a published JSON Schema, or list them.', load: () => import('./schema.js') },
  plan: { summary: 'Show what installing a pack into a workspace would change.', load: () => import('./plan.js') },
  install: { summary: 'Install or upgrade a pack in a workspace.', load: () => import('./install.js') },
  uninstall: { summary: 'Remove an installed pack from a workspace.', load: () => import('./uninstall.js') },
  simulate: {
    summary: "Follow one contact through a pack's automations from one event, as a timeline.",
    load: () => import('./simulate.js'),
  },
  export: { summary: 'Export an installed pack, or a snapshot of the whole workspace, as a pack.', load: () => import('./export.js') },
  status: { summary: 'List the packs installed in a workspace.', load: () => import('./status.js') },
  lsp: { summary: 'Run the language server over stdio, for editors (docs/language-server.md).', load: () => import('./lsp.js') },
  unlock: { summary: 'Break the install lock a crashed or killed run left, naming its holder.', load: () => import('./unlock.js') },
};
