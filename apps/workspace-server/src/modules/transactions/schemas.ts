// A transaction as every route answers it (the shared schema `Transaction`).
import { updatableColumns } from './store.js';
import { str, ts } from '../../http/schemas.js';

/** What a transaction shows of the deal, contact and closing stage it names: answered after the reference. */
const shown = new Map<string, string[]>([
  ['deal_id', ['deal_name', 'deal_status']],
  ['contact_id', ['contact_first_name', 'contact_last_name', 'contact_email']],
  ['stage_id', ['stage_name']],
]);
/**
 * The answer's text fields: the id, then the columns an update writes but the closing stage (and
 * gci_override, a boolean), each reference followed by what it shows; the closing stage last.
 */
const txnStrings = [
  'id',
  ...updatableColumns.filter((c) => c !== 'gci_override' && c !== 'stage_id').flatMap((c) => [c, ...(shown.get(c) ?? [])]),
  'stage_id',
  ...(shown.get('stage_id') ?? []),
];

export const transactionSchema = {
  $id: 'Transaction',
  type: 'object',
  required: [...txnStrings, 'gci_override', 'document_count', 'created_at', 'updated_at'],
  properties: {
    ...Object.fromEntries(txnStrings.map((k) => [k, str])),
    gci_override: { type: 'boolean' },
    document_count: { type: 'integer' },
    created_at: ts,
    updated_at: ts,
  },
};
