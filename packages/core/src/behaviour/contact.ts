// The contact a simulation follows: read from a contact as the workspace API returns it (or a
// sample typed in its shape), its tags and stage matched to the pack's keys by id or name, and the
// state the simulator changes as blocks run. Conditions of control.if read it.
import { isFilterCondition, isFilterGroup } from '../filters.js';
import { normalizeName } from '../plan/bind.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface SimContact {
  name: string;
  /** Tags and stage as pack keys where the pack knows them (else as the contact names them). */
  tags: Set<string>;
  stage?: string;
  /** The contact's lead source, as a pack key where the pack knows it. */
  leadSource?: string;
  fields: Map<string, unknown>;
  doNotContact: Set<string>;
  emailSubscribed: boolean;
  deal?: { pipeline?: string; stage?: string };
}

/** A problem with the contact given, naming the field: the CLI says it as a usage error. */
export class ContactError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ContactError';
  }
}

/** The pack key an id or name stands for among `known` (key → name), or the value itself. */
function keyOf(value: unknown, known: ReadonlyMap<string, string>): string | undefined {
  const v = isObj(value) ? (typeof value.id === 'string' && known.has(value.id) ? value.id : (value.name ?? value.id)) : value;
  if (typeof v !== 'string' || v === '') return undefined;
  if (known.has(v)) return v;
  for (const [key, name] of known) if (normalizeName(name) === normalizeName(v)) return key;
  return v;
}

/**
 * The contact as the simulator reads it: `first_name` is required (the timeline names the
 * contact); `tags` a list of tag objects (`{id, name}`) or strings; `stage` an object or a string;
 * `custom_fields` an object; `lead_source` an object or a string. `tags`/`stages`/`leadSources` map
 * the pack's keys to names, for matching.
 */
export function readContact(
  value: unknown,
  tags: ReadonlyMap<string, string>,
  stages: ReadonlyMap<string, string>,
  leadSources: ReadonlyMap<string, string> = new Map(),
): SimContact {
  if (!isObj(value))
    throw new ContactError(
      '',
      `a contact is a JSON object (as GET /v1/contacts/{id} returns one), not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`,
    );
  if (typeof value.first_name !== 'string' || value.first_name.trim() === '')
    throw new ContactError('first_name', 'no first_name (a string), so it is not a contact (GET /v1/contacts/{id} gives one)');
  if (value.tags !== undefined && !Array.isArray(value.tags))
    throw new ContactError('tags', 'tags must be a list of tags (objects with id and name, or names)');
  if (value.custom_fields !== undefined && value.custom_fields !== null && !isObj(value.custom_fields))
    throw new ContactError('custom_fields', 'custom_fields must be an object of values by field');
  const contact: SimContact = {
    name: [value.first_name, value.last_name].filter((x) => typeof x === 'string' && x).join(' '),
    tags: new Set(((value.tags as unknown[]) ?? []).map((t) => keyOf(t, tags)).filter((t): t is string => t !== undefined)),
    fields: new Map(Object.entries(isObj(value.custom_fields) ? value.custom_fields : {})),
    doNotContact: new Set(value.do_not_contact === true ? ['all'] : []),
    emailSubscribed: value.email_subscribed !== false,
  };
  const stage = keyOf(value.stage ?? value.stage_id, stages);
  if (stage !== undefined) contact.stage = stage;
  const source = keyOf(value.lead_source ?? value.lead_source_id, leadSources);
  if (source !== undefined) contact.leadSource = source;
  for (const f of ['email', 'phone', 'city', 'state', 'zip_code', 'company', 'job_title'])
    if (value[f] !== undefined && value[f] !== null) contact.fields.set(f, value[f]);
  return contact;
}

/** A copy whose tags, fields and marks change apart from the original's: a simulation path's own contact. */
export const cloneContact = (c: SimContact): SimContact => ({
  ...c,
  tags: new Set(c.tags),
  fields: new Map(c.fields),
  doNotContact: new Set(c.doNotContact),
  ...(c.deal ? { deal: { ...c.deal } } : {}),
});

/** The contact's state as one string: what makes two moments of a simulation the same. */
export const contactState = (c: SimContact) =>
  JSON.stringify([
    [...c.tags].sort(),
    c.stage ?? null,
    [...c.fields].sort(([a], [b]) => (a < b ? -1 : 1)),
    [...c.doNotContact].sort(),
    c.emailSubscribed,
    c.deal ?? null,
  ]);

/** A condition's answer: true, false, or undefined when the model cannot decide it for this contact. */
export function evaluate(node: unknown, c: SimContact): boolean | undefined {
  if (isObj(node) && isObj(node.root) && node.version !== undefined) return evaluate(node.root, c);
  if (isFilterGroup(node)) {
    const children = Array.isArray(node.children) ? node.children.map((x) => evaluate(x, c)) : [];
    if (node.type === 'not') return children[0] === undefined ? undefined : !children[0];
    const decided = children.filter((x) => x !== undefined);
    if (node.type === 'and') return decided.includes(false) ? false : decided.length === children.length ? true : undefined;
    return decided.includes(true) ? true : decided.length === children.length ? false : undefined;
  }
  if (!isFilterCondition(node) || typeof node.field !== 'string' || typeof node.operator !== 'string') return undefined;
  return condition(node.field, node.operator, node.value, c);
}

function condition(field: string, op: string, value: unknown, c: SimContact): boolean | undefined {
  const values = (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
  if (field === 'tags' || field === 'tag' || field === 'tag_id') {
    if (op === 'includes' || op === 'equals' || op === 'contains') return values.length ? values.some((v) => c.tags.has(v)) : undefined;
    if (op === 'excludes' || op === 'not_equals') return values.length ? !values.some((v) => c.tags.has(v)) : undefined;
    return undefined;
  }
  if (field === 'do_not_contact')
    return op === 'is_true' ? c.doNotContact.size > 0 : op === 'is_false' ? c.doNotContact.size === 0 : undefined;
  const actual = field === 'stage' || field === 'stage_id' ? c.stage : c.fields.get(field);
  if (op === 'is_set') return actual !== undefined && actual !== null && actual !== '';
  if (op === 'is_not_set') return actual === undefined || actual === null || actual === '';
  if (actual === undefined) return undefined;
  switch (op) {
    case 'equals':
      return values.length ? values.includes(String(actual)) : actual === value;
    case 'not_equals':
      return values.length ? !values.includes(String(actual)) : actual !== value;
    case 'contains':
      return typeof actual === 'string' && typeof value === 'string' ? actual.toLowerCase().includes(value.toLowerCase()) : undefined;
    case 'greater_than':
      return typeof actual === 'number' && typeof value === 'number' ? actual > value : undefined;
    case 'less_than':
      return typeof actual === 'number' && typeof value === 'number' ? actual < value : undefined;
    case 'is_true':
      return actual === true;
    case 'is_false':
      return actual === false;
    default:
      return undefined;
  }
}
