// The node catalog: every block kind of the spec with its group, label, outputs and the config
// fields we propose. The spec shows no block configs, so nothing here is ever an error: config
// findings are warnings (type mismatch, missing field) or info (a field we do not know).
// docs/catalog.md is generated from this table.
import { publishedSchemas } from '../generated/schemas.js';
import type { NodeGroup, ReferenceType } from '../types.js';
import { clipText, describeFilter, isFilterCondition, isFilterGroup, type SummaryPart } from '../filters.js';
import { plural } from '../text.js';

export type ConfigFieldType = 'string' | 'text' | 'number' | 'integer' | 'boolean' | 'enum' | 'ref' | 'refs' | 'strings' | 'object' | 'any';

export interface ConfigField {
  name: string;
  type: ConfigFieldType;
  label: string;
  required?: boolean;
  /** Allowed values for `enum`. */
  values?: readonly string[];
  /** Reference type for `ref` / `refs`: the field holds ids (or pack keys) of that type. */
  ref?: ReferenceType;
  help?: string;
}

export interface NodeKindInfo {
  kind: string;
  group: NodeGroup;
  label: string;
  description: string;
  /** Output handles. `dynamic` means declared by the node's config (control.ai_branch outcomes). */
  outputs: readonly string[] | 'dynamic';
  fields: readonly ConfigField[];
  /** Names of `fields`, for quick look-ups. */
  fieldNames: ReadonlySet<string>;
}

const f = (name: string, type: ConfigFieldType, label: string, extra: Partial<ConfigField> = {}): ConfigField => ({
  name,
  type,
  label,
  ...extra,
});
const ref = (name: string, type: ReferenceType, label: string, required = false): ConfigField =>
  f(name, 'ref', label, { ref: type, required });
const sides = ['buyer', 'seller', 'both'] as const;
const txStatuses = ['active', 'pending', 'closed', 'fell_through'] as const;
const apptType = ref('appointment_type_id', 'appointment_type', 'Appointment type');
const template = ref('template_id', 'email_template', 'Template');
const pipeline = ref('pipeline_id', 'pipeline', 'Pipeline');

type Spec = [description: string, fields?: ConfigField[], label?: string];

const triggers: Record<string, Spec> = {
  transaction_created: ['A transaction is opened.', [f('side', 'enum', 'Side', { values: sides })]],
  transaction_status_changed: [
    'A transaction moves to another status.',
    [f('from_status', 'enum', 'From status', { values: txStatuses }), f('to_status', 'enum', 'To status', { values: txStatuses })],
  ],
  transaction_closed: ['A transaction closes.', [f('side', 'enum', 'Side', { values: sides })]],
  transaction_fell_through: ['A transaction falls through.'],
  contact_created: ['A contact is added.', [ref('lead_source_id', 'lead_source', 'Lead source'), ref('stage_id', 'stage', 'Stage')]],
  tag_added: ['A tag is added to a contact.', [ref('tag_id', 'tag', 'Tag', true)]],
  stage_changed: ["A contact's stage changes.", [ref('from_stage_id', 'stage', 'From stage'), ref('to_stage_id', 'stage', 'To stage')]],
  contact_field_changed: [
    'A contact field changes.',
    [f('field', 'string', 'Field', { required: true }), ref('custom_field_id', 'custom_field', 'Custom field')],
  ],
  sms_received: ['A text message arrives.', [f('keyword', 'string', 'Keyword')], 'SMS received'],
  manual: ['Started by hand for chosen contacts.', [], 'Manual start'],
  website_form_submitted: ['A website form is submitted.', [ref('website_id', 'website', 'Website'), ref('form_id', 'form', 'Form')]],
  website_visit: [
    'A contact visits the website.',
    [ref('website_id', 'website', 'Website'), f('url_contains', 'string', 'Address contains')],
  ],
  listing_viewed: ['A contact views a listing.', [f('min_views', 'integer', 'Minimum views')]],
  consumer_registered: ['A consumer registers on the website.', [ref('website_id', 'website', 'Website')]],
  listing_favorited: ['A contact saves a listing as a favorite.'],
  search_saved: ['A contact saves a property search.'],
  newsletter_signup: ['A contact signs up for the newsletter.', [ref('website_id', 'website', 'Website')]],
  listing_match: ["A new listing matches a contact's search.", [ref('smart_list_id', 'smart_list', 'Smart list')]],
  date_reached: [
    'A date on the contact is reached.',
    [
      f('field', 'string', 'Date field', { required: true }),
      f('offset_days', 'integer', 'Offset (days)'),
      f('time_of_day', 'integer', 'Time of day (minutes)'),
    ],
  ],
  schedule: [
    'Runs on a schedule for a smart list.',
    [f('cron', 'string', 'Schedule (cron)'), ref('smart_list_id', 'smart_list', 'Smart list')],
  ],
  webhook_received: ['An inbound webhook is received.'],
  task_completed: ['A task is completed.'],
  task_overdue: ['A task becomes overdue.'],
  appointment_scheduled: ['An appointment is scheduled.', [apptType]],
  appointment_upcoming: ['An appointment is coming up.', [apptType, f('minutes_before', 'integer', 'Minutes before')]],
  appointment_completed: ['An appointment is completed.', [apptType, ref('outcome_id', 'appointment_outcome', 'Outcome')]],
  appointment_cancelled: ['An appointment is cancelled.', [apptType]],
  appointment_no_show: ['A contact misses an appointment.', [apptType], 'Appointment no-show'],
  showing_requested: ['A showing is requested.'],
  meeting_booked: ['A meeting is booked.'],
  email_opened: ['An email is opened.', [template]],
  email_clicked: ['A link in an email is clicked.', [template]],
  email_bounced: ['An email bounces.', [template]],
  email_replied: ['A contact replies to an email.', [template]],
  deal_created: ['A deal is created.', [pipeline]],
  deal_stage_changed: ['A deal moves to another stage.', [pipeline, ref('stage_id', 'deal_stage', 'Stage')]],
  deal_won: ['A deal is won.', [pipeline]],
  deal_lost: ['A deal is lost.', [pipeline]],
  deal_stuck_in_stage: [
    'A deal stays in a stage too long.',
    [ref('stage_id', 'deal_stage', 'Stage', true), f('days', 'integer', 'Days', { required: true })],
  ],
  program_subscribed: ['A contact joins a program.', [ref('program_id', 'program', 'Program', true)]],
  program_unsubscribed: ['A contact leaves a program.', [ref('program_id', 'program', 'Program', true)]],
};

