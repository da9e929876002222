// The effects model: for every block kind of the node catalog, what running it causes and, for a
// trigger, what starts it. Stated once, as data beside the catalog: the validator's cross-automation
// findings (flow/*), the simulator, the editor's Simulate panel and Flow map and docs/behaviour.md
// all read it. The format shows no semantics of blocks; this is our model, and where the spec is
// silent it says what we decided (docs/behaviour.md).
import { NODE_KINDS } from '../catalog/nodes.js';

/**
 * Something that happens to a contact (or its deal) inside the workspace. A subject names what it
 * happened with (a tag, a stage, a template…), as the block's config names it.
 */
export type EventKind =
  | 'tag_added'
  | 'tag_removed'
  | 'stage_changed'
  | 'field_changed'
  | 'deal_created'
  | 'deal_stage_changed'
  | 'deal_won'
  | 'deal_lost'
  | 'deal_stuck'
  | 'transaction_created'
  | 'email_sent'
  | 'sms_sent'
  | 'email_opened'
  | 'email_clicked'
  | 'email_replied'
  | 'email_bounced'
  | 'task_created'
  | 'task_completed'
  | 'task_overdue';

/** An event a block causes: `certain` whenever it runs, or only `possible` (a contact may open an email, or not). */
export interface CausedEvent {
  event: EventKind;
  /** Config fields naming the subject, the first one set wins; none: the event has no subject. */
  subject?: readonly string[];
  certainty: 'certain' | 'possible';
  /** Only when the deal stage the block names is of this type (CLOSED_WON or CLOSED_LOST). */
  whenStageType?: 'CLOSED_WON' | 'CLOSED_LOST';
}

/** How a trigger starts: on an event inside the workspace, at set times, or from outside only. */
export type TriggerStart =
  { on: EventKind; subject?: readonly string[] } | { on: 'time'; how: 'schedule' | 'date' } | { on: 'external'; what: string };

export interface BlockEffects {
  /** A trigger: what starts it. */
  starts?: TriggerStart;
  causes?: readonly CausedEvent[];
  /** Acts on automations directly: starts the one config field names, or stops those it lists. */
  automations?: { does: 'start' | 'stop'; field: string };
  /** Sends the contact a message on a channel (`config` reads the block's `channel` field). */
  message?: 'email' | 'sms' | 'config';
  /** What it changes of the contact beyond the events it causes (the simulator applies it). */
  contact?: 'do-not-contact' | 'email-subscription';
  /** A control: waits, branches on a condition, lets AI choose, or repeats. */
  control?: 'wait' | 'if' | 'ai_branch' | 'loop';
}

const certain = (event: EventKind, ...subject: string[]): CausedEvent => ({
  event,
  certainty: 'certain',
  ...(subject.length ? { subject } : {}),
});
const possible = (event: EventKind, ...subject: string[]): CausedEvent => ({
  event,
  certainty: 'possible',
  ...(subject.length ? { subject } : {}),
});
const external = (what: string): BlockEffects => ({ starts: { on: 'external', what } });
const on = (event: EventKind, ...subject: string[]): BlockEffects => ({ starts: { on: event, ...(subject.length ? { subject } : {}) } });
const dealClose = (type: 'CLOSED_WON' | 'CLOSED_LOST'): CausedEvent => ({
  event: type === 'CLOSED_WON' ? 'deal_won' : 'deal_lost',
  subject: ['pipeline_id'],
  certainty: 'certain',
  whenStageType: type,
});

const TRIGGERS: Record<string, BlockEffects> = {
  'trigger.transaction_created': on('transaction_created', 'side'),
  'trigger.transaction_status_changed': external('a transaction moving to another status'),
  'trigger.transaction_closed': external('a transaction closing'),
  'trigger.transaction_fell_through': external('a transaction falling through'),
  'trigger.contact_created': external('a contact being added'),
  'trigger.tag_added': on('tag_added', 'tag_id'),
  'trigger.stage_changed': on('stage_changed', 'to_stage_id'),
  'trigger.contact_field_changed': on('field_changed', 'custom_field_id', 'field'),
  'trigger.sms_received': external('a text message from the contact'),
  'trigger.manual': external('a person starting it by hand'),
  'trigger.website_form_submitted': external('a website form'),
  'trigger.website_visit': external('a website visit'),
  'trigger.listing_viewed': external('a listing view'),
  'trigger.consumer_registered': external('a website registration'),
  'trigger.listing_favorited': external('a saved listing'),
  'trigger.search_saved': external('a saved search'),
  'trigger.newsletter_signup': external('a newsletter signup'),
  'trigger.listing_match': external('a new listing'),
  'trigger.date_reached': { starts: { on: 'time', how: 'date' } },
  'trigger.schedule': { starts: { on: 'time', how: 'schedule' } },
  'trigger.webhook_received': external('an inbound webhook'),
  'trigger.task_completed': on('task_completed'),
  'trigger.task_overdue': on('task_overdue'),
  'trigger.appointment_scheduled': external('an appointment being scheduled'),
  'trigger.appointment_upcoming': external('an upcoming appointment'),
  'trigger.appointment_completed': external('an appointment being completed'),
  'trigger.appointment_cancelled': external('an appointment being cancelled'),
  'trigger.appointment_no_show': external('a missed appointment'),
  'trigger.showing_requested': external('a showing request'),
  'trigger.meeting_booked': external('a booked meeting'),
  'trigger.email_opened': on('email_opened', 'template_id'),
  'trigger.email_clicked': on('email_clicked', 'template_id'),
  'trigger.email_bounced': on('email_bounced', 'template_id'),
  'trigger.email_replied': on('email_replied', 'template_id'),
  'trigger.deal_created': on('deal_created', 'pipeline_id'),
  'trigger.deal_stage_changed': on('deal_stage_changed', 'stage_id'),
  'trigger.deal_won': on('deal_won', 'pipeline_id'),
  'trigger.deal_lost': on('deal_lost', 'pipeline_id'),
  'trigger.deal_stuck_in_stage': on('deal_stuck', 'stage_id'),
  'trigger.program_subscribed': external('a program subscription'),
  'trigger.program_unsubscribed': external('a program unsubscription'),
};

