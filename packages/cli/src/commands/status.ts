// setup-pack status: the packs installed in a workspace, from its install ledgers.
import { plural, printable as p } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { breakLockHint, connect, CONNECTION_OPTIONS, reportFailure } from '../lib/workspace.js';

export const spec: CommandSpec = {
  name: 'status',
  summary: 'List the packs installed in a workspace.',
  usage: 'status [options]',
  description:
    'One line per install ledger: packId, name, version, state (installed, or in_progress when a run was interrupted: re-run install to resume), item count and a held lock, with the unlock command that breaks it if no run is in progress. A pack whose lock a run took and which it wrote no ledger for yet (killed before its first checkpoint) is listed too, as "no ledger yet" (state locked in --format json).',
  exitCodes: 'Exit codes: 0 listed (none installed included); 1 the API refused; 2 usage error.',
  docs: 'docs/install.md',
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
      name: r.ledger?.packName ?? null,
      version: r.ledger?.version ?? null,
      // No ledger: a run took the lock and has not written its first checkpoint (or was killed before it).
      state: r.ledger ? r.ledger.state : ('locked' as const),
      targetVersion: r.ledger?.targetVersion ?? null,
      items: Object.keys(r.ledger?.items ?? {}).length,
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
      const lock = r.lock
        ? c.yellow(
            ` locked by ${p(String(r.lock.holder))} until ${p(String(r.lock.expires_at))}; ${p(breakLockHint(String(r.packId), String(r.lock.holder)))}`,
          )
        : '';
      if (r.state === 'locked') {
        ctx.stdout.write(
          `${c.bold(p(String(r.packId)))} ${c.yellow('no ledger yet (a run took the install lock and wrote no checkpoint)')}${lock}\n`,
        );
        continue;
      }
      const state =
        r.state === 'installed' ? c.green('installed') : c.yellow(`in progress → ${p(String(r.targetVersion))} (re-run install to resume)`);
      ctx.stdout.write(
        `${c.bold(p(String(r.name)))} ${p(String(r.version ?? '-'))} ${state} ${c.dim(`${p(String(r.packId))}, ${plural(r.items, 'item')}, updated ${p(String(r.updatedAt))}`)}${lock}\n`,
      );
    }
    return 0;
  } catch (e) {
    return reportFailure(ctx, e, json);
  }
}
