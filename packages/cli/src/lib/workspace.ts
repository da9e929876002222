// What the commands that talk to a workspace share (plan, install, uninstall, status, export,
// unlock): the connection options and client, the progress line, how an API failure is told, the
// plan as JSON, and how a held lock is broken.
import { printable as p, type PlanResult } from '@setup-pack/core';
import type { WaitEvent } from '@setup-pack/installer';
import type { Options, Parsed } from './args.js';
import type { CommandContext } from './context.js';
import { UsageError } from './errors.js';
import { shellWord } from './shell.js';
import { cliVersion } from './version.js';

/** The variables --url and --key stand in for: the one statement of their names (help, refusals, connect). */
const URL_ENV = { name: 'WORKSPACE_URL', what: "the workspace API's base address" };
const KEY_ENV = { name: 'WORKSPACE_API_KEY', what: 'a workspace API key' };

export const CONNECTION_OPTIONS: Options = {
  url: { type: 'string', value: '<base>', env: URL_ENV, description: 'Workspace API base address.' },
  key: { type: 'string', value: '<key>', env: KEY_ENV, description: 'Workspace API key.' },
  format: { type: 'string', short: 'f', value: '<format>', choices: ['pretty', 'json'], description: 'Output format (default pretty).' },
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
  // An empty --url or --key was refused when the options were parsed (OptionSpec.env); an empty variable counts as unset.
  const url = (args.values.url as string | undefined) ?? ctx.env[URL_ENV.name];
  const key = (args.values.key as string | undefined) ?? ctx.env[KEY_ENV.name];
  if (!url) throw new UsageError(`no workspace address: pass --url or set ${URL_ENV.name}`);
  if (!key) throw new UsageError(`no API key: pass --key or set ${KEY_ENV.name}`);
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
  if (address.username || address.password)
    throw new UsageError(`--url must not carry a user name or password: the API key goes in --key or ${KEY_ENV.name}`);
  // The API's paths begin with /v1: a base that ends with it is most likely the API's address
  // copied whole, and every request would go to /v1/v1/…. Said, not refused: a deployment may
  // put the API under such a prefix.
  if (/\/v1\/*$/.test(address.pathname.replace(/\/v1\/me$/, ''))) {
    const base = url.replace(/\/+$/, '').replace(/\/v1$/, '');
    ctx.stderr.write(
      `setup-pack: warning: the workspace address ${JSON.stringify(url)} ends with /v1, and requests add /v1/… to it (${address.pathname}); if the API's base address is ${base}, give that\n`,
    );
  }
  const { WorkspaceClient, describeWait } = await import('@setup-pack/installer');
  // A wait of a second or more is said on stderr, so a run paced by a spent rate-limit window
  // (up to a minute) or retrying a failing server does not look hung; stdout stays the report.
  const onWait = (w: WaitEvent) => {
    status?.clear();
    ctx.stderr.write(`setup-pack: ${describeWait(w)}…\n`);
  };
  return new WorkspaceClient({ baseUrl: url, apiKey: key, userAgent: `setup-pack/${cliVersion()}`, onWait });
}

/** The command that breaks `holder`'s lock of `packId`, as the lock-taken message and this command say it. */
export const unlockCommand = (packId: string, holder: string) => `setup-pack unlock ${shellWord(packId)} ${shellWord(holder)}`;

/** How to break a lock that may be a dead run's, as a refused install and `status` say it. */
export const breakLockHint = (packId: string, holder: string) =>
  `if no run is in progress (one crashed or was killed), break it: ${unlockCommand(packId, holder)}`;

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
    const step =
      e instanceof InstallStepError
        ? {
            item: e.step.itemId,
            action: e.step.action,
            written: e.written,
            total: e.total,
            run: e.run,
            ...(e.lockLeft ? { lockLeft: e.lockLeft.holder } : {}),
          }
        : undefined;
    // The lock is taken: by a run in progress, or by one that crashed or was killed. Who, until
    // when (the error's lock field; the server's message says it in words), and how to break it
    // if that run is dead.
    const lock = e instanceof LockTakenError && e.holder !== null ? { lock: { holder: e.holder, expires_at: e.expiresAt } } : undefined;
    if (json)
      ctx.stdout.write(
        JSON.stringify({ error: { type: e.type, status: e.status, message: e.message, param: e.param, ...step, ...lock } }, null, 2) + '\n',
      );
    if (e instanceof LockTakenError && e.holder !== null) {
      ctx.stderr.write(`setup-pack: ${msg}; ${p(breakLockHint(e.packId, e.holder))}\n`);
    } else ctx.stderr.write(`setup-pack: ${msg}\n`);
    if (step && e instanceof InstallStepError) {
      const { plural } = await import('@setup-pack/core');
      // The run's lock, when it could not be released (the key was refused, the workspace went away), blocks the next run until it expires.
      const first = e.lockLeft
        ? `its lock (${p(e.lockLeft.holder)}) could not be released: break it with ${p(unlockCommand(e.lockLeft.packId, e.lockLeft.holder))} (with a key the workspace accepts), then `
        : '';
      ctx.stderr.write(
        step.run === 'uninstall'
          ? `setup-pack: ${step.written} of ${plural(step.total, 'removal')} made; ${first}run the uninstall again to finish it\n`
          : `setup-pack: ${step.written} of ${plural(step.total, 'item write')} made; the install is recorded as in progress: ${first}run it again to resume (what was written is recognised, not duplicated)\n`,
      );
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
    steps: plan.steps.map((s) => ({
      itemId: s.itemId,
      kind: s.kind,
      key: s.key,
      name: s.name,
      action: s.action,
      resolution: s.resolution,
      write: s.write,
      workspaceId: s.workspaceId,
      reason: s.reason,
    })),
  };
}
