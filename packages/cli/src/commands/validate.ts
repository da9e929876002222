// setup-pack validate: check many pack files concurrently and report in the chosen format.
import { resolve } from 'node:path';
import { intOption, suggest, type CommandSpec, type Parsed } from '../lib/args.js';
import { UsageError } from '../lib/errors.js';
import type { CommandContext } from '../lib/context.js';
import { displayPath, expandEntries, mapLimit, readStdin, readText, type InputEntry } from '../lib/files.js';
import { realLocation, writeFileSafely } from '../lib/write.js';
import { chooseFormat, FORMATS, render } from '../report/index.js';
import { exitCodeOf, totals, type FileReport } from '../report/model.js';
import { cliVersion } from '../lib/version.js';
import { makeColors } from '../lib/color.js';
import { writeChunks } from '../report/stream.js';
import type { Diagnostic, ValidateResult } from '@setup-pack/core';

export const spec: CommandSpec = {
  name: 'validate',
  summary: 'Check pack files and report every problem with its position.',
  usage: 'validate [options] <files, directories or globs...>  (or --stdin, or -)',
  description:
    'Directories are searched for *.json (node_modules skipped); a pack source folder (see build), given or reached through a file of it or a glob matching its files, is compiled in memory and checked once, with positions in its files. Quote globs so the shell does not expand them.',
  positionals: [0, Infinity],
  options: {
    format: {
      type: 'string',
      short: 'f',
      value: '<format>',
      choices: FORMATS,
      description: 'Output format (default: github when GITHUB_ACTIONS=true, else pretty).',
    },
    'max-warnings': { type: 'string', value: '<n>', description: 'Exit 1 when there are more than n warnings.' },
    quiet: { type: 'boolean', short: 'q', description: 'Report errors only (warnings still count for --max-warnings).' },
    expand: {
      type: 'boolean',
      description: 'Pretty output: print every finding instead of folding repeats of one code and message into one entry with a count.',
    },
    disable: { type: 'string', multiple: true, value: '<code>', description: 'Skip a rule by its code (repeatable).' },
    ignore: {
      type: 'string',
      multiple: true,
      value: '<glob>',
      description:
        'Skip files matching a glob relative to the working directory (repeatable), whether found in a directory, matched by a glob or named.',
    },
    'output-file': {
      type: 'string',
      short: 'o',
      path: true,
      value: '<file>',
      description: 'Write the report to a file instead of stdout.',
    },
    stdin: { type: 'boolean', description: 'Read one pack from stdin (for editors and pipes); `-` as the one file does the same.' },
    'stdin-filename': {
      type: 'string',
      value: '<name>',
      description: "Name to report for stdin (default <stdin>); only with --stdin or '-'.",
    },
  },
  examples: [
    ['setup-pack validate pack.json', 'Check one pack'],
    ['setup-pack validate my-pack/', 'Check a pack source folder without building it'],
    ['setup-pack validate "packs/**/*.json" --max-warnings 0', 'Check every pack, failing on warnings too'],
    ['setup-pack validate packs/ --format sarif -o setup-pack.sarif', 'Write SARIF for GitHub code scanning'],
    ['setup-pack validate pack.json --format json | jq ".summary"', 'Machine-readable output'],
    ['curl -s https://example.com/pack.json | setup-pack validate --stdin', 'Check a pack from a pipe'],
  ],
};

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const maxWarnings = intOption('max-warnings', args.values['max-warnings']);
  const format = chooseFormat(args.values.format, ctx.env);
  // `-` is stdin, as for most commands that read files; alone, as --stdin reads one pack.
  const dash = args.positionals.includes('-');
  if (dash && args.positionals.length > 1) throw new UsageError("'-' reads one pack from stdin: give it alone, or files");
  const stdin = Boolean(args.values.stdin) || dash;
  const files = dash ? [] : args.positionals;
  if (!stdin && !files.length) throw new UsageError(`missing argument; usage: setup-pack ${spec.usage}`);
  if (stdin && files.length) throw new UsageError('give files or --stdin, not both');
  // A name for stdin on a run that reads files would be dropped without a word.
  if (!stdin && args.values['stdin-filename'] !== undefined)
    throw new UsageError("--stdin-filename names what --stdin (or '-') reads: give it with one of them");
  const entries = stdin
    ? []
    : await expandEntries(files, ctx.cwd, (args.values.ignore as string[] | undefined) ?? [], { sourceFolders: true, wholeFolders: true });
  const outFile = args.values['output-file'] as string | undefined;
  if (outFile) await refuseInputAsReport(ctx, outFile, entries);
  // The binary read ahead every large file named (bin/setup-pack.js): those that are no input (an
  // option's value, a file standing for its source folder) are let go.
  if (ctx.readAhead?.size) {
    const inputs = new Set(entries.map((e) => e.abs));
    for (const abs of ctx.readAhead.keys()) if (!inputs.has(abs)) ctx.readAhead.delete(abs);
  }
  const [{ validatePack, placeFindings, RULE_METADATA }, { nodeHasher }] = await Promise.all([
    import('@setup-pack/core'),
    import('../lib/hasher.js'),
  ]);
  const disableRules = (args.values.disable as string[] | undefined) ?? [];
  const codes = RULE_METADATA.map((r) => r.code);
  for (const code of disableRules) {
    if (codes.includes(code)) continue;
    const hint = suggest(code, codes);
    throw new UsageError(`--disable: no rule '${code}'${hint ? `; did you mean '${hint}'?` : ''} (codes are listed in docs/rules.md)`);
  }
  // Pretty output and GitHub annotations print a few findings of many (repeats folded, annotations
  // capped): findings come unplaced, in document order, and each format places what it prints.
  const place = !(format === 'pretty' || format === 'github') || Boolean(args.values.expand);
  const placer = (result: ValidateResult) => (place ? undefined : (findings: readonly Diagnostic[]) => placeFindings(result, findings));
  const perEntry = await mapLimit(entries, 8, async (entry): Promise<(FileReport & { value?: unknown })[]> => {
    const path = displayPath(entry.abs, ctx.cwd);
    if (entry.type === 'source-folder') {
      // A source folder is compiled in memory and checked like `build`, positions in its files.
      const [{ readTree }, { compileFolder }] = await Promise.all([import('../source/tree.js'), import('../source/compile.js')]);
      const compiled = await compileFolder(await readTree(entry.abs), {
        exportedAt: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
        dir: entry.abs,
        display: (abs) => displayPath(abs, ctx.cwd),
        disableRules,
      });
      return compiled.reports.length ? compiled.reports : [{ path: `${path}/`, diagnostics: [] }];
    }
    const read = await readText(entry.abs, ctx.readAhead, entry.notAFile);
    if ('error' in read) return [{ path, diagnostics: [], readError: read.error }];
    const result = validatePack(read.text, { hashBase64: nodeHasher, disableRules, place });
    // Text and value are kept only for code frames and fingerprints, so clean files free them.
    // The line index is built by the formats that show code frames, not here.
    if (!result.diagnostics.length) return [{ path, diagnostics: [] }];
    return [{ path, text: result.source?.text ?? read.text, diagnostics: result.diagnostics, value: result.value, place: placer(result) }];
  });
  const reports = perEntry.flat();
  if (stdin) {
    const name = typeof args.values['stdin-filename'] === 'string' ? args.values['stdin-filename'] : '<stdin>';
    const read = await readStdin();
    if ('error' in read) reports.push({ path: name, diagnostics: [], readError: read.error });
    else {
      const result = validatePack(read.text, { hashBase64: nodeHasher, disableRules, place });
      reports.push({
        path: name,
        text: result.source?.text ?? read.text,
        diagnostics: result.diagnostics,
        value: result.value,
        place: placer(result),
      });
    }
  }
  const { BUILD_RULES } = await import('../source/layout.js');
  const options = {
    cwd: ctx.cwd,
    rules: [...RULE_METADATA, ...BUILD_RULES],
    toolVersion: cliVersion(),
    maxWarnings,
    quiet: Boolean(args.values.quiet),
    expand: Boolean(args.values.expand),
    workspaceRoot: ctx.env.GITHUB_WORKSPACE || undefined,
  };
  if (outFile) {
    // A report file never carries colour codes.
    const chunks = await render(format, reports, options, makeColors(false));
    await writeFileSafely(resolve(ctx.cwd, outFile), outFile, (out) => writeChunks(out, chunks), { createFolders: false });
    ctx.stderr.write(`${totals(reports).errors ? '✖' : '✔'} report written to ${outFile}\n`);
  } else await writeChunks(ctx.stdout, await render(format, reports, options, ctx.colors('stdout')));
  return exitCodeOf(totals(reports), maxWarnings);
}

/**
 * A report file must not replace what it reports on: a file checked (through a link too), or a file
 * a source folder checked is built from.
 */
async function refuseInputAsReport(ctx: CommandContext, outFile: string, entries: readonly InputEntry[]): Promise<void> {
  const abs = resolve(ctx.cwd, outFile);
  const real = realLocation(abs);
  for (const e of entries) {
    const shown = displayPath(e.abs, ctx.cwd);
    if (e.type === 'file' && realLocation(e.abs) === real)
      throw new UsageError(`the report file '${outFile}' is the input '${shown}': write the report elsewhere`);
    if (e.type === 'source-folder' && (await import('../source/tree.js')).isSourceFile(e.abs, abs))
      throw new UsageError(`the report file '${outFile}' is a file of the source folder '${shown}/' it checks: write the report elsewhere`);
  }
}
