// setup-pack plan: what installing a pack into a live workspace would change, Terraform style.
// Its binding and pack-reading helpers serve install too; what every workspace command shares is lib/workspace.ts.
import { resolve } from 'node:path';
import { printable as p, type Pack, type PlanOptions } from '@setup-pack/core';
import type { CommandSpec, Options, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { InvalidPackInputError, UsageError } from '../lib/errors.js';
import { displayPath } from '../lib/files.js';
import { cannotRead, readPackFile } from '../lib/packfile.js';
import { readPackInput } from '../lib/pack-input.js';
import { connect, CONNECTION_OPTIONS, planJson, reportFailure } from '../lib/workspace.js';

export const PLAN_OPTIONS: Options = {
  overwrite: { type: 'boolean', description: 'Replace items edited in the workspace (conflicts) instead of keeping them.' },
  prune: { type: 'boolean', description: 'Remove items gone from this release, when unedited.' },
  bind: {
    type: 'string',
    multiple: true,
    value: '<type:id=workspaceId>',
    description: 'Bind a reference the pack does not carry (repeatable), e.g. user:usr_8841=mem_123.',
  },
  bindings: { type: 'string', value: '<file>', path: true, description: 'JSON file of bindings: { "type:id": "workspaceId" }.' },
  'allow-downgrade': { type: 'boolean', description: 'Allow installing a lower version than the installed one.' },
};

/**
 * The plan's options from the command line, for `pack` (read and validated by readPack). A --bind
 * that binds nothing in the pack (core's unusedBindings: a typo, or a reference the pack carries
 * itself) is a usage error; a bindings file, which may serve several packs, gets a warning for each
 * such key, and the rest of it is used.
 */
export async function planOptions(
  ctx: CommandContext,
  args: Parsed,
  pack: Pack,
  command: 'plan' | 'install',
): Promise<PlanOptions & { validated: true }> {
  const { parseBinding, bindingKeyProblem } = await import('@setup-pack/installer');
  const { unusedBindings } = await import('@setup-pack/core');
  const bindings: Record<string, string> = {};
  if (typeof args.values.bindings === 'string') {
    const file = args.values.bindings;
    const abs = resolve(ctx.cwd, file);
    // Read as pack files are: UTF-16 named as such, a syntax error or a property written twice
    // placed at its line and column.
    const r = await readPackFile(abs, displayPath(abs, ctx.cwd));
    const where = (d: { line?: number; column?: number } | undefined) =>
      `${file}${d?.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}`;
    if (!r.ok) {
      const d = r.report.diagnostics[0];
      // Core words these for packs; this file is not one.
      const why = (r.unreadable ? (r.report.readError ?? '') : (d?.message ?? 'not JSON'))
        .replace(/^cannot read the file: /, '')
        .replace(/\ba pack is\b/, 'a bindings file is');
      throw new UsageError(r.unreadable ? `cannot read bindings file '${file}': ${why}` : `bindings file ${where(d)}: ${why}`);
    }
    const twice = r.findings.find((d) => d.severity === 'error' || d.code === 'json/duplicate-key');
    if (twice) throw new UsageError(`bindings file ${where(twice)}: ${twice.message}`);
    const parsed = r.value;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UsageError(`bindings file '${file}' must be a JSON object of "type:id": "workspaceId"`);
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      const problem =
        bindingKeyProblem(key) ??
        (typeof value !== 'string'
          ? `'${key}' must be bound to a workspace id (a string), not ${JSON.stringify(value)}`
          : value.trim()
            ? undefined
            : `'${key}' needs a workspace id`);
      if (problem) throw new UsageError(`bindings file '${file}': ${problem}`);
    }
    for (const [k, why] of unusedBindings(pack, Object.keys(parsed)))
      ctx.stderr.write(`setup-pack ${command}: warning: bindings file '${file}': ${p(k)} binds nothing here: ${p(why)}\n`);
    Object.assign(bindings, parsed);
  }
  for (const b of (args.values.bind as string[] | undefined) ?? []) {
    let k: string, v: string;
    try {
      [k, v] = parseBinding(b);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const why = unusedBindings(pack, [k]).get(k);
    if (why) throw new UsageError(`--bind ${b} binds nothing: ${why}`);
    bindings[k] = v;
  }
  // The pack was validated by readPack, as every command reading one here does first.
  return {
    overwrite: !!args.values.overwrite,
    prune: !!args.values.prune,
    allowDowngrade: !!args.values['allow-downgrade'],
    bindings,
    validated: true,
  };
}

/**
 * The pack `plan` and `install` are given: a pack file, or a source folder built in memory; either
 * must be valid, so installing an invalid pack is refused before any request.
 */
export async function readPack(ctx: CommandContext, file: string): Promise<Pack> {
  const abs = resolve(ctx.cwd, file);
  const r = await readPackInput(ctx, abs, displayPath(abs, ctx.cwd));
  const { validatePack, plural, blocksUse } = await import('@setup-pack/core');
  if (!r.ok && r.unreadable) throw new UsageError(cannotRead(file, r.reports[0]));
  // Where a folder's build or a file's parse found errors: the first, at its file, line and column.
  const errors = r.reports.flatMap((rep) =>
    rep.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => ({ d, at: `${rep.path}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}` })),
  );
  if (!r.ok) {
    const first = errors[0];
    // A folder with no manifest is no source folder at all (a usage error, as validate says it); any
    // other pack that does not parse or build is invalid input (exit 1).
    const notAPack =
      r.folder &&
      r.reports.some((rep) => /(^|\/)manifest\.json$/.test(rep.path) && rep.diagnostics.some((d) => d.code === 'build/missing-file'));
    const Failure = notAPack ? UsageError : InvalidPackInputError;
    // Core's message already says what is wrong ("The file is not valid JSON: …"); add where.
    throw new Failure(
      r.folder
        ? `'${file}' does not build (${plural(errors.length, 'error')}, first: ${(first?.d.message ?? 'no pack').replace(/\.$/, '')} at ${first?.at ?? file}); run 'setup-pack validate ${file}'`
        : `${file}${first?.d.line !== undefined ? `:${first.d.line}:${first.d.column ?? 1}` : ''}: ${first?.d.message ?? 'not a pack'}`,
    );
  }
  // A folder's pack is there only when it built valid (compileFolder validates it).
  if (r.folder) return r.value as Pack;
  const invalid = validatePack(r.value).diagnostics.filter(blocksUse);
  if (invalid.length) {
    throw new InvalidPackInputError(
      `'${file}' is not a valid pack (${plural(invalid.length, 'error')}, first: ${invalid[0].message} at ${invalid[0].pointer || '/'}); run 'setup-pack validate ${file}'`,
    );
  }
  return r.value as Pack;
}

