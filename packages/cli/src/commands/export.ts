// setup-pack export: take a pack out of a live workspace — one installed pack (--pack-id) or a
// snapshot of everything (--all) — as a pack file or a source folder. Fetching and mapping live
// in @setup-pack/installer and core; this only parses options, shows progress and writes.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { blocksUse, count, countItems, plural, printable as p } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError, WriteError } from '../lib/errors.js';
import { displayPath, notAFolder } from '../lib/files.js';
import { checkPackField } from '../lib/pack-field.js';
import { unpackToFiles } from '../source/layout.js';
import { isEmptyDir, writeTree } from '../source/tree.js';
import { writeFileSafely } from '../lib/write.js';
import { connect, CONNECTION_OPTIONS, reportFailure, StatusLine } from '../lib/workspace.js';

export const spec: CommandSpec = {
  name: 'export',
  summary: 'Export an installed pack, or a snapshot of the whole workspace, as a pack.',
  usage: 'export (--pack-id <id> | --all) [options] [-o <pack.json | dir/>]',
  description:
    "Reads the workspace through its API (paced by the rate limit, retried like install) and maps it back into a pack: workspace ids in graph configs and filters become pack keys, media addresses in templates become the assets' sourceUrl (the images are downloaded and embedded), references to what the pack does not carry are listed with their workspace names. --pack-id keeps the packId and keys of the install ledger and exports edits made in the workspace as they are now; --all gives a fresh packId and keys derived from names. The pack is validated before writing; with errors nothing is written. See docs/export.md.",
  positionals: [0, 0],
  exitCodes:
    'Exit codes: 0 exported; 1 the pack would not be valid (nothing written), the pack is not installed, or the API refused; 2 usage error, or an output that cannot be written (nothing is left behind).',
  options: {
    ...CONNECTION_OPTIONS,
    'pack-id': { type: 'string', value: '<id>', description: 'Export the installed pack with this packId (from its install ledger).' },
    all: { type: 'boolean', description: 'Export everything the workspace holds, as a pack with a fresh packId.' },
    output: {
      type: 'string',
      short: 'o',
      path: true,
      value: '<file|dir/>',
      description: 'Where to write: a pack file, or a source folder when it ends with / or is a directory (default: the pack on stdout).',
    },
    version: {
      type: 'string',
      value: '<version>',
      description: 'Release version to stamp (default: the installed release; 1.0.0 for --all).',
    },
    name: { type: 'string', value: '<name>', description: 'Pack name of an --all snapshot (default: "<workspace name> snapshot").' },
    force: { type: 'boolean', description: 'Write into a source folder that is not empty, replacing its pack source files.' },
  },
  examples: [
    [
      'setup-pack export --pack-id 6f1c2b9e-4d3a-4e8f-9b21-3c5d7e9f0a12 --version 1.2.0 -o buyer-lead-1.2.0.json',
      'Turn a tuned install into the next release',
    ],
    ['setup-pack export --all -o snapshot/', 'Snapshot a workspace set up by hand into a source folder for git'],
    ['setup-pack diff buyer-lead-1.1.0.json buyer-lead-1.2.0.json', 'Then see what the workspace changed'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const json = args.values.format === 'json';
  const packId = args.values['pack-id'] as string | undefined;
  const all = !!args.values.all;
  if (!packId === !all) throw new UsageError('give exactly one of --pack-id <id> and --all');
  if (packId !== undefined) checkPackField('pack-id', 'packId', packId, 'a packId (a UUID)');
  const version = args.values.version as string | undefined;
  if (version !== undefined) checkPackField('version', 'version', version);
  const name = args.values.name as string | undefined;
  if (name !== undefined && !all) throw new UsageError('--name applies to --all snapshots only (a pack export keeps the installed name)');
  if (name !== undefined) checkPackField('name', 'name', name);
  const out = args.values.output as string | undefined;
  const outAbs = out === undefined ? undefined : resolve(ctx.cwd, out);
  const outStat = outAbs === undefined ? undefined : await stat(outAbs).catch(() => undefined);
  const toDir = out !== undefined && (/[\\/]$/.test(out) || outStat?.isDirectory() === true);
  const notFolder = toDir ? notAFolder(outAbs!, out, ctx.cwd) : undefined;
  if (notFolder) throw new UsageError(notFolder);
  if (toDir && (await isEmptyDir(outAbs!)) === false && !args.values.force)
    throw new UsageError(`'${out}' exists and is not empty; pass --force to replace its pack source files`);

  const tty = ctx.stderr.isTTY;
  const bar = new StatusLine(ctx);
  const client = await connect(ctx, args, tty ? bar : undefined);
  const { exportWorkspace } = await import('@setup-pack/installer');
  try {
    const result = await exportWorkspace(client, {
      packId,
      all,
      version,
      name,
      onProgress: tty
        ? ({ phase, done, total }) => {
            bar.draw(`reading ${phase} ${count(done)}/${count(total)} (${plural(client.stats.requests, 'request')})`);
          }
        : undefined,
    });
    bar.clear();
    const errors = result.diagnostics.filter(blocksUse);
    const warnings = result.diagnostics.length - errors.length;
    for (const n of result.notes) ctx.stderr.write(`setup-pack export: note: ${p(n.item ? `${n.item}: ` : '')}${p(n.message)}\n`);
    if (errors.length) {
      // The workspace holds something a pack cannot (a limit, a name too long…): say what, write nothing.
      ctx.stderr.write(
        `setup-pack export: the exported pack would not be valid (${plural(errors.length, 'error')}); nothing was written:\n`,
      );
      for (const d of errors) ctx.stderr.write(`  ${d.code} ${p(d.pointer) || '/'}: ${p(d.message)}\n`);
      if (json) ctx.stdout.write(JSON.stringify({ ok: false, diagnostics: result.diagnostics, notes: result.notes }, null, 2) + '\n');
      return 1;
    }
    const { formatPack } = await import('@setup-pack/core');
    const text = formatPack(result.pack);
    const summary = `${p(result.pack.name)} ${p(result.pack.version)} (${p(result.pack.packId)}): ${plural(countItems(result.pack), 'item')}, ${plural(result.requests, 'request')}${warnings ? `, ${plural(warnings, 'warning')}` : ''}`;
    if (outAbs === undefined) ctx.stdout.write(text);
    else if (toDir) {
      const files = unpackToFiles(JSON.parse(text));
      await writeTree(outAbs, out, files);
      ctx.stderr.write(`exported ${summary} into ${displayPath(outAbs, ctx.cwd)}/ (${plural(files.size, 'file')})\n`);
    } else {
      await writeFileSafely(outAbs, out!, text);
      ctx.stderr.write(`exported ${summary} to ${displayPath(outAbs, ctx.cwd)}\n`);
    }
    if (json && outAbs !== undefined)
      ctx.stdout.write(
        JSON.stringify(
          {
            ok: true,
            packId: result.pack.packId,
            version: result.pack.version,
            items: countItems(result.pack),
            requests: result.requests,
            minimumRequests: result.minimumRequests,
            notes: result.notes,
            diagnostics: result.diagnostics,
          },
          null,
          2,
        ) + '\n',
      );
    return 0;
  } catch (e) {
    bar.end();
    // An output it cannot write (WriteError): one line, exit 2; with --format json, said on stdout too.
    if (json && e instanceof WriteError)
      ctx.stdout.write(
        JSON.stringify({ ok: false, error: { type: 'write_error', message: e.message, path: e.shown, reason: e.reason } }, null, 2) + '\n',
      );
    if (e instanceof UsageError) throw e;
    return reportFailure(ctx, e, json);
  }
}