const actions: Record<string, Spec> = {
  create_transaction: [
    'Opens a transaction.',
    [
      f('side', 'enum', 'Side', { values: sides }),
      f('stage_id', 'string', 'Closing stage'),
      f('checklist_template_id', 'string', 'Checklist template'),
    ],
  ],
  send_sms: ['Sends a text message.', [f('body', 'text', 'Message'), template, ref('from_user_id', 'user', 'From')], 'Send SMS'],
  send_email: [
    'Sends an email.',
    [ref('template_id', 'email_template', 'Template', true), f('subject', 'string', 'Subject'), ref('from_user_id', 'user', 'From')],
  ],
  create_task: [
    'Creates a task.',
    [
      f('title', 'string', 'Title', { required: true }),
      f('due_in_days', 'integer', 'Due in (days)'),
      ref('assignee_id', 'user', 'Assignee'),
    ],
  ],
  add_tag: ['Adds a tag to the contact.', [ref('tag_id', 'tag', 'Tag', true)]],
  set_field: [
    'Sets a contact field.',
    [f('field', 'string', 'Field'), ref('custom_field_id', 'custom_field', 'Custom field'), f('value', 'any', 'Value')],
  ],
  mark_do_not_contact: [
    'Marks the contact as do-not-contact.',
    [f('channel', 'enum', 'Channel', { values: ['sms', 'email', 'call', 'all'] })],
    'Mark do not contact',
  ],
  set_email_subscription: ["Sets the contact's email subscription.", [f('subscribed', 'boolean', 'Subscribed', { required: true })]],
  remove_tag: ['Removes a tag from the contact.', [ref('tag_id', 'tag', 'Tag', true)]],
  set_stage: ["Sets the contact's stage.", [ref('stage_id', 'stage', 'Stage', true)]],
  create_deal: [
    'Creates a deal.',
    [pipeline, ref('stage_id', 'deal_stage', 'Stage', true), f('name', 'string', 'Name'), f('value', 'string', 'Value')],
  ],
  move_deal_stage: ['Moves the deal to a stage.', [ref('stage_id', 'deal_stage', 'Stage', true)]],
  assign_owner: [
    'Assigns an owner.',
    [
      f('strategy', 'enum', 'Strategy', { values: ['specific', 'round_robin'] }),
      ref('user_id', 'user', 'Member'),
      ref('team_id', 'team', 'Team'),
    ],
  ],
  return_to_pond: ['Returns the contact to a pond.', [ref('pond_id', 'pond', 'Pond', true)]],
  set_relationship: ['Sets a relationship label.', [ref('relationship_label_id', 'relationship_label', 'Relationship', true)]],
  add_collaborator: ['Adds a collaborator.', [ref('user_id', 'user', 'Member', true)]],
  remove_collaborator: ['Removes a collaborator.', [ref('user_id', 'user', 'Member', true)]],
  run_automation: ['Starts another automation.', [ref('automation_id', 'automation', 'Automation', true)]],
  stop_automations: ['Stops running automations.', [f('automation_ids', 'refs', 'Automations', { ref: 'automation' })]],
  add_note: ['Adds a note to the timeline.', [f('body', 'text', 'Note', { required: true })]],
  ai_extract: [
    'Extracts fields with AI.',
    [f('prompt', 'text', 'Prompt', { required: true }), f('fields', 'strings', 'Fields')],
    'AI extract',
  ],
  ai_message: [
    'Writes a message with AI.',
    [f('prompt', 'text', 'Prompt', { required: true }), f('channel', 'enum', 'Channel', { values: ['sms', 'email'] })],
    'AI message',
  ],
  webhook: [
    'Posts to a web address.',
    [f('url', 'string', 'Address', { required: true }), f('method', 'enum', 'Method', { values: ['POST', 'PUT'] })],
    'Send webhook',
  ],
  notify: [
    'Notifies a team member.',
    [ref('user_id', 'user', 'Member'), f('message', 'text', 'Message', { required: true })],
    'Notify team',
  ],
};

