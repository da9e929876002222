// Option parsing on node:util parseArgs, with help text generated from the same table and
// one-line usage errors (with a "did you mean") instead of parseArgs' long messages.
import { parseArgs } from 'node:util';
import { UsageError } from './errors.js';

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** Placeholder in help, e.g. "<n>". */
  value?: string;
  description: string;
  /** Allowed values of a string option. */
  choices?: readonly string[];
  /** The value is a path (a file or folder to read or write): an empty one names none, and is refused. */
  path?: boolean;
  /**
   * The environment variable the option stands in for when it is left out, and what its value is.
   * An empty value (`--url ""`, `--url "$UNSET"`) is refused as such: it neither falls back to the
   * variable, which the user meant to override, nor gets reported as missing.
   */
  env?: { name: string; what: string };
}

export type Options = Record<string, OptionSpec>;

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  options: Options;
  examples: readonly (readonly [command: string, what: string])[];
  /** The help's exit-code line, when the command's codes differ from the usual 0/1/2. */
  exitCodes?: string;
  /** Where the command is documented, when not in docs/cli.md (the workspace commands: docs/install.md). */
  docs?: string;
  /**
   * The positional arguments are names or ids the command checks itself (unlock's packId and
   * holder), not paths: an empty one is then the command's to refuse, in its own words.
   */
  namesNotPaths?: boolean;
  /** Minimum and maximum positional arguments (max Infinity for any number). */
  positionals: readonly [min: number, max: number];
  /**
   * A boolean option that gives exit code 2 a meaning of its own (plan's --detailed-exitcode:
   * changes). When it is given, every failure — a usage error, an unreadable file, an internal
   * error — exits 1 instead of 2, so a script never reads a failure as that meaning. Looked for in
   * the arguments before they are parsed, so an argument parsing refuses exits 1 too.
   */
  failuresExitOne?: string;
}

/** Options every command takes. */
export const COMMON_OPTIONS: Options = {
  help: { type: 'boolean', short: 'h', description: 'Show this help.' },
  color: {
    type: 'boolean',
    description: 'Force colour on (default: on for a terminal whose TERM is not dumb; a non-empty NO_COLOR turns it off, FORCE_COLOR on).',
  },
  'no-color': { type: 'boolean', description: 'Turn colour off.' },
};

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** The candidate closest to `word`, when it is close enough to be a likely typo. */
export function suggest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let score = Infinity;
  for (const c of candidates) {
    const d = levenshtein(word, c);
    if (d < score) [best, score] = [c, d];
  }
  return best !== undefined && score <= (word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3))) ? best : undefined;
}

/**
 * A string option takes the next argument as its value even when that starts with a dash (`--name
 * "-Dash name"`, `--max-warnings -1`, `-o -report.json`), as getopt and most CLIs do for an option
 * that requires a value: parseArgs' strict mode refuses such a value as ambiguous, which was
 * reported as "takes no value". Each such pair is handed on as `--option=value`, which parseArgs
 * reads as meant; an option last in the line still has no value. Nothing after `--` is touched.
 */
function joinDashValues(argv: readonly string[], options: Options): string[] {
  const byShort = new Map(Object.entries(options).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const next = argv[i + 1];
    if (next === undefined || !next.startsWith('-')) {
      out.push(a);
      continue;
    }
    if (a.startsWith('--') && !a.includes('=') && options[a.slice(2)]?.type === 'string') {
      out.push(`${a}=${next}`);
      i++;
      continue;
    }
    if (/^-[^-]/.test(a)) {
      // A group of short options (`-qo`): booleans, then at most one that takes a value; here the
      // value is the next argument only when that option ends the group.
      let j = 1;
      while (j < a.length && options[byShort.get(a[j]) ?? '']?.type === 'boolean') j++;
      const name = byShort.get(a[j]);
      if (j === a.length - 1 && name !== undefined && options[name].type === 'string') {
        if (j > 1) out.push(a.slice(0, j));
        out.push(`--${name}=${next}`);
        i++;
        continue;
      }
    }
    out.push(a);
  }
  return out;
}