export const spec: CommandSpec = {
  name: 'plan',
  summary: 'Show what installing a pack into a workspace would change.',
  usage: 'plan [options] <pack.json | source folder>',
  description:
    'Reads the workspace (never writes) and prints one line per item: + create, ~ update, - remove, ! conflict (edited in the workspace), = unchanged or kept. With --detailed-exitcode: 0 no changes, 2 changes, 1 error (as terraform plan).',
  positionals: [1, 1],
  exitCodes:
    'Exit codes: 0 planned; 1 the plan failed (e.g. unresolved references), the API refused, or the pack is not valid; 2 usage error, or a pack file that cannot be read; with --detailed-exitcode 0 no changes, 2 changes, 1 any error (usage errors too).',
  docs: 'docs/install.md',
  failuresExitOne: 'detailed-exitcode',
  options: {
    ...CONNECTION_OPTIONS,
    ...PLAN_OPTIONS,
    all: { type: 'boolean', description: 'Also list unchanged items.' },
    'detailed-exitcode': {
      type: 'boolean',
      description: 'Exit 2 when there are changes, 0 when none, 1 on any error (a usage error or an unreadable file too).',
    },
  },
  examples: [
    ['setup-pack plan buyer-lead-1.1.0.json --url https://crm.example.com --key $KEY', 'Preview an upgrade'],
    ['WORKSPACE_URL=... WORKSPACE_API_KEY=... setup-pack plan pack.json --detailed-exitcode', 'Detect drift in CI'],
    ['setup-pack plan pack.json --bind user:usr_8841=mem_123 --format json', 'Bind a member and get JSON'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const pack = await readPack(ctx, args.positionals[0]);
  const options = await planOptions(ctx, args, pack, 'plan');
  const client = await connect(ctx, args);
  const { planInstall, formatPlanText } = await import('@setup-pack/installer');
  try {
    const { plan } = await planInstall(client, pack, options);
    if (json) ctx.stdout.write(JSON.stringify(planJson(plan), null, 2) + '\n');
    else ctx.stdout.write(formatPlanText(plan, ctx.colors('stdout'), { all: !!args.values.all }));
    if (!plan.ok) return 1;
    return args.values['detailed-exitcode'] && plan.hasChanges ? 2 : 0;
  } catch (e) {
    return reportFailure(ctx, e, json);
  }
}
