// setup-pack status: the packs installed in a workspace, from its install ledgers.
import { plural, printable as p } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { connect, CONNECTION_OPTIONS, reportFailure } from './plan.js';

export const spec: CommandSpec = {
  name: 'status',
  summary: 'List the packs installed in a workspace.',
  usage: 'status [options]',
  description: 'One line per install ledger: packId, name, version, state (installed, or in_progress when a run was interrupted: re-run install to resume), item count and a held lock.',
  positionals: [0, 0],
  options: { ...CONNECTION_OPTIONS },
  examples: [['WORKSPACE_URL=... WORKSPACE_API_KEY=... setup-pack status', 'What is installed here?']],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const client = await connect(ctx, args);
  const { listLedgers } = await import('@setup-pack/installer');
  try {
    const records = await listLedgers(client);
    const rows = records.map((r) => ({
      packId: r.pack_id,
      name: r.ledger.packName,
      version: r.ledger.version,
      state: r.ledger.state,
      targetVersion: r.ledger.targetVersion ?? null,
      items: Object.keys(r.ledger.items ?? {}).length,
      lock: r.lock,
      updatedAt: r.updated_at,
    }));
    if (json) {
      ctx.stdout.write(JSON.stringify({ version: 1, packs: rows }, null, 2) + '\n');
      return 0;
    }
    const c = ctx.colors('stdout');
    if (!rows.length) {
      ctx.stdout.write('No packs are installed in this workspace.\n');
      return 0;
    }
    for (const r of rows) {
      // The workspace's ledger is the workspace's text: printable (as p) before a terminal sees it.
      const state = r.state === 'installed' ? c.green('installed') : c.yellow(`in progress → ${p(String(r.targetVersion))} (re-run install to resume)`);
      const lock = r.lock ? c.yellow(` locked by ${p(String(r.lock.holder))} until ${p(String(r.lock.expires_at))}`) : '';
      ctx.stdout.write(`${c.bold(p(String(r.name)))} ${p(String(r.version ?? '-'))} ${state} ${c.dim(`${p(String(r.packId))}, ${plural(r.items, 'item')}, updated ${p(String(r.updatedAt))}`)}${lock}\n`);
    }
    return 0;
  } catch (e) {
    return reportFailure(ctx, e, json);
  }
}
