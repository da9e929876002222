// setup-pack install: install or upgrade a pack in a live workspace (plan, then apply).
import { count, LEDGER_LOCK, plural, printable as p } from '@setup-pack/core';
import { intOption, type CommandSpec, type Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { connect, CONNECTION_OPTIONS, planJson, reportFailure, StatusLine } from '../lib/workspace.js';
import { PLAN_OPTIONS, planOptions, readPack } from './plan.js';

export const spec: CommandSpec = {
  name: 'install',
  summary: 'Install or upgrade a pack in a workspace.',
  usage: 'install [options] <pack.json | source folder>',
  description:
    'Plans against the workspace and applies the plan: resources, pipelines, media and templates, smart lists, automations (always drafts that are off), then the install ledger. Re-running an interrupted install resumes it without duplicates. Items edited in the workspace are kept unless --overwrite.',
  exitCodes:
    'Exit codes: 0 installed, already up to date, or a dry run; 1 the plan failed, the API refused (run it again to resume), or the pack is not valid; 2 usage error, or a pack file that cannot be read.',
  docs: 'docs/install.md',
  positionals: [1, 1],
  options: {
    ...CONNECTION_OPTIONS,
    ...PLAN_OPTIONS,
    'dry-run': { type: 'boolean', description: 'Plan and print, write nothing.' },
    'lock-ttl': {
      type: 'string',
      value: '<seconds>',
      description: `Expiry of the install lock, renewed at each checkpoint (default ${LEDGER_LOCK.ttlSeconds.default}): how long a crashed run blocks the next.`,
    },
  },
  examples: [
    ['setup-pack install buyer-lead-1.0.0.json --url https://crm.example.com --key $KEY', 'Install a pack'],
    ['setup-pack install buyer-lead-1.1.0.json --prune', 'Upgrade and remove items the release dropped'],
    ['setup-pack install pack.json --bind user:usr_8841=mem_123 --format json', 'Bind a member; JSON result'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const ttl = intOption('lock-ttl', args.values['lock-ttl']);
  const { minimum, maximum } = LEDGER_LOCK.ttlSeconds;
  if (ttl !== undefined && (ttl < minimum || ttl > maximum))
    throw new UsageError(`--lock-ttl must be between ${minimum} and ${maximum} seconds`);
  const pack = await readPack(ctx, args.positionals[0]);
  const options = await planOptions(ctx, args, pack, 'install');
  const tty = !json && ctx.stderr.isTTY;
  const bar = new StatusLine(ctx);
  const client = await connect(ctx, args, tty ? bar : undefined);
  const { install, formatPlanText } = await import('@setup-pack/installer');
  try {
    const result = await install(client, pack, {
      ...options,
      dryRun: !!args.values['dry-run'],
      lockTtlSeconds: intOption('lock-ttl', args.values['lock-ttl']),
      onProgress: tty
        ? ({ done, total, step }) => {
            const width = 24;
            const filled = Math.round((done / Math.max(1, total)) * width);
            bar.draw(
              `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${count(done)}/${count(total)} ${step.action} ${p(step.itemId)}`.slice(
                0,
                100,
              ),
            );
          }
        : undefined,
    });
    bar.clear();
    if (json) {
      ctx.stdout.write(
        JSON.stringify(
          { ...planJson(result.plan), dryRun: !!args.values['dry-run'], written: result.written, requests: client.stats.requests },
          null,
          2,
        ) + '\n',
      );
    } else {
      ctx.stdout.write(formatPlanText(result.plan, ctx.colors('stdout')));
      if (args.values['dry-run']) ctx.stdout.write('Dry run: nothing was written.\n');
      else if (!result.plan.hasChanges)
        ctx.stdout.write(`Already up to date (${plural(client.stats.requests, 'request')}, none of them writes).\n`);
      else
        ctx.stdout.write(
          `Applied: ${plural(result.written, 'item write')}; ${p(pack.name)} ${p(pack.version)} is installed (${plural(client.stats.requests, 'request')}).\n`,
        );
    }
    return 0;
  } catch (e) {
    bar.end();
    return reportFailure(ctx, e, json);
  }
}
