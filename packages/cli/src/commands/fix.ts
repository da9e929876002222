// setup-pack fix: core's mechanical repairs (fixPack), applied to pack files.
import { join } from 'node:path';
import { count, numbersNotKept, plural, printable, sortDiagnostics, type Diagnostic } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { displayPath } from '../lib/files.js';
import type { FileReport } from '../report/model.js';
import { leftAsItIs, lostOnRewrite } from '../lib/packfile.js';
import { forEachPackFile, packsToRewrite, reportUnreadable, rewriteExitCode } from '../lib/rewrite.js';
import { WriteError } from '../lib/errors.js';
import { writeFiles, writeFileSafely } from '../lib/write.js';

export const spec: CommandSpec = {
  name: 'fix',
  summary:
    "Recompute asset sha256/byteSize from their data, set won/lost stage probabilities to 100/0, and move an edge's sourceHandle to handle.",
  usage: 'fix [--dry-run] <files, directories or globs...>',
  description:
    'Writes the fixed pack in the canonical form (as fmt); in a source folder (given, or reached through a file of it or a glob), the files holding what changed. Assets whose data is not valid base64 are left alone (validate reports them), and so is an edge with both sourceHandle and handle (which one is meant is yours to say). A moved handle is checked by validate as any other.',
  positionals: [1, Infinity],
  options: {
    'dry-run': { type: 'boolean', short: 'n', description: 'Print what would change; write nothing (exit 1 if anything would).' },
  },
  examples: [
    ['setup-pack fix pack.json', 'Repair a pack in place'],
    ['setup-pack fix --dry-run pack.json', 'See what fix would change'],
    ['setup-pack fix my-pack/', "Repair a source folder's files"],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const { files, folders } = await packsToRewrite(ctx, args.positionals);
  const [{ fixPack, formatPack, RULE_METADATA }, { nodeHasher }] = await Promise.all([
    import('@setup-pack/core'),
    import('../lib/hasher.js'),
  ]);
  const dry = Boolean(args.values['dry-run']);
  let touched = 0;
  let left = 0;
  const failed = await forEachPackFile(ctx, files, async ({ abs, path, read }) => {
    const { value } = read;
    const changes = fixPack(value, nodeHasher);
    if (!changes.length) return;
    // The fixed pack is written whole: a file it would not say again (a property written twice,
    // a number JSON cannot hold or does not keep) is left as it is, and why is said; as fmt does.
    const lost = lostOnRewrite([...read.findings, ...numbersNotKept(read.source)], leftAsItIs('fix'));
    if (lost.length) {
      left++;
      return { path, text: read.source.text, diagnostics: lost };
    }
    // Listed once written (or, with --dry-run, as they would be): a file that cannot be written is
    // kept as it was, and said so, and fix goes on to the next.
    if (!dry) {
      try {
        // Only over what was read: a file changed since (an editor saved it) is left as it is now.
        await writeFileSafely(abs, path, formatPack(value), { readAs: read.text });
      } catch (e) {
        if (!(e instanceof WriteError)) throw e;
        return { path, diagnostics: [], writeError: `cannot write the file: ${e.reason}` };
      }
    }
    for (const ch of changes) ctx.stdout.write(`${path}: ${printable(ch)}\n`);
    touched++;
  });
  // The files fix could not take as packs (unreadable, not JSON, no pack at all: `[]`), said above:
  // not files with "nothing to fix". Those left as they are are counted apart.
  const unread = failed.filter((f) => !f.writeError).length - left;
  let unfixed = 0;
  let unbuilt = 0;
  for (const abs of folders) {
    const r = await fixFolder(ctx, abs, dry);
    if (typeof r === 'object') failed.push(r);
    else if (r === 'fixed') touched++;
    else if (r === 'unfixed') {
      unfixed++;
      unbuilt++;
    } else if (r === 'left') {
      left++;
      unfixed++;
    }
  }
  reportUnreadable(ctx, failed, RULE_METADATA);
  // A file or folder fix would have changed but could not write is not one with "nothing to fix".
  const unwritten = failed.filter((f) => f.writeError).length;
  const what = [
    files.length || !folders.length ? plural(files.length, 'file') : '',
    folders.length ? plural(folders.length, 'source folder') : '',
  ]
    .filter(Boolean)
    .join(' and ');
  const leftAlone = left
    ? `; ${count(left)} left as ${left === 1 ? 'it is' : 'they are'}, since written again ${left === 1 ? 'it' : 'they'} would lose what ${left === 1 ? 'it says' : 'they say'}`
    : '';
  const notWritten = unwritten ? `; ${count(unwritten)} could not be written` : '';
  const notRead = unread ? `; ${count(unread)} could not be read as ${unread === 1 ? 'a pack' : 'packs'}` : '';
  // A folder that does not build was not looked at: not "nothing to fix" (stderr said why).
  const notBuilt = unbuilt ? `; ${count(unbuilt)} ${unbuilt === 1 ? 'does' : 'do'} not build` : '';
  ctx.stdout.write(
    touched
      ? `${dry ? 'would fix' : 'fixed'} ${count(touched)} of ${what}${notRead}${leftAlone}${notWritten}${notBuilt}\n`
      : left || unwritten || unbuilt || unread
        ? `nothing fixed in ${what}${notRead}${leftAlone}${notWritten}${notBuilt}\n`
        : `nothing to fix in ${what}\n`,
  );
  const code = rewriteExitCode(failed, dry && touched > 0);
  return code || (unfixed ? 1 : 0);
}

/**
 * A source folder: its files built into a pack, core's fixes applied to that, and each source file
 * holding an item the fixes changed written again as unpack writes it (in canonical form, as fix
 * writes a pack file); an inline asset's hash is set in assets.json where it stands. A folder that
 * does not build is left alone (build lists why). The files are written together (lib/write.ts):
 * when one cannot be written, none is, and the report says which.
 */
async function fixFolder(ctx: CommandContext, abs: string, dry: boolean): Promise<'fixed' | 'clean' | 'unfixed' | 'left' | FileReport> {
  const [
    { fixedPack, ITEM_KINDS, RULE_METADATA, printable: p },
    { nodeHasher },
    { readTree },
    { buildTree },
    { unpackToFiles, sourceFileText, ASSETS_INDEX },
  ] = await Promise.all([
    import('@setup-pack/core'),
    import('../lib/hasher.js'),
    import('../source/tree.js'),
    import('../source/compile.js'),
    import('../source/layout.js'),
  ]);
  const path = `${displayPath(abs, ctx.cwd)}/`;
  const tree = await readTree(abs);
  const built = buildTree(tree, '');
  // A number JSON cannot hold is an error of the pack, not of the build: the folder is fixed
  // unless a file fix would write holds one (below).
  const errors = built.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'json/number-range').length;
  if (!built.pack || errors) {
    ctx.stderr.write(
      `${path}: not fixed: the folder does not build (${plural(errors, 'error')}; setup-pack build ${path} lists ${errors === 1 ? 'it' : 'them'})\n`,
    );
    return 'unfixed';
  }
  const pack = built.pack;
  const { pack: fixed, changes } = fixedPack(pack, nodeHasher);
  if (!changes.length) return 'clean';
  // fixedPack shares every item it does not change, so the changed ones are those not shared.
  const writes = new Map<string, string | Uint8Array>();
  let unpacked: Map<string, Uint8Array> | undefined;
  let assetsIndex: unknown[] | undefined;
  for (const kind of ITEM_KINDS) {
    const before = pack[kind];
    const after = fixed[kind];
    if (!Array.isArray(before) || !Array.isArray(after) || before === after) continue;
    for (let i = 0; i < after.length; i++) {
      if (after[i] === before[i]) continue;
      if (kind === 'assets') {
        // Only an asset written inline in assets.json can need its hash: build hashes the files.
        const at = built.locate(`/assets/${i}/sha256`).pointer?.split('/')[1];
        assetsIndex ??= JSON.parse(built.sources.get(ASSETS_INDEX)!.text) as unknown[];
        const entry = assetsIndex[Number(at)] as Record<string, unknown>;
        const a = after[i] as Record<string, unknown>;
        entry.sha256 = a.sha256;
        entry.byteSize = a.byteSize;
        continue;
      }
      // An item of its own file (automations, pipelines): that file as unpack writes it.
      const file = built.locate(kind === 'automations' ? `/${kind}/${i}/document` : `/${kind}/${i}`).file;
      unpacked ??= unpackToFiles(fixed);
      const bytes = unpacked.get(file);
      if (!bytes) throw new Error(`fix: no file ${file} for ${kind}[${i}] of ${path}`);
      writes.set(file, bytes);
    }
  }
  // In canonical form, as unpack writes it (and fmt --check expects): the two fields go to their
  // places. Once, after every entry is set: the file holds every inline asset's data.
  if (assetsIndex) writes.set(ASSETS_INDEX, sourceFileText('assets', assetsIndex));
  // Each file is written whole, from the built pack: one that would not say again what it says
  // (a property written twice, a number JSON cannot hold or does not keep) leaves the folder as it
  // is, as fmt does.
  // One pass over the build's findings, each kept under its file: not a filter of all of them per
  // file written.
  const lostIn = new Map<string, Diagnostic[]>();
  for (const { file, ...d } of lostOnRewrite(built.diagnostics, leftAsItIs('fix'))) {
    if (!writes.has(file)) continue;
    const list = lostIn.get(file);
    if (list) list.push(d);
    else lostIn.set(file, [d]);
  }
  // And the numbers the build does not tell (a fraction a float does not keep), in the files fix writes.
  for (const file of writes.keys()) {
    const source = built.sources.get(file);
    const lost = source && lostOnRewrite(numbersNotKept(source), leftAsItIs('fix'));
    if (lost?.length) lostIn.set(file, sortDiagnostics([...(lostIn.get(file) ?? []), ...lost]));
  }
  const refused: FileReport[] = [];
  for (const file of writes.keys()) {
    const source = built.sources.get(file);
    const lost = lostIn.get(file);
    if (source && lost) refused.push({ path: displayPath(join(abs, ...file.split('/')), ctx.cwd), text: source.text, diagnostics: lost });
  }
  if (refused.length) {
    reportUnreadable(ctx, refused, RULE_METADATA);
    const files = refused.map((r) => printable(r.path));
    ctx.stderr.write(
      `${path}: not fixed: written again, ${files.join(', ')} would lose what ${files.length === 1 ? 'it says' : 'they say'} (above); the folder is left as it is\n`,
    );
    return 'left';
  }
  if (!dry) {
    const shown = (file: string) => displayPath(join(abs, ...file.split('/')), ctx.cwd);
    try {
      // Each over what was read: when one changed since (an editor saved it), none is written.
      await writeFiles(
        [...writes].map(([file, content]) => ({
          abs: join(abs, ...file.split('/')),
          shown: shown(file),
          content,
          readAs: tree.files.get(file),
        })),
      );
    } catch (e) {
      if (!(e instanceof WriteError)) throw e;
      return { path: e.shown, diagnostics: [], writeError: `cannot write the file: ${e.reason} (the folder ${path} is left as it is)` };
    }
  }
  for (const ch of changes) ctx.stdout.write(`${path}: ${p(ch)}\n`);
  return 'fixed';
}
