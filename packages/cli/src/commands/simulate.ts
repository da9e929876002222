// setup-pack simulate: one contact's path through a pack's automations from one event, as a
// timeline (core's simulate), for a person (pretty) or a program (json, schema in
// packages/cli/schema/simulate-timeline.schema.json).
import { resolve } from 'node:path';
import {
  count,
  printable as p,
  SIMULATION_STEP_LIMIT,
  type Pack,
  type Timeline,
  type TimelinePath,
  type TimelineStep,
} from '@setup-pack/core';
import { intOption, type CommandSpec, type Parsed } from '../lib/args.js';
import type { Colors } from '../lib/color.js';
import type { CommandContext } from '../lib/context.js';
import { UsageError } from '../lib/errors.js';
import { displayPath } from '../lib/files.js';
import { readPackFile } from '../lib/packfile.js';
import { connect, reportFailure } from '../lib/workspace.js';
import { readPack } from './plan.js';

/** The options that name the event's subject, each for the reference type it names. */
const SUBJECTS: Record<string, string> = {
  tag: 'tag',
  stage: 'stage',
  field: 'custom_field',
  template: 'email_template',
  pipeline: 'pipeline',
  'deal-stage': 'deal_stage',
  automation: 'automation',
};

export const spec: CommandSpec = {
  name: 'simulate',
  summary: "Follow one contact through a pack's automations from one event, as a timeline.",
  usage: 'simulate [options] <pack.json | source folder> --event <event>',
  description:
    "Starts the automations the event starts, follows each block with its waits in the workspace's time zone and its messages held to the send window, send days and holidays, takes a condition's branch where the contact's fields decide it (and forks the timeline into paths, each with a contact of its own, where they cannot), and follows the automations the blocks' events start. A state that repeats is a loop: the path stops there and names it. Ends with the messages a channel sends in the first 24 hours and 7 days.",
  exitCodes:
    'Exit codes: 0 simulated; 1 a path of the simulation stopped at a loop, the pack is not valid, or the workspace refused (--contact-id); 2 usage error (an unknown event, a subject not in the pack, a date or contact that does not read).',
  docs: 'docs/behaviour.md',
  positionals: [1, 1],
  options: {
    event: {
      type: 'string',
      value: '<event>',
      description: 'The event that starts it: a trigger kind without "trigger." (tag_added, stage_changed, contact_created, manual, …).',
    },
    tag: { type: 'string', value: '<tag>', description: 'For tag_added: the tag (pack key or name).' },
    stage: { type: 'string', value: '<stage>', description: 'For stage_changed: the stage it changes to.' },
    field: { type: 'string', value: '<field>', description: 'For contact_field_changed: the custom field.' },
    template: {
      type: 'string',
      value: '<template>',
      description: 'For email_opened, email_clicked, email_replied, email_bounced: the template.',
    },
    pipeline: { type: 'string', value: '<pipeline>', description: 'For deal_created, deal_won, deal_lost: the pipeline.' },
    'deal-stage': { type: 'string', value: '<stage>', description: 'For deal_stage_changed, deal_stuck_in_stage: the deal stage.' },
    automation: { type: 'string', value: '<automation>', description: 'For manual: the automation started by hand.' },
    contact: {
      type: 'string',
      path: true,
      value: '<file>',
      description:
        "The contact, a JSON file in the API's shape (first_name, tags, stage, custom_fields); default a sample contact with no tags.",
    },
    'contact-id': { type: 'string', value: '<id>', description: 'A real contact of the workspace (with --url and --key).' },
    at: { type: 'string', value: '<time>', description: 'When the event happens, RFC 3339 with its offset (default now).' },
    'time-zone': { type: 'string', value: '<zone>', description: "The workspace's time zone, an IANA name (default UTC)." },
    days: { type: 'string', value: '<n>', description: 'How many days to follow (default 30).' },
    holiday: {
      type: 'string',
      multiple: true,
      value: '<YYYY-MM-DD>',
      description: 'A workspace holiday, for send_window_skip_holidays (repeatable).',
    },
    'reply-at': {
      type: 'string',
      value: '<time>',
      description:
        'When the contact replies (RFC 3339), to the last message sent before then: runs with stop_on_reply end, reply triggers start.',
    },
    url: {
      type: 'string',
      value: '<base>',
      env: { name: 'WORKSPACE_URL', what: 'the workspace API base address' },
      description: 'Workspace API base address (for --contact-id).',
    },
    key: {
      type: 'string',
      value: '<key>',
      env: { name: 'WORKSPACE_API_KEY', what: 'the workspace API key' },
      description: 'Workspace API key (for --contact-id).',
    },
    format: { type: 'string', short: 'f', value: '<format>', choices: ['pretty', 'json'], description: 'Output format (default pretty).' },
  },
  examples: [
    [
      'setup-pack simulate pack.json --event tag_added --tag hot --contact rosa.json --at 2026-12-04T18:45:00-05:00 --time-zone America/New_York',
      'What happens to Rosa when she is tagged Hot',
    ],
    ['setup-pack simulate pack.json --event contact_created --format json', 'A new contact, as JSON'],
    [
      'setup-pack simulate pack.json --event manual --automation welcome --contact-id con_123 --url $URL --key $KEY',
      'A real contact of the workspace, started by hand',
    ],
  ],
};

