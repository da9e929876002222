// setup-pack diff: what changed between two releases of a pack, by item key.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  count,
  describeValueChange,
  filterPlace,
  printable as p,
  type FilterChange,
  type PackDiff,
  type Pack,
  type ValueChange,
} from '@setup-pack/core';
import type { CommandSpec, Parsed } from '../lib/args.js';
import type { CommandContext } from '../lib/context.js';
import type { Colors } from '../lib/color.js';
import { displayPath } from '../lib/files.js';
import { cannotRead } from '../lib/packfile.js';
import { exportedAt, readPackInput, type PackInput } from '../lib/pack-input.js';
import { BUILD_RULES } from '../source/layout.js';
import { formatPretty } from '../report/pretty.js';
import { cliVersion } from '../lib/version.js';
import { UsageError } from '../lib/errors.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export const spec: CommandSpec = {
  name: 'diff',
  summary: 'Show what changed between two releases of a pack.',
  usage: 'diff [options] <old.json | folder> <new.json | folder>',
  description:
    "Each side is a pack file or a source folder, built in memory as build builds it (with the other side's exportedAt, which a folder does not hold). Items are matched by key for every kind. For automations, nodes and edges are matched by id; moving a node is not a change. Each changed field is said with its old and new value (a template's subject, a block's config value, a stage's probability, the pack's name); a text of several lines, such as a template's body, by the lines that changed; an automation's references by those added, removed and changed. For smart lists, the conditions and groups of the filters are named by their place in the tree, in words before and after; a reorder of an and/or group's children is said as one. Also says whether the version goes up and whether the packId matches (same packId: the new release upgrades installs of the old).",
  positionals: [2, 2],
  exitCodes:
    'Exit codes: 0 ok (with --exit-code: the packs are the same), 1 the packs differ (with --exit-code only), 2 usage error, a file that cannot be read or is not valid JSON, or a source folder that does not build.',
  options: {
    format: { type: 'string', short: 'f', value: '<format>', choices: ['pretty', 'json'], description: 'Output format (default pretty).' },
    'exit-code': { type: 'boolean', description: 'Exit 1 when the packs differ (like git diff --exit-code).' },
  },
  examples: [
    ['setup-pack diff releases/1.0.0.json releases/1.1.0.json', 'Review a release'],
    ['setup-pack diff old.json new.json --format json | jq ".items[] | select(.change==\\"removed\\")"', 'List removed items'],
  ],
};

const KIND_LABEL: Record<string, string> = {
  automations: 'Automations',
  smartLists: 'Smart lists',
  messageTemplates: 'Message templates',
  pipelines: 'Pipelines',
  resources: 'Resources',
  assets: 'Assets',
};

const sign = (c: Colors, ch: string) => (ch === 'added' ? c.green('+') : ch === 'removed' ? c.red('-') : c.yellow('~'));

/** One change in a filter tree (a smart list's filters, a control.if block's conditions): its place, and the node in words. */
function filterLine(f: FilterChange, c: Colors): string {
  const head = `${sign(c, f.change)} ${f.node === 'other' ? 'node' : f.node} ${filterPlace(f.path)}`;
  if (f.change === 'reordered') return `${head}: reordered, the same filter`;
  if (f.change === 'changed')
    return `${head}${f.fields?.length ? c.dim(` (${p(f.fields.join(', '))})`) : ''}: ${p(f.before ?? '')} → ${p(f.after ?? '')}`;
  return `${head}: ${p((f.change === 'added' ? f.after : f.before) ?? '')}`;
}

/** A field's old and new value in core's words (`subject: "Hi" → "Hello"`), as one line below what it belongs to. */
function valueLine(v: ValueChange, indent: string, c: Colors, prefix = ''): string {
  return `${indent}${c.yellow('~')} ${p(describeValueChange({ ...v, field: `${prefix}${v.field}` }))}`;
}

/** The fields that have no value line of their own (a control.if block's config.conditions, said as filters; a filter document's version). */
const unsaid = (fields: readonly string[], values: readonly ValueChange[] | undefined) =>
  fields.filter((f) => !values?.some((v) => v.field === f));

/**
 * The diff as a person reads it; every key, name, id and field of the packs goes through printable
 * (as p). A changed field is said with its old and new value on a line of its own (core's
 * describeValueChange); a field said in detail below (filters, stages, nodes) is named.
 */
