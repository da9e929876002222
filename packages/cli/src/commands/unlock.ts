// setup-pack unlock: break the install lock a crashed or killed run left, by naming its holder.
import { LEDGER_LOCK, printable as p } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { connect, CONNECTION_OPTIONS, reportFailure } from '../lib/workspace.js';

export const spec: CommandSpec = {
  name: 'unlock',
  summary: 'Break the install lock a crashed or killed run left, naming its holder.',
  usage: 'unlock [options] <packId> <holder>',
  description: `An install or uninstall that crashed or was killed leaves the pack's lock held until it expires (--lock-ttl, ${LEDGER_LOCK.ttlSeconds.default} s by default). This releases it at once, but only when <holder> (as the refused install or status names it) holds it: a run in progress under another holder is never broken. Run it only when no run is in progress.`,
  exitCodes: 'Exit codes: 0 released, 1 not released (another holder has the lock, or nobody does) or the API refused, 2 usage error.',
  docs: 'docs/install.md',
  namesNotPaths: true,
  positionals: [2, 2],
  options: { ...CONNECTION_OPTIONS },
  examples: [['setup-pack unlock 6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12 setup-pack-k3x9q2ab', 'Break the lock a killed CI job left']],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const [packId, holder] = args.positionals;
  if (!packId) throw new UsageError('the packId must not be empty');
  if (!holder)
    throw new UsageError('the holder must not be empty: name the one the lock shows (setup-pack status, or the install that was refused)');
  const client = await connect(ctx, args);
  const { breakLock } = await import('@setup-pack/installer');
  try {
    const r = await breakLock(client, packId, holder);
    const lock = !r.released && r.reason === 'held' ? { holder: r.holder, expires_at: r.expiresAt } : null;
    if (json)
      ctx.stdout.write(
        JSON.stringify({ version: 1, packId, holder, released: r.released, ...(r.released ? {} : { reason: r.reason, lock }) }, null, 2) +
          '\n',
      );
    if (r.released) {
      if (!json) ctx.stdout.write(`Released the install lock of ${p(packId)} held by ${p(holder)}.\n`);
      return 0;
    }
    // The workspace's words (a holder is anyone's text): printable before a terminal sees them.
    ctx.stderr.write(
      r.reason === 'held'
        ? `setup-pack: not released: the install lock of ${p(packId)} is held by ${p(String(r.holder ?? 'another run'))}${r.expiresAt ? ` until ${p(r.expiresAt)}` : ''}, not by ${p(holder)}\n`
        : `setup-pack: not released: the install lock of ${p(packId)} is not held by ${p(holder)} (nothing to release)\n`,
    );
    return 1;
  } catch (e) {
    return reportFailure(ctx, e, json);
  }
}