export function parseCommandArgs(spec: CommandSpec, argv: string[]): Parsed {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  const config: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries(options))
    config[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  let parsed;
  try {
    parsed = parseArgs({ args: joinDashValues(argv, options), options: config, allowPositionals: true, strict: true });
  } catch (e) {
    const err = e as Error & { code?: string };
    const name = /'(-[^']*)'/.exec(err.message)?.[1];
    if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && name) {
      const bare = name.replace(/^-+/, '');
      const hint = suggest(bare, Object.keys(options));
      throw new UsageError(`unknown option '${name}'${hint ? `; did you mean '--${hint}'?` : ''}`);
    }
    if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && name) {
      // parseArgs names an option with a short form as '-o, --output-file <value>': say the long one.
      const long = name.split(/[ ,]+/).find((t) => t.startsWith('--')) ?? name.split(/[ ,]/)[0];
      throw new UsageError(`option '${long}' ${/argument missing/.test(err.message) ? 'needs a value' : 'takes no value'}`);
    }
    throw new UsageError(err.message.split('\n')[0]);
  }
  const values = parsed.values as Parsed['values'];
  for (const [name, o] of Object.entries(spec.options)) {
    const v = values[name];
    if (o.choices && typeof v === 'string' && !o.choices.includes(v)) {
      const hint = suggest(v, o.choices);
      throw new UsageError(`--${name} must be one of ${o.choices.join(', ')}, not '${v}'${hint ? `; did you mean '${hint}'?` : ''}`);
    }
  }
  // An empty path names nothing: not the working directory (`fmt "$FILE"` with FILE unset would
  // rewrite every pack below it), nor stdout for an empty -o.
  for (const [name, o] of Object.entries(spec.options)) {
    if (o.path && values[name] === '') throw new UsageError(`option '--${name}' needs a value, not an empty one`);
    if (o.env && values[name] === '')
      throw new UsageError(`option '--${name}' is empty: give ${o.env.what}, or leave --${name} out to use ${o.env.name}`);
  }
  if (!spec.namesNotPaths && parsed.positionals.includes(''))
    throw new UsageError(`unexpected empty argument ''; usage: setup-pack ${spec.usage}`);
  if (values.help) {
    // The help, like --version, takes nothing but the colour flags: an argument or an option beside
    // it is a usage error, not left out without a word.
    const usage = `usage: setup-pack ${spec.name} --help`;
    if (parsed.positionals.length) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'; ${usage}`);
    const option = Object.keys(spec.options).find((name) => values[name] !== undefined);
    if (option !== undefined) throw new UsageError(`option '--${option}' is not taken with --help; ${usage}`);
    return { values, positionals: parsed.positionals };
  }
  const [min, max] = spec.positionals;
  const n = parsed.positionals.length;
  if (n < min) throw new UsageError(`missing ${min - n === 1 && max === min ? 'argument' : 'arguments'}; usage: setup-pack ${spec.usage}`);
  if (n > max) throw new UsageError(`unexpected argument '${parsed.positionals[max]}'; usage: setup-pack ${spec.usage}`);
  return { values, positionals: parsed.positionals };
}

/** Whether `argv` (a command's arguments) gives the long option `name`, before any `--`. */
export function givesOption(argv: readonly string[], name: string): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === `--${name}` || a.startsWith(`--${name}=`)) return true;
  }
  return false;
}

/** Parses a non-negative integer option value. */
export function intOption(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw)) throw new UsageError(`--${name} needs a whole number, not '${String(raw)}'`);
  return Number(raw);
}

/** Wraps prose at `width` columns. */
function wrap(text: string, width = 96, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(indent + line);
  return lines;
}

export function helpText(spec: CommandSpec): string {
  const options = { ...spec.options, ...COMMON_OPTIONS };
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.type === 'string' ? ` ${o.value ?? '<value>'}` : ''}`;
    const choices = o.choices ? ` Choices: ${o.choices.join(', ')}.` : '';
    const fromEnv = o.env ? ` Default: $${o.env.name}.` : '';
    return [flag, o.description + fromEnv + choices] as const;
  });
  const width = Math.max(...rows.map(([f]) => f.length)) + 2;
  const lines = [
    `Usage: setup-pack ${spec.usage}`,
    '',
    ...wrap(spec.summary),
    ...(spec.description ? ['', ...wrap(spec.description)] : []),
    '',
    'Options:',
    ...rows.map(([f, d]) => `  ${f.padEnd(width)}${d}`),
    '',
    'Examples:',
    ...spec.examples.flatMap(([cmd, what]) => [`  # ${what}`, `  ${cmd}`]),
    '',
    `${spec.exitCodes ?? 'Exit codes: 0 ok, 1 findings, 2 usage error or unreadable input.'} Docs: ${spec.docs ?? 'docs/cli.md'}`,
    '',
  ];
  return lines.join('\n');
}