export function formatDiff(d: PackDiff, c: Colors): string {
  const out: string[] = [];
  const signOf = (ch: string) => sign(c, ch);
  out.push(
    `packId:  ${d.packIdMatches ? c.green('matches') : c.red(c.bold('differs: the new pack installs separately instead of upgrading the old one'))}`,
  );
  const vc =
    d.versionChange === 'up'
      ? c.green('up')
      : d.versionChange === 'same'
        ? c.yellow('same — bump it for a new release')
        : d.versionChange === 'down'
          ? c.red('down')
          : c.yellow('not comparable as semver');
  out.push(`version: ${p(d.oldVersion || '(none)')} → ${p(d.newVersion || '(none)')} (${vc})`);
  // packId and version have their own lines above.
  const own = (f: string) => f !== 'packId' && f !== 'version';
  const fields = d.fields.filter(own);
  if (fields.length) {
    out.push(`fields:  ${p(fields.join(', '))}`);
    for (const v of d.values.filter((x) => own(x.field))) out.push(valueLine(v, '  ', c));
  }
  let lastKind = '';
  for (const item of d.items) {
    if (item.kind !== lastKind) {
      out.push('', c.bold(KIND_LABEL[item.kind] ?? item.kind));
      lastKind = item.kind;
    }
    const name = item.name !== undefined && item.name !== item.key ? ` ${c.dim(p(JSON.stringify(item.name)))}` : '';
    const detailed = item.automation || item.stages || item.stageOrder || item.filters;
    const named = item.change === 'changed' && !detailed ? unsaid(item.fields ?? [], item.values) : [];
    out.push(`  ${signOf(item.change)} ${p(item.key)}${name}${named.length ? c.dim(` (${p(named.join(', '))})`) : ''}`);
    for (const v of item.values ?? []) out.push(valueLine(v, '      ', c));
    if (item.stages || item.stageOrder) {
      const other = unsaid(
        (item.fields ?? []).filter((f) => f !== 'stages'),
        item.values,
      );
      if (other.length) out.push(`      ${c.yellow('~')} ${p(other.join(', '))}`);
      for (const st of item.stages ?? []) {
        const stageName = st.name !== undefined && st.name !== st.key ? ` ${c.dim(p(JSON.stringify(st.name)))}` : '';
        const stageFields = unsaid(st.fields ?? [], st.values);
        out.push(`      ${signOf(st.change)} stage ${p(st.key)}${stageName}${stageFields.length ? `: ${p(stageFields.join(', '))}` : ''}`);
        for (const v of st.values ?? []) out.push(valueLine(v, '          ', c));
      }
      if (item.stageOrder) out.push(`      ${c.yellow('~')} stage order: ${p(item.stageOrder.join(', '))}`);
    }
    if (item.filters) {
      const other = [
        ...unsaid(
          (item.fields ?? []).filter((f) => f !== 'filters'),
          item.values,
        ),
        ...item.filters.fields.map((f) => `filters.${f}`),
      ];
      if (other.length) out.push(`      ${c.yellow('~')} ${p(other.join(', '))}`);
      for (const f of item.filters.changes) out.push(`      ${filterLine(f, c)}`);
    }
    const a = item.automation;
    if (!a) continue;
    const other = [
      ...unsaid(
        (item.fields ?? []).filter((f) => f !== 'document'),
        item.values,
      ),
      ...unsaid(a.fields, a.values).map((f) => `document.${f}`),
    ];
    if (other.length) out.push(`      ${c.yellow('~')} ${p(other.join(', '))}`);
    for (const v of a.values) out.push(valueLine(v, '      ', c, 'document.'));
    for (const n of a.nodes) {
      const nodeFields = unsaid(n.fields ?? [], n.values);
      out.push(
        `      ${signOf(n.change)} node ${p(n.id)}${n.kind ? c.dim(` ${p(n.kind)}`) : ''}${nodeFields.length ? `: ${p(nodeFields.join(', '))}` : ''}`,
      );
      for (const v of n.values ?? []) out.push(valueLine(v, '          ', c));
      for (const f of n.conditions ?? []) out.push(`          ${filterLine(f, c)}`);
    }
    for (const e of a.edges) {
      out.push(
        `      ${signOf(e.change)} edge ${p(e.id)}: ${p(e.source)} → ${p(e.target)}${e.handle !== 'next' ? ` [${p(e.handle)}]` : ''}`,
      );
      for (const v of e.values ?? []) out.push(valueLine(v, '          ', c));
    }
  }
  const changes = (ch: string) => count(d.items.filter((i) => i.change === ch).length);
  out.push(
    '',
    d.items.length || d.fields.length
      ? `${changes('added')} added, ${changes('removed')} removed, ${changes('changed')} changed`
      : 'No changes.',
  );
  return out.join('\n') + '\n';
}

