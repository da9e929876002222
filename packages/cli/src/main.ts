// Entry point of the setup-pack command: global flags, then the command from the table.
import { COMMANDS } from './commands/index.js';
import { givesOption, helpText, parseCommandArgs, suggest, type CommandSpec } from './lib/args.js';
import { processContext, type CommandContext, type ReadAhead } from './lib/context.js';
import { EXIT, InvalidPackInputError, UsageError } from './lib/errors.js';
import { cliVersion } from './lib/version.js';

function globalHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length)) + 2;
  return [
    'Usage: setup-pack <command> [options]',
    '',
    'Validate, build, format, diff, plan, install, export and simulate Setup Packs; serve them to editors (lsp).',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`),
    '',
    'Options:',
    '  -h, --help     Show help (also: setup-pack <command> --help)',
    '  -v, --version  Print the version',
    '',
    'Examples:',
    '  setup-pack validate "packs/**/*.json"',
    '  setup-pack build my-pack/ -o dist/my-pack.json',
    '  setup-pack diff old.json new.json',
    '  setup-pack install pack.json --url http://127.0.0.1:8787 --key $KEY',
    '  setup-pack simulate pack.json --event tag_added --tag hot',
    '',
    'Exit codes: 0 ok, 1 findings (errors, unformatted files), 2 usage error or unreadable file.',
    'Docs: docs/cli.md',
    '',
  ].join('\n');
}

/** `setup-pack --version`, parsed as a command that takes no argument (and the options every command takes). */
const VERSION_SPEC: CommandSpec = {
  name: '--version',
  summary: 'Print the version.',
  usage: '--version',
  options: {},
  examples: [],
  positionals: [0, 0],
};

/** `setup-pack help [command]` (or `--help [command]`): the name of a command (what follows it is that command's help's to refuse), and the options every command takes. */
const HELP_SPEC: CommandSpec = {
  name: 'help',
  summary: 'Show help.',
  usage: 'help [command]',
  options: {},
  examples: [],
  positionals: [0, Infinity],
};

/**
 * Runs the CLI with `argv` (without node and the script) and resolves to the exit code.
 * `readAhead`: files the binary began reading while this code loaded (bin/setup-pack.js).
 */
export async function main(argv: string[], ctx?: CommandContext, readAhead?: ReadAhead): Promise<number> {
  const colorFlag = argv.includes('--no-color') ? false : argv.includes('--color') ? true : undefined;
  const context = ctx ?? processContext(colorFlag, readAhead);
  const [first, ...rest] = argv;
  let commandName = '';
  // Exit code of a failure: 2, or 1 under an option that gives 2 another meaning (plan --detailed-exitcode).
  let failure: number = EXIT.usage;
  try {
    if (first === undefined) {
      // Bare `setup-pack` is a usage error: help goes to stderr so pipes stay clean.
      context.stderr.write(globalHelp());
      return EXIT.usage;
    }
    if (first === '--help' || first === '-h' || first === 'help') {
      // `help [command]`, `--help [command]`: an argument names the command whose help to show, and
      // that help is held to what it takes (nothing more), as --version is.
      const about = parseCommandArgs(HELP_SPEC, rest).positionals[0];
      if (about !== undefined) return main([about, '--help', ...rest.filter((a, i) => i !== rest.indexOf(about))], ctx);
      context.stdout.write(globalHelp());
      return EXIT.ok;
    }
    if (first === '--version' || first === '-v') {
      // Held to what it takes (nothing but the colour flags), as every command is: an argument
      // after it is a usage error, not left out without a word.
      parseCommandArgs(VERSION_SPEC, rest);
      context.stdout.write(`${cliVersion()}\n`);
      return EXIT.ok;
    }
    const entry = Object.prototype.hasOwnProperty.call(COMMANDS, first) ? COMMANDS[first] : undefined;
    if (!entry) {
      const hint = suggest(first, Object.keys(COMMANDS));
      throw new UsageError(
        first.startsWith('-')
          ? `unknown option '${first}'; run 'setup-pack --help'`
          : `unknown command '${first}'${hint ? `; did you mean '${hint}'?` : `; run 'setup-pack --help' for the list`}`,
      );
    }
    commandName = first;
    const command = await entry.load();
    if (command.spec.failuresExitOne && givesOption(rest, command.spec.failuresExitOne)) failure = EXIT.findings;
    const args = parseCommandArgs(command.spec, rest);
    if (args.values.help) {
      context.stdout.write(helpText(command.spec));
      return EXIT.ok;
    }
    return await command.run(context, args);
  } catch (e) {
    if (e instanceof UsageError) {
      context.stderr.write(`setup-pack${commandName ? ` ${commandName}` : ''}: ${e.message}\n`);
      return e instanceof InvalidPackInputError ? EXIT.findings : failure;
    }
    const err = e as Error;
    context.stderr.write(`setup-pack${commandName ? ` ${commandName}` : ''}: internal error: ${err?.stack ?? String(e)}\n`);
    return failure;
  }
}
