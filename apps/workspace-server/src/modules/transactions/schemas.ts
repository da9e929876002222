// A transaction as every route answers it (the shared schema `Transaction`).
import { transactionDateFields } from './store.js';
import { str, ts } from '../../http/schemas.js';

const txnStrings = [
  'id',
  'name',
  'side',
  'status',
  'fell_through_reason',
  'deal_id',
  'deal_name',
  'deal_status',
  'contact_id',
  'contact_first_name',
  'contact_last_name',
  'contact_email',
  'listing_key',
  'listing_label',
  'listing_photo_path',
  'sale_price',
  'commission_rate',
  'gross_commission',
  'referral_fee',
  'brokerage_split_rate',
  'team_split_rate',
  'transaction_fees',
  'net_commission',
  ...transactionDateFields,
  'notes',
  'stage_id',
  'stage_name',
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