/**
 * A changed field's `before`/`after` as the JSON values themselves (ValueChange.json), not the
 * words the text output prints (`"1.0.0"`, not `"\"1.0.0\""`); a filter's changes stay in words.
 */
function jsonValues(this: unknown, key: string, value: unknown): unknown {
  const holder = this as { json?: { before?: unknown; after?: unknown } };
  if (key === 'json' && holder && typeof holder === 'object' && 'field' in holder) return undefined;
  if ((key === 'before' || key === 'after') && holder?.json) return holder.json[key];
  return value;
}

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const [oldPath, newPath] = args.positionals;
  const { acceptsProperty, cannotPairReason, diffPacks, notAPack, RULE_METADATA } = await import('@setup-pack/core');
  const abs = [oldPath, newPath].map((path) => resolve(ctx.cwd, path));
  const read = (i: number, stamp?: string) => readPackInput(ctx, abs[i], displayPath(abs[i], ctx.cwd), stamp);
  // A source folder has no exportedAt (build sets one): it is built with the other pack's, or both
  // folders with one stamp, so that the diff does not list a difference neither release wrote.
  const folders = await Promise.all(
    abs.map((a) =>
      stat(a).then(
        (st) => st.isDirectory(),
        () => false,
      ),
    ),
  );
  const reads: PackInput[] = [];
  for (const i of [0, 1]) if (!folders[i]) reads[i] = await read(i);
  const fileStamp = reads
    .map((r) => (r?.ok && isObject(r.value) && typeof r.value.exportedAt === 'string' ? r.value.exportedAt : undefined))
    .find((x) => x !== undefined);
  const stamp =
    fileStamp ?? (folders.some(Boolean) ? exportedAt(undefined, ctx.env, (st) => acceptsProperty('pack', 'exportedAt', st)) : undefined);
  for (const i of [0, 1]) if (folders[i]) reads[i] = await read(i, stamp);
  for (const [i, r] of reads.entries()) {
    if (r.ok) continue;
    if (r.unreadable) throw new UsageError(cannotRead(args.positionals[i], r.reports[0]));
    ctx.stderr.write(
      formatPretty(r.reports, { cwd: ctx.cwd, rules: [...RULE_METADATA, ...BUILD_RULES], toolVersion: cliVersion() }, ctx.colors('stderr')),
    );
    return 2;
  }
  const [a, b] = reads.map((r) => (r as { value: unknown }).value);
  // No pack at all (`[]`): said in validate's words (core's notAPack).
  for (const [i, v] of [a, b].entries()) {
    const why = notAPack(v)?.message;
    if (why)
      throw new UsageError(`'${args.positionals[i]}' is not a pack: ${why.charAt(0).toLowerCase()}${why.slice(1).replace(/\.$/, '')}`);
  }
  const d = diffPacks(a as Pack, b as Pack);
  // An invalid pack's items that cannot be paired by key would be guessed at (an item whose key
  // went bad said removed, one of a repeated key said changed or not), and so would a changed
  // pipeline's stages of a repeated key and a changed automation's nodes or edges of a repeated
  // id: refused, each named, in core's words.
  for (const side of ['old', 'new'] as const) {
    const own = d.unpaired.filter((u) => u.side === side && u.reason !== 'key-repeats-on-other-side');
    if (own.length)
      throw new UsageError(p(`'${args.positionals[side === 'old' ? 0 : 1]}' ${cannotPairReason(own)} (setup-pack validate says more)`));
  }
  if (args.values.format === 'json')
    ctx.stdout.write(JSON.stringify({ version: 2, old: oldPath, new: newPath, ...d }, jsonValues, 2) + '\n');
  else ctx.stdout.write(formatDiff(d, ctx.colors('stdout')));
  return args.values['exit-code'] && (d.items.length || d.fields.length) ? 1 : 0;
}
