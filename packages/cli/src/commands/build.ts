// setup-pack build: compile a pack source folder into one pack file.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { plural } from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { displayPath } from '../lib/files.js';
import { writeFileSafely } from '../lib/write.js';
import { exportedAt } from '../lib/pack-input.js';
import { writeChunks } from '../report/stream.js';
import { chooseFormat, FORMATS, render } from '../report/index.js';
import { totals } from '../report/model.js';
import { cliVersion } from '../lib/version.js';
import { isSourceFile, readTree } from '../source/tree.js';
import { compileFolder } from '../source/compile.js';
import { BUILD_RULES } from '../source/layout.js';

export const spec: CommandSpec = {
  name: 'build',
  summary: 'Compile a pack source folder (see docs/cli.md#source-folder) into one pack file.',
  usage: 'build [options] <dir>',
  description:
    'Embeds assets as base64 with their sha256 and byteSize, writes the canonical key order, sets exportedAt (SOURCE_DATE_EPOCH or --exported-at for reproducible builds) and validates. On errors nothing is written and the diagnostics point into the source files.',
  positionals: [1, 1],
  options: {
    output: { type: 'string', short: 'o', path: true, value: '<file>', description: 'Where to write the pack (default: stdout).' },
    'exported-at': {
      type: 'string',
      value: '<timestamp>',
      description: 'exportedAt to set, an RFC 3339 timestamp (default: SOURCE_DATE_EPOCH, else now).',
    },
    format: {
      type: 'string',
      short: 'f',
      value: '<format>',
      choices: FORMATS,
      description: 'Format of the diagnostics, printed to stderr (default as validate).',
    },
  },
  examples: [
    ['setup-pack build my-pack -o dist/my-pack.json', 'Compile a folder'],
    [
      'SOURCE_DATE_EPOCH=$(git log -1 --format=%ct) setup-pack build my-pack -o my-pack.json',
      'Reproducible build stamped with the last commit time',
    ],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const [dirArg] = args.positionals;
  const dir = resolve(ctx.cwd, dirArg);
  const st = await stat(dir).catch(() => undefined);
  if (!st) throw new UsageError(`cannot read '${dirArg}': no such directory`);
  if (!st.isDirectory())
    throw new UsageError(`'${dirArg}' is not a directory (build compiles a source folder; to check a pack file use 'setup-pack validate')`);
  const { acceptsProperty, formatPack, RULE_METADATA } = await import('@setup-pack/core');
  const stamp = exportedAt(args.values['exported-at'], ctx.env, (s) => acceptsProperty('pack', 'exportedAt', s));
  const out = args.values.output as string | undefined;
  // The pack must not replace a file it is built from (the manifest, an automation's file).
  if (out && isSourceFile(dir, resolve(ctx.cwd, out)))
    throw new UsageError(`the output '${out}' is a file of the source folder '${dirArg}' it builds: write the pack elsewhere`);
  const tree = await readTree(dir);
  const result = await compileFolder(tree, { exportedAt: stamp, dir, display: (abs) => displayPath(abs, ctx.cwd) });
  const format = chooseFormat(args.values.format, ctx.env);
  if (result.reports.length) {
    const chunks = await render(
      format,
      result.reports,
      {
        cwd: ctx.cwd,
        rules: [...RULE_METADATA, ...BUILD_RULES],
        toolVersion: cliVersion(),
        workspaceRoot: ctx.env.GITHUB_WORKSPACE || undefined,
      },
      ctx.colors('stderr'),
    );
    await writeChunks(ctx.stderr, chunks);
  }
  if (!result.ok || !result.pack) {
    if (!result.reports.length) ctx.stderr.write('build failed\n');
    return 1;
  }
  const output = formatPack(result.pack);
  if (out) {
    const abs = resolve(ctx.cwd, out);
    await writeFileSafely(abs, out, output);
    const t = totals(result.reports);
    ctx.stderr.write(
      `built ${displayPath(abs, ctx.cwd)} (${(output.length / 1024).toFixed(1)} KiB${t.warnings ? `, ${plural(t.warnings, 'warning')}` : ''})\n`,
    );
  } else ctx.stdout.write(output);
  return 0;
}