const ACTIONS: Record<string, BlockEffects> = {
  'action.create_transaction': { causes: [certain('transaction_created', 'side')] },
  'action.send_sms': { message: 'sms', causes: [certain('sms_sent')] },
  'action.send_email': {
    message: 'email',
    causes: [
      certain('email_sent', 'template_id'),
      possible('email_opened', 'template_id'),
      possible('email_clicked', 'template_id'),
      possible('email_replied', 'template_id'),
      possible('email_bounced', 'template_id'),
    ],
  },
  'action.create_task': { causes: [certain('task_created'), possible('task_completed'), possible('task_overdue')] },
  'action.add_tag': { causes: [certain('tag_added', 'tag_id')] },
  'action.set_field': { causes: [certain('field_changed', 'custom_field_id', 'field')] },
  'action.mark_do_not_contact': { contact: 'do-not-contact' },
  'action.set_email_subscription': { contact: 'email-subscription' },
  'action.remove_tag': { causes: [certain('tag_removed', 'tag_id')] },
  'action.set_stage': { causes: [certain('stage_changed', 'stage_id')] },
  'action.create_deal': {
    causes: [certain('deal_created', 'pipeline_id'), possible('deal_stuck', 'stage_id'), dealClose('CLOSED_WON'), dealClose('CLOSED_LOST')],
  },
  'action.move_deal_stage': {
    causes: [
      certain('deal_stage_changed', 'stage_id'),
      possible('deal_stuck', 'stage_id'),
      dealClose('CLOSED_WON'),
      dealClose('CLOSED_LOST'),
    ],
  },
  'action.assign_owner': {},
  'action.return_to_pond': {},
  'action.set_relationship': {},
  'action.add_collaborator': {},
  'action.remove_collaborator': {},
  'action.run_automation': { automations: { does: 'start', field: 'automation_id' } },
  'action.stop_automations': { automations: { does: 'stop', field: 'automation_ids' } },
  'action.add_note': {},
  'action.ai_extract': {},
  'action.ai_message': { message: 'config' },
  'action.webhook': {},
  'action.notify': {},
};

const CONTROLS: Record<string, BlockEffects> = {
  'control.wait': { control: 'wait' },
  'control.if': { control: 'if' },
  'control.ai_branch': { control: 'ai_branch' },
  'control.loop': { control: 'loop' },
};

function build(): ReadonlyMap<string, BlockEffects> {
  const all = { ...TRIGGERS, ...ACTIONS, ...CONTROLS };
  const out = new Map<string, BlockEffects>();
  for (const kind of NODE_KINDS) {
    const e = all[kind];
    if (!e) throw new Error(`effects: no entry for ${kind}`);
    out.set(kind, e);
  }
  return out;
}

/** Every block kind of the catalog, with its effects (the one statement of them). */
export const EFFECTS: ReadonlyMap<string, BlockEffects> = build();

/** What a trigger's condition compares its config value with, besides the subject. */
export type TriggerFact = 'previous stage' | "contact's stage" | "contact's lead source";

/**
 * Trigger config that narrows when a trigger starts, beyond its subject: a stage change from one
 * stage, a contact added with a stage or lead source. A field left out (or empty) narrows nothing.
 * The simulator matches them; the cascade analysis takes such a trigger as possibly starting.
 */
export const TRIGGER_CONDITIONS: Readonly<Record<string, readonly { field: string; equals: TriggerFact }[]>> = {
  'trigger.stage_changed': [{ field: 'from_stage_id', equals: 'previous stage' }],
  'trigger.contact_created': [
    { field: 'stage_id', equals: "contact's stage" },
    { field: 'lead_source_id', equals: "contact's lead source" },
  ],
};

/** Each event kind in words, for messages and docs: "tag added", "deal won". */
export const EVENT_WORDS: Record<EventKind, string> = {
  tag_added: 'tag added',
  tag_removed: 'tag removed',
  stage_changed: 'stage changed',
  field_changed: 'field changed',
  deal_created: 'deal created',
  deal_stage_changed: 'deal stage changed',
  deal_won: 'deal won',
  deal_lost: 'deal lost',
  deal_stuck: 'deal stuck in stage',
  transaction_created: 'transaction created',
  email_sent: 'email sent',
  sms_sent: 'SMS sent',
  email_opened: 'email opened',
  email_clicked: 'email clicked',
  email_replied: 'email replied',
  email_bounced: 'email bounced',
  task_created: 'task created',
  task_completed: 'task completed',
  task_overdue: 'task overdue',
};

/** The subject an event or a trigger names in `config`: the first of `fields` set to a non-empty string. */
export function subjectOf(fields: readonly string[] | undefined, config: unknown): string | undefined {
  if (!fields || !config || typeof config !== 'object') return undefined;
  for (const f of fields) {
    const v = (config as Record<string, unknown>)[f];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}
