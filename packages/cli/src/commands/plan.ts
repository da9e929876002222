// setup-pack plan: what installing a pack into a live workspace would change, Terraform style.
// The shared connection, binding and pack-reading helpers of install/uninstall/status live here.
import { resolve } from 'node:path';
import { printable as p, type Pack, type PlanOptions, type PlanResult } from '@setup-pack/core';
import type { WaitEvent } from '@setup-pack/installer';
import type { CommandSpec, Options, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { displayPath } from '../lib/files.js';
import { cannotRead, readPackFile } from '../lib/packfile.js';
import { readPackInput } from '../lib/pack-input.js';
import { cliVersion } from '../lib/version.js';

export const CONNECTION_OPTIONS: Options = {
  url: { type: 'string', value: '<base>', description: 'Workspace API base address (default: $WORKSPACE_URL).' },
  key: { type: 'string', value: '<key>', description: 'Workspace API key (default: $WORKSPACE_API_KEY).' },
  format: { type: 'string', short: 'f', value: '<format>', choices: ['pretty', 'json'], description: 'Output format (default pretty).' },
};

export const PLAN_OPTIONS: Options = {
  overwrite: { type: 'boolean', description: 'Replace items edited in the workspace (conflicts) instead of keeping them.' },
  prune: { type: 'boolean', description: 'Remove items gone from this release, when unedited.' },
  bind: { type: 'string', multiple: true, value: '<type:id=workspaceId>', description: 'Bind a reference the pack does not carry (repeatable), e.g. user:usr_8841=mem_123.' },
  bindings: { type: 'string', value: '<file>', path: true, description: 'JSON file of bindings: { "type:id": "workspaceId" }.' },
  'allow-downgrade': { type: 'boolean', description: 'Allow installing a lower version than the installed one.' },
};

/**
 * A progress line a command redraws in place on stderr (`\r…`): anything else said on stderr
 * meanwhile (a wait) clears it first, so it is not written onto the end of the bar.
 */
export class StatusLine {
  private width = 0;
  constructor(private readonly ctx: CommandContext) {}
  draw(line: string): void {
    this.ctx.stderr.write(`\r${line.padEnd(this.width)}`);
    this.width = line.length;
  }
  /** Clears the line (the next draw starts on a clean one). */
  clear(): void {
    if (this.width) this.ctx.stderr.write(`\r${' '.repeat(this.width)}\r`);
    this.width = 0;
  }
  /** Leaves the line as it is and goes to the next (a failure: the bar shows how far it got). */
  end(): void {
    if (this.width) this.ctx.stderr.write('\n');
    this.width = 0;
  }
}

export async function connect(ctx: CommandContext, args: Parsed, status?: StatusLine) {
  const url = (args.values.url as string | undefined) ?? ctx.env.WORKSPACE_URL;
  const key = (args.values.key as string | undefined) ?? ctx.env.WORKSPACE_API_KEY;
  if (!url) throw new UsageError('no workspace address: pass --url or set WORKSPACE_URL');
  if (!key) throw new UsageError('no API key: pass --key or set WORKSPACE_API_KEY');
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) address, not '${url}'`);
  // Said now, not as a network failure after retries ("cannot reach … (Invalid URL)"), and never
  // echoing a password: fetch's own refusal of one quoted the whole address, password included.
  let address: URL;
  try {
    // As the client will address it: a base with a space at its end parses, its paths do not.
    address = new URL(`${url.replace(/\/+$/, '')}/v1/me`);
  } catch {
    throw new UsageError(`--url is not a valid address: ${JSON.stringify(url)}`);
  }
  if (address.username || address.password) throw new UsageError('--url must not carry a user name or password: the API key goes in --key or WORKSPACE_API_KEY');
  const { WorkspaceClient, describeWait } = await import('@setup-pack/installer');
  // A wait of a second or more is said on stderr, so a run paced by a spent rate-limit window
  // (up to a minute) or retrying a failing server does not look hung; stdout stays the report.
  const onWait = (w: WaitEvent) => {
    status?.clear();
    ctx.stderr.write(`setup-pack: ${describeWait(w)}…\n`);
  };
  return new WorkspaceClient({ baseUrl: url, apiKey: key, userAgent: `setup-pack/${cliVersion()}`, onWait });
}

/**
 * The plan's options from the command line, for `pack` (read and validated by readPack). A --bind
 * that binds nothing in the pack (core's unusedBindings: a typo, or a reference the pack carries
 * itself) is a usage error; a bindings file, which may serve several packs, gets a warning for each
 * such key, and the rest of it is used.
 */
export async function planOptions(ctx: CommandContext, args: Parsed, pack: Pack, command: 'plan' | 'install'): Promise<PlanOptions & { validated: true }> {
  const { parseBinding, bindingKeyProblem } = await import('@setup-pack/installer');
  const { unusedBindings } = await import('@setup-pack/core');
  const bindings: Record<string, string> = {};
  if (typeof args.values.bindings === 'string') {
    const file = args.values.bindings;
    const abs = resolve(ctx.cwd, file);
    // Read as pack files are: UTF-16 named as such, a syntax error or a property written twice
    // placed at its line and column.
    const r = await readPackFile(abs, displayPath(abs, ctx.cwd));
    const where = (d: { line?: number; column?: number } | undefined) => `${file}${d?.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}`;
    if (!r.ok) {
      const d = r.report.diagnostics[0];
      // Core words these for packs; this file is not one.
      const why = (r.unreadable ? r.report.readError ?? '' : d?.message ?? 'not JSON').replace(/^cannot read the file: /, '').replace(/\ba pack is\b/, 'a bindings file is');
      throw new UsageError(r.unreadable ? `cannot read bindings file '${file}': ${why}` : `bindings file ${where(d)}: ${why}`);
    }
    const twice = r.findings.find((d) => d.severity === 'error' || d.code === 'json/duplicate-key');
    if (twice) throw new UsageError(`bindings file ${where(twice)}: ${twice.message}`);
    const parsed = r.value;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new UsageError(`bindings file '${file}' must be a JSON object of "type:id": "workspaceId"`);
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      const problem = bindingKeyProblem(key)
        ?? (typeof value !== 'string' ? `'${key}' must be bound to a workspace id (a string), not ${JSON.stringify(value)}` : value.trim() ? undefined : `'${key}' needs a workspace id`);
      if (problem) throw new UsageError(`bindings file '${file}': ${problem}`);
    }
    for (const [k, why] of unusedBindings(pack, Object.keys(parsed))) ctx.stderr.write(`setup-pack ${command}: warning: bindings file '${file}': ${p(k)} binds nothing here: ${p(why)}\n`);
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
  return { overwrite: !!args.values.overwrite, prune: !!args.values.prune, allowDowngrade: !!args.values['allow-downgrade'], bindings, validated: true };
}

/**
 * The pack `plan` and `install` are given: a pack file, or a source folder built in memory; either
 * must be valid, so installing an invalid pack is refused before any request.
 */
export async function readPack(ctx: CommandContext, file: string): Promise<Pack> {
  const abs = resolve(ctx.cwd, file);
  const r = await readPackInput(ctx, abs, displayPath(abs, ctx.cwd));
  const { validatePack, plural } = await import('@setup-pack/core');
  if (!r.ok && r.unreadable) throw new UsageError(cannotRead(file, r.reports[0]));
  // Where a folder's build or a file's parse found errors: the first, at its file, line and column.
  const errors = r.reports.flatMap((rep) => rep.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ d, at: `${rep.path}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}` })));
  if (!r.ok) {
    const first = errors[0];
    // Core's message already says what is wrong ("The file is not valid JSON: …"); add where.
    throw new UsageError(r.folder ? `'${file}' does not build (${plural(errors.length, 'error')}, first: ${(first?.d.message ?? 'no pack').replace(/\.$/, '')} at ${first?.at ?? file}); run 'setup-pack validate ${file}'` : `${file}${first?.d.line !== undefined ? `:${first.d.line}:${first.d.column ?? 1}` : ''}: ${first?.d.message ?? 'not a pack'}`);
  }
  // A folder's pack is there only when it built valid (compileFolder validates it).
  if (r.folder) return r.value as Pack;
  const invalid = validatePack(r.value).diagnostics.filter((d) => d.severity === 'error');
  if (invalid.length) {
    throw new UsageError(`'${file}' is not a valid pack (${plural(invalid.length, 'error')}, first: ${invalid[0].message} at ${invalid[0].pointer || '/'}); run 'setup-pack validate ${file}'`);
  }
  return r.value as Pack;
}

/** An API failure as one line on stderr; exit 1. */
export async function reportFailure(ctx: CommandContext, e: unknown, json: boolean): Promise<number> {
  const { WorkspaceApiError, PlanFailedError, InstallStepError, LockTakenError, formatPlanText } = await import('@setup-pack/installer');
  if (e instanceof PlanFailedError) {
    if (json) ctx.stdout.write(JSON.stringify(planJson(e.plan), null, 2) + '\n');
    else ctx.stderr.write(formatPlanText(e.plan, ctx.colors('stderr')));
    return 1;
  }
  if (e instanceof WorkspaceApiError) {
    // The server's words: printable, whatever server it is.
    const msg = p(`${e.type}${e.status ? ` (HTTP ${e.status})` : ''}: ${e.message}${e.param ? ` [${e.param}]` : ''}`);
    // A run that failed part-way: which item (in the message), how far it got, and what to do.
    const step = e instanceof InstallStepError ? { item: e.step.itemId, action: e.step.action, written: e.written, total: e.total, run: e.run, ...(e.lockLeft ? { lockLeft: e.lockLeft.holder } : {}) } : undefined;
    // The lock is taken: by a run in progress, or by one that crashed or was killed. Who, until
    // when (the error's lock field; the server's message says it in words), and how to break it
    // if that run is dead.
    const lock = e instanceof LockTakenError && e.holder !== null ? { lock: { holder: e.holder, expires_at: e.expiresAt } } : undefined;
    if (json) ctx.stdout.write(JSON.stringify({ error: { type: e.type, status: e.status, message: e.message, param: e.param, ...step, ...lock } }, null, 2) + '\n');
    if (e instanceof LockTakenError && e.holder !== null) {
      const { breakLockHint } = await import('./unlock.js');
      ctx.stderr.write(`setup-pack: ${msg}; ${p(breakLockHint(e.packId, e.holder))}\n`);
    } else ctx.stderr.write(`setup-pack: ${msg}\n`);
    if (step && e instanceof InstallStepError) {
      const { plural } = await import('@setup-pack/core');
      // The run's lock, when it could not be released (the key was refused, the workspace went away), blocks the next run until it expires.
      const { unlockCommand } = await import('./unlock.js');
      const first = e.lockLeft ? `its lock (${p(e.lockLeft.holder)}) could not be released: break it with ${p(unlockCommand(e.lockLeft.packId, e.lockLeft.holder))} (with a key the workspace accepts), then ` : '';
      ctx.stderr.write(step.run === 'uninstall'
        ? `setup-pack: ${step.written} of ${plural(step.total, 'removal')} made; ${first}run the uninstall again to finish it\n`
        : `setup-pack: ${step.written} of ${plural(step.total, 'item write')} made; the install is recorded as in progress: ${first}run it again to resume (what was written is recognised, not duplicated)\n`);
    }
    return 1;
  }
  throw e;
}

/** The plan as JSON for machines: stable field names, no request bodies. */
export function planJson(plan: PlanResult) {
  return {
    version: 1,
    ok: plan.ok,
    errors: plan.errors,
    // What the user should know about a plan that goes through (core's PlanWarning); never changes the exit code.
    warnings: plan.warnings,
    packId: plan.packId,
    packName: plan.packName,
    fromVersion: plan.fromVersion,
    toVersion: plan.toVersion,
    versionChange: plan.versionChange,
    hasChanges: plan.hasChanges,
    writes: plan.writes,
    summary: plan.summary,
    bindings: plan.bindings,
    steps: plan.steps.map((s) => ({ itemId: s.itemId, kind: s.kind, key: s.key, name: s.name, action: s.action, resolution: s.resolution, write: s.write, workspaceId: s.workspaceId, reason: s.reason })),
  };
}

export const spec: CommandSpec = {
  name: 'plan',
  summary: 'Show what installing a pack into a workspace would change.',
  usage: 'plan [options] <pack.json | source folder>',
  description: 'Reads the workspace (never writes) and prints one line per item: + create, ~ update, - remove, ! conflict (edited in the workspace), = unchanged or kept. With --detailed-exitcode: 0 no changes, 2 changes, 1 error (as terraform plan).',
  positionals: [1, 1],
  exitCodes: 'Exit codes: 0 planned; 1 the plan failed (e.g. unresolved references) or the API refused; 2 usage error, or a pack file that cannot be read or is not valid; with --detailed-exitcode 0 no changes, 2 changes, 1 any error (usage errors too).',
  docs: 'docs/install.md',
  failuresExitOne: 'detailed-exitcode',
  options: {
    ...CONNECTION_OPTIONS,
    ...PLAN_OPTIONS,
    all: { type: 'boolean', description: 'Also list unchanged items.' },
    'detailed-exitcode': { type: 'boolean', description: 'Exit 2 when there are changes, 0 when none, 1 on any error (a usage error or an unreadable file too).' },
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