/** The subject the options give, and which option gave it (one subject option at most, of the type the event names). */
async function subjectOf(args: Parsed, event: string): Promise<{ option: string; value: string } | undefined> {
  const given = Object.keys(SUBJECTS).filter((o) => typeof args.values[o] === 'string');
  if (given.length > 1) throw new UsageError(`give one of --${given.join(', --')}: the event names one thing`);
  if (!given.length) return undefined;
  const { simulationEvents } = await import('@setup-pack/core');
  const wants = simulationEvents().find((e) => e.event === event)?.subject;
  const option = given[0];
  if (wants !== undefined && SUBJECTS[option] !== wants) {
    const right = Object.keys(SUBJECTS).find((o) => SUBJECTS[o] === wants);
    throw new UsageError(`--${option} does not go with --event ${event}, which names a ${wants.replace('_', ' ')}: give --${right}`);
  }
  return { option, value: args.values[option] as string };
}

/** The contact: a file, a real contact of the workspace, or a sample. */
async function contactOf(ctx: CommandContext, args: Parsed): Promise<unknown> {
  const file = args.values.contact as string | undefined;
  const id = args.values['contact-id'] as string | undefined;
  if (file && id) throw new UsageError('give --contact or --contact-id, not both');
  if (id) {
    const client = await connect(ctx, args);
    return client.get(`/v1/contacts/${encodeURIComponent(id)}`);
  }
  if (!file) return { first_name: 'Sam', last_name: 'Sample', tags: [] };
  const abs = resolve(ctx.cwd, file);
  const r = await readPackFile(abs, displayPath(abs, ctx.cwd));
  if (!r.ok) {
    const d = r.report.diagnostics[0];
    throw new UsageError(
      `--contact ${file}${d?.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''}: ${(r.unreadable ? r.report.readError : d?.message) ?? 'cannot be read'}`,
    );
  }
  return r.value;
}

export async function run(ctx: CommandContext, args: Parsed): Promise<number> {
  const { simulate, SimulateError } = await import('@setup-pack/core');
  const event = args.values.event as string | undefined;
  if (!event)
    throw new UsageError(
      `--event is required: the event that starts the simulation (e.g. --event tag_added --tag hot); usage: setup-pack ${spec.usage}`,
    );
  const days = args.values.days === undefined ? undefined : intOption('days', args.values.days);
  const subject = await subjectOf(args, event);
  const pack: Pack = await readPack(ctx, args.positionals[0]);
  let contact: unknown;
  try {
    contact = await contactOf(ctx, args);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return reportFailure(ctx, e, args.values.format === 'json');
  }
  let timeline: Timeline;
  try {
    timeline = simulate(pack, {
      event,
      subject: subject?.value,
      contact,
      at: (args.values.at as string | undefined) ?? new Date().toISOString(),
      days,
      timeZone: args.values['time-zone'] as string | undefined,
      holidays: args.values.holiday as string[] | undefined,
      replyAt: args.values['reply-at'] as string | undefined,
    });
  } catch (e) {
    if (e instanceof SimulateError) throw new UsageError(`${optionOf(e.field, args, subject?.option)}: ${e.message}`);
    throw e;
  }
  if (args.values.format === 'json') ctx.stdout.write(JSON.stringify(timeline, null, 2) + '\n');
  else ctx.stdout.write(formatTimeline(timeline, ctx.colors('stdout')));
  return timeline.ended === 'loop' ? 1 : 0;
}

