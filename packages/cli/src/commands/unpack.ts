// setup-pack unpack: split a pack file into a source folder (the inverse of build).
import { resolve } from 'node:path';
import { countItems, numbersNotKept, plural, printable } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { displayPath, notAFolder } from '../lib/files.js';
import { cannotRead, lostOnRewrite, notAPackReport, readPackFile } from '../lib/packfile.js';
import { formatPretty } from '../report/pretty.js';
import { cliVersion } from '../lib/version.js';
import { buildFromFiles, unpackToFiles, UnpackError } from '../source/layout.js';
import { isEmptyDir, writeTree } from '../source/tree.js';

export const spec: CommandSpec = {
  name: 'unpack',
  summary: 'Split a pack file into a source folder that diffs well in git.',
  usage: 'unpack [--force] <pack.json> <dir>',
  description:
    'The layout is described in docs/cli.md#source-folder. exportedAt is left out (build sets it). The pack need not be valid, but every item needs a unique string key, and every automation a document and nothing else beside its key; a pack file that says a property twice, or holds a number JSON cannot hold (1e400) or does not keep (12345678901234567890), is refused, since its files would not say the same.',
  positionals: [2, 2],
  options: {
    force: { type: 'boolean', description: 'Write into a folder that is not empty, replacing its pack source files.' },
  },
  examples: [
    ['setup-pack unpack buyer-lead.json buyer-lead/', 'Turn an exported pack into a source folder'],
    ['setup-pack unpack --force dist/pack.json src/pack', 'Refresh a source folder from a pack'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const [packArg, dirArg] = args.positionals;
  const abs = resolve(ctx.cwd, packArg);
  const dir = resolve(ctx.cwd, dirArg);
  const r = await readPackFile(abs, displayPath(abs, ctx.cwd));
  if (!r.ok) {
    if (r.unreadable) throw new UsageError(cannotRead(packArg, r.report));
    const { RULE_METADATA } = await import('@setup-pack/core');
    ctx.stderr.write(formatPretty([r.report], { cwd: ctx.cwd, rules: RULE_METADATA, toolVersion: cliVersion() }, ctx.colors('stderr')));
    return 1;
  }
  // No pack at all (`[]`): validate's finding, placed, as fmt and fix refuse it.
  const notPack = await notAPackReport(r, displayPath(abs, ctx.cwd));
  if (notPack) {
    const { RULE_METADATA } = await import('@setup-pack/core');
    ctx.stderr.write(formatPretty([notPack], { cwd: ctx.cwd, rules: RULE_METADATA, toolVersion: cliVersion() }, ctx.colors('stderr')));
    return 1;
  }
  // The source folder's files are written from the parsed pack, so a property written twice (the
  // first would be dropped) or a number JSON.parse does not read as written (1e400 would be written
  // as null, 1e-400 as 0: numbersNotKept) would not say what the pack says: nothing is written,
  // and each place is said.
  const lost = lostOnRewrite(
    [...r.findings, ...numbersNotKept(r.source)],
    (loss) => `unpack writes nothing: in the source folder, ${loss}`,
  );
  if (lost.length) {
    const { RULE_METADATA } = await import('@setup-pack/core');
    ctx.stderr.write(
      formatPretty(
        [{ path: displayPath(abs, ctx.cwd), text: r.source.text, diagnostics: lost }],
        { cwd: ctx.cwd, rules: RULE_METADATA, toolVersion: cliVersion() },
        ctx.colors('stderr'),
      ),
    );
    return 1;
  }
  const notFolder = notAFolder(dir, dirArg, ctx.cwd);
  if (notFolder) throw new UsageError(notFolder);
  const empty = await isEmptyDir(dir);
  if (empty === false && !args.values.force)
    throw new UsageError(`'${dirArg}' exists and is not empty; pass --force to replace its pack source files`);
  let files;
  try {
    files = unpackToFiles(r.value);
  } catch (e) {
    if (e instanceof UnpackError) {
      ctx.stderr.write(`setup-pack unpack: ${printable(e.message)}\n`); // it quotes the keys at fault
      return 1;
    }
    throw e;
  }
  // Self-check: building the files back gives the same pack (exportedAt aside).
  const { canonicalize } = await import('@setup-pack/core');
  const value = r.value as Record<string, unknown>;
  const back = buildFromFiles(files, { exportedAt: typeof value.exportedAt === 'string' ? value.exportedAt : '' }).pack;
  const expected = canonicalize({ ...value, exportedAt: typeof value.exportedAt === 'string' ? value.exportedAt : '' });
  if (JSON.stringify(back) !== JSON.stringify(expected))
    ctx.stderr.write(
      `setup-pack unpack: warning: building this folder will not give back exactly the same pack; please report it with the file\n`,
    );
  await writeTree(dir, dirArg, files);
  const items = countItems(value);
  ctx.stdout.write(`unpacked ${plural(items, 'item')} into ${displayPath(dir, ctx.cwd)}/ (${plural(files.size, 'file')})\n`);
  return 0;
}