const controls: Record<string, Spec & { outputs: readonly string[] | 'dynamic' }> = {
  wait: Object.assign(
    [
      'Waits before the next step.',
      [
        f('duration', 'integer', 'Duration'),
        f('unit', 'enum', 'Unit', { values: ['minutes', 'hours', 'days'] }),
        f('until', 'string', 'Until'),
      ],
    ] as Spec,
    { outputs: ['next'] },
  ),
  if: Object.assign(['Branches on a condition.', [f('conditions', 'object', 'Conditions')], 'If / else'] as Spec, {
    outputs: ['true', 'false'],
  }),
  ai_branch: Object.assign(
    [
      'Lets AI choose a branch.',
      [
        f('prompt', 'text', 'Prompt'),
        f('outcomes', 'strings', 'Outcomes', { required: true, help: 'Each outcome is an output of the block.' }),
      ],
      'AI branch',
    ] as Spec,
    { outputs: 'dynamic' as const },
  ),
  loop: Object.assign(
    ['Repeats for each item.', [f('items', 'string', 'Items'), f('max_iterations', 'integer', 'Most iterations')]] as Spec,
    { outputs: ['each', 'done'] },
  ),
};

const ACRONYMS: Record<string, string> = { sms: 'SMS', ai: 'AI', id: 'ID', url: 'URL' };
function labelOf(name: string): string {
  const words = name.split('_').map((w) => ACRONYMS[w] ?? w);
  const s = words.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Every kind the published node schema allows, in its order. */
export const NODE_KINDS: readonly string[] = (publishedSchemas.node as { properties: { kind: { enum: string[] } } }).properties.kind.enum;

function build(): Map<string, NodeKindInfo> {
  const map = new Map<string, NodeKindInfo>();
  for (const kind of NODE_KINDS) {
    const [groupPrefix, name] = kind.split('.') as [string, string];
    const group: NodeGroup = groupPrefix === 'trigger' ? 'trigger' : groupPrefix === 'action' ? 'action' : 'control';
    const table: Record<string, Spec & { outputs?: readonly string[] | 'dynamic' }> =
      group === 'trigger' ? triggers : group === 'action' ? actions : controls;
    const spec = table[name];
    if (!spec) throw new Error(`catalog: no entry for ${kind}`);
    const [description, fields = [], label] = spec;
    map.set(kind, {
      kind,
      group,
      label: label ?? labelOf(name),
      description,
      outputs: spec.outputs ?? ['next'],
      fields,
      fieldNames: new Set(fields.map((x) => x.name)),
    });
  }
  return map;
}

export const NODE_CATALOG: ReadonlyMap<string, NodeKindInfo> = build();

export function nodeKindInfo(kind: string): NodeKindInfo | undefined {
  return NODE_CATALOG.get(kind);
}

/** Outcomes an ai_branch node declares: strings, or objects with a key/id/name. */
export function declaredOutcomes(config: unknown): string[] | undefined {
  const outcomes = (config as { outcomes?: unknown } | undefined)?.outcomes;
  if (!Array.isArray(outcomes)) return undefined;
  const out: string[] = [];
  for (const o of outcomes) {
    if (typeof o === 'string') out.push(o);
    else if (o && typeof o === 'object') {
      const k = (o as Record<string, unknown>).key ?? (o as Record<string, unknown>).id ?? (o as Record<string, unknown>).name;
      if (typeof k === 'string') out.push(k);
    }
  }
  return out;
}

/**
 * Output handles of a node: the catalog's, or for control.ai_branch the outcomes its config
 * declares (undefined when it declares none we can read, so handles cannot be checked).
 */
export function outputHandles(kind: string, config: unknown): string[] | undefined {
  const info = NODE_CATALOG.get(kind);
  if (!info) return undefined;
  if (info.outputs === 'dynamic') return declaredOutcomes(config);
  return [...info.outputs];
}

const valueText = (v: unknown): string =>
  clipText(
    typeof v === 'string'
      ? v
      : typeof v === 'boolean'
        ? v
          ? 'yes'
          : 'no'
        : Array.isArray(v)
          ? v.map(valueText).join(', ')
          : (JSON.stringify(v) ?? ''),
  );
const set = (v: unknown) => v !== undefined && v !== null && v !== '';

/**
 * A node's config in words, for canvases and lists: controls as a sentence ("If contact has tag
 * …", "Wait 2 days", "AI picks ready or later"), other kinds as their catalog fields
 * ("Template: …"). Ids of catalog ref fields and of filter fields that hold ids are reference
 * parts, for a reader to show by name.
 */
export function describeConfig(kind: string, config: Record<string, unknown> | undefined): SummaryPart[] {
  if (!config || typeof config !== 'object') return [];
  const info = NODE_CATALOG.get(kind);
  const out: SummaryPart[] = [];
  const rest = (done: readonly string[]) => {
    for (const field of info?.fields ?? []) {
      if (done.includes(field.name) || !set(config[field.name])) continue;
      out.push(out.length ? ` · ${field.label}: ` : `${field.label}: `);
      out.push(...fieldParts(field, config[field.name]));
    }
  };
  switch (kind) {
    case 'control.if': {
      const c = config.conditions;
      if (!set(c)) return ['If … (no conditions yet)'];
      out.push('If ');
      if (isFilterGroup(c) || isFilterCondition(c)) describeFilter(c, out);
      else out.push('(conditions in a shape we do not read)');
      return out;
    }
    case 'control.wait': {
      const d = config.duration;
      const unit = typeof config.unit === 'string' ? config.unit : 'minutes';
      if (typeof d === 'number') out.push(`Wait ${plural(d, unit.replace(/s$/, ''), unit)}`);
      if (set(config.until)) out.push(`${out.length ? ' or until ' : 'Wait until '}${valueText(config.until)}`);
      return out;
    }
    case 'control.loop':
      if (set(config.items)) out.push(`For each of ${valueText(config.items)}`);
      if (typeof config.max_iterations === 'number')
        out.push(`${out.length ? ', ' : 'Repeat '}at most ${plural(config.max_iterations, 'time')}`);
      return out;
    case 'control.ai_branch': {
      const outcomes = declaredOutcomes(config) ?? [];
      out.push(
        outcomes.length
          ? `AI picks ${outcomes.slice(0, -1).join(', ')}${outcomes.length > 1 ? ' or ' : ''}${outcomes[outcomes.length - 1]}`
          : 'AI picks … (no outcomes yet)',
      );
      return out;
    }
  }
  if (!info) {
    for (const [name, v] of Object.entries(config)) if (set(v)) out.push(`${out.length ? ' · ' : ''}${name}: ${valueText(v)}`);
    return out;
  }
  rest([]);
  return out;
}

function fieldParts(field: ConfigField, v: unknown): SummaryPart[] {
  if (field.ref && field.type === 'ref' && typeof v === 'string') return [{ ref: field.ref, id: v }];
  if (field.ref && field.type === 'refs' && Array.isArray(v))
    return v.flatMap((id, i): SummaryPart[] => [...(i ? [', '] : []), typeof id === 'string' ? { ref: field.ref!, id } : valueText(id)]);
  return [valueText(v)];
}

/**
 * A one-line summary of a node's config for canvases and lists: `describeConfig` as text, each
 * reference by the name `nameOf` gives it (its id otherwise).
 */
export function summarizeConfig(
  kind: string,
  config: Record<string, unknown> | undefined,
  nameOf?: (type: ReferenceType, id: string) => string | undefined,
): string {
  const line = describeConfig(kind, config)
    .map((p) => (typeof p === 'string' ? p : (nameOf?.(p.ref, p.id) ?? p.id)))
    .join('');
  return line.length > 80 ? line.slice(0, 79) + '…' : line;
}