/** The option a simulation input field came from, as the user wrote it (`--contact rosa.json`, `--tag`). */
function optionOf(field: string, args: Parsed, subjectOption?: string): string {
  if (field.startsWith('contact')) {
    const source =
      args.values['contact-id'] !== undefined
        ? `--contact-id ${args.values['contact-id']}`
        : args.values.contact !== undefined
          ? `--contact ${args.values.contact}`
          : 'the sample contact';
    return field === 'contact' ? source : `${source}: ${field.slice('contact.'.length)}`;
  }
  if (field === 'subject') return subjectOption ? `--${subjectOption}` : '--event';
  return { timeZone: '--time-zone', holidays: '--holiday', replyAt: '--reply-at' }[field] ?? `--${field}`;
}

/**
 * A timeline as lines a person reads: each path (when a condition forked it) with what it chose,
 * each day once, then each step with its time, automation and block. A forked path prints only
 * the steps after the ones it shares with the path it forked from.
 */
export function formatTimeline(t: Timeline, c: Colors): string {
  const out = [
    `${c.bold(p(t.pack.name))} ${c.dim(`${p(t.pack.version)} · ${t.start.contact} · ${t.start.event}${t.start.subject ? ` ${p(t.start.subject)}` : ''} at ${t.start.at} (${t.start.timeZone}), ${t.start.days} days`)}`,
    '',
  ];
  const several = t.paths.length > 1;
  t.paths.forEach((path, i) => {
    if (several) out.push(pathHeading(t, i, c));
    out.push(...pathLines(path, several, c));
    if (path.loop) out.push(`${c.red(c.bold('loop:'))} ${p(path.loop.message)}`);
    if (path.ended === 'horizon') out.push(c.dim(`(followed ${t.start.days} days; later steps are left out)`));
    if (path.ended === 'limit') out.push(c.dim(`(stopped after ${count(SIMULATION_STEP_LIMIT)} steps)`));
    if (several) out.push(`${c.bold(`Path ${i + 1}:`)} ${p(path.summary.words)}.`);
    out.push('');
  });
  for (const a of t.assumptions) out.push(`${c.yellow('assumed:')} ${p(a)}`);
  out.push(`${c.bold('Summary:')} ${p(t.summary.words)}.`, '');
  return out.join('\n');
}

function pathHeading(t: Timeline, i: number, c: Colors): string {
  const path = t.paths[i];
  const from = path.forkOf && t.paths[path.forkOf.path].steps[path.forkOf.steps - 1];
  const shares =
    path.forkOf && from
      ? c.dim(` (as path ${path.forkOf.path + 1} up to ${p(from.node)} at ${from.at.slice(0, 16).replace('T', ' ')})`)
      : '';
  return `${c.bold(`Path ${i + 1} of ${t.paths.length}:`)} ${path.choices.map((x) => p(x)).join('; ')}${shares}`;
}

/** A path's steps by day (a forked path's own steps only). */
function pathLines(path: TimelinePath, several: boolean, c: Colors): string[] {
  const out: string[] = [];
  const chosen = path.choices.join('; ');
  let day = '';
  for (const s of path.steps.slice(path.forkOf?.steps ?? 0)) {
    const d = s.at.slice(0, 10);
    if (d !== day) out.push(c.bold(`${weekday(s.at)} ${d}`));
    day = d;
    // On a path of its own a step's choices are the path's, said once in its heading.
    const own = several && s.assuming !== undefined && chosen.startsWith(s.assuming);
    out.push(stepLine(own ? { ...s, assuming: undefined } : s, c));
  }
  if (!path.steps.length) out.push(c.dim('  (the event starts no automation of the pack)'));
  else if (path.forkOf && path.steps.length === path.forkOf.steps) out.push(c.dim('  (the run ends here)'));
  return out;
}

const WEEKDAY = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const weekday = (iso: string) => WEEKDAY[new Date(`${iso.slice(0, 10)}T12:00:00Z`).getUTCDay()];

function stepLine(s: TimelineStep, c: Colors): string {
  const where = s.node ? `${p(s.automationName)} › ${p(s.node)}` : p(s.automationName);
  const text = [
    p(s.does),
    s.branch ? c.dim(`→ ${s.branch.handle}: ${p(s.branch.why)}`) : '',
    s.forks ? c.dim(`→ ${s.forks.map((f) => `${p(f.handle)} on path ${f.path + 1}`).join(', ')}`) : '',
    s.starts?.length ? c.green(`→ starts ${s.starts.map(p).join(', ')}`) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const lines = [
    `  ${s.at.slice(11, 16)}  ${s.message ? c.green(where) : where}  ${text}${s.assuming ? c.dim(` (if ${p(s.assuming)})`) : ''}`,
  ];
  for (const m of s.may ?? []) lines.push(c.dim(`         may: ${p(m)}`));
  return lines.join('\n');
}
