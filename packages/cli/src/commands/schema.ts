// setup-pack schema [name]: print a published JSON Schema, or list them.
import { suggest, type CommandSpec, type Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';

export const spec: CommandSpec = {
  name: 'schema',
  summary: 'Print a published JSON Schema (default: list the schemas).',
  usage: 'schema [name]',
  positionals: [0, 1],
  options: {},
  examples: [
    ['setup-pack schema', 'List the schema names'],
    ['setup-pack schema pack > pack.schema.json', 'Save the pack schema for an editor'],
    ['setup-pack schema automation-document', 'Print the schema of one automation document'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const { publishedSchemas } = await import('@setup-pack/core');
  const names = Object.keys(publishedSchemas).sort();
  const [raw] = args.positionals;
  if (raw === undefined) {
    const width = Math.max(...names.map((n) => n.length)) + 2;
    for (const n of names) ctx.stdout.write(`${n.padEnd(width)}${String(publishedSchemas[n].title ?? '')}\n`);
    return 0;
  }
  const name = raw.replace(/\.schema\.json$/, '').replace(/\.json$/, '');
  if (!Object.prototype.hasOwnProperty.call(publishedSchemas, name)) {
    const hint = suggest(name, names);
    throw new UsageError(`no schema named '${raw}'${hint ? `; did you mean '${hint}'?` : ''} (run 'setup-pack schema' for the list)`);
  }
  ctx.stdout.write(JSON.stringify(publishedSchemas[name], null, 2) + '\n');
  return 0;
}
