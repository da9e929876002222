// What a block's config field asks of the author, in their words ("Enter a whole number of
// days"), from the catalog's field descriptor: the note a field shows when its value is not of
// the kind the catalog expects, and the help under it. Core's messages name JSON types and config
// keys (`config.duration … should be an integer`), which is right for the CLI and wrong for a form.
import type { ConfigField } from '@setup-pack/core';
import type { Obj } from './json.js';

const UNITS = ['minutes', 'hours', 'days', 'weeks', 'iterations', 'views'];

/** The unit a number field counts in: the config's own `unit` beside a duration, else the one its label names. */
function unitOf(field: ConfigField, config: Obj): string | undefined {
  if (field.name === 'duration') return typeof config.unit === 'string' && UNITS.includes(config.unit) ? config.unit : undefined;
  const words = field.label.toLowerCase().replace(/[()]/g, ' ').split(/\s+/);
  return UNITS.find((u) => words.includes(u));
}

// "an appointment type", "an email template", but "a user".
const article = (word: string) => (/^[aeio]/.test(word) ? 'an' : 'a');
const typeWords = (ref: string) => ref.replace(/_/g, ' ');

/** What the field asks for, as a sentence without its full stop: "Enter a whole number of days". */
export function fieldAsk(field: ConfigField, config: Obj): string {
  switch (field.type) {
    case 'integer': {
      const unit = unitOf(field, config);
      return unit ? `Enter a whole number of ${unit}` : 'Enter a whole number';
    }
    case 'number':
      return 'Enter a number';
    case 'boolean':
      return 'Tick the box, or leave it clear';
    case 'enum':
      return `Choose one of: ${(field.values ?? []).join(', ')}`;
    case 'ref':
      return `Choose ${article(typeWords(field.ref ?? 'item'))} ${typeWords(field.ref ?? 'item')}, or enter its id`;
    case 'refs':
      return `Enter ${typeWords(field.ref ?? 'item')} ids, separated by commas`;
    case 'strings':
      return 'Enter the values, separated by commas';
    case 'object':
      return field.name === 'conditions' ? 'Build the conditions with the groups and conditions below' : 'Enter a JSON object';
    case 'any':
      return 'Enter a value';
    default:
      return 'Enter text';
  }
}

/** The help line under a field: what it holds, in words (for the fields whose input does not say it already). */
export function fieldHelp(field: ConfigField, config: Obj): string | undefined {
  const parts = [field.help];
  if (field.type === 'integer' || field.type === 'number' || field.type === 'refs' || field.type === 'strings')
    parts.push(`${fieldAsk(field, config)}.`);
  if (field.type === 'ref') parts.push(`${fieldAsk(field, config)}.`);
  return parts.filter(Boolean).join(' ') || undefined;
}
