import { Decimal } from 'decimal.js';
import { invalidField } from './errors.js';
import { dateProblem } from './timestamps.js';

/** Money is decimal strings end to end; floats never touch it. */
const DecimalRounded = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP, precision: 40 });

/**
 * The one limit on amounts, deals' and transactions' alike: below 10^15, so at most 15 digits
 * before the decimal point (a deal's value column, numeric(18,2), would hold one digit more).
 * Checked on the amount as stored, rounded to 2 decimals.
 */
export const MONEY_LIMIT = new DecimalRounded('1e15');
export const MONEY_LIMIT_WORDS = 'less than 1,000,000,000,000,000 (at most 15 digits before the decimal point)';

function withinMoneyLimit(d: Decimal, param: string): Decimal {
  if (new DecimalRounded(fmt(d)).abs().gte(MONEY_LIMIT))
    throw invalidField(
      param,
      `must be ${d.isNeg() ? 'greater than -1,000,000,000,000,000 (at most 15 digits before the decimal point)' : MONEY_LIMIT_WORDS}`,
    );
  return d;
}

function nonNegativeDecimal(v: string, param: string): Decimal {
  if (!/^\d+(\.\d+)?$/.test(v)) throw invalidField(param, 'must be a non-negative decimal string, such as 350000 or 2.5');
  return new DecimalRounded(v);
}

/** A transaction's amount: a non-negative decimal string within the money limit. */
export function parseMoney(v: string, param: string): Decimal {
  return withinMoneyLimit(nonNegativeDecimal(v, param), param);
}

export function parseRate(v: string, param: string): Decimal {
  const d = nonNegativeDecimal(v, param);
  if (d.gt(100)) throw invalidField(param, 'must be a percentage of at most 100');
  return d;
}

/** A deal's value: a decimal string with at most 2 decimals, negative for credits (the body schema's pattern). */
export const DEAL_VALUE_PATTERN = '^-?\\d+(\\.\\d{1,2})?$';
/** What DEAL_VALUE_PATTERN asks, in words (the schema's `x-pattern-words`, and parseDealValue's error). */
export const DEAL_VALUE_WORDS = 'must be a decimal string with at most 2 decimal places, such as 1250.50 or -20';
export function parseDealValue(v: string, param: string): string {
  if (!new RegExp(DEAL_VALUE_PATTERN).test(v)) throw invalidField(param, DEAL_VALUE_WORDS);
  return fmt(withinMoneyLimit(new DecimalRounded(v), param));
}

export const fmt = (d: Decimal.Value) => new DecimalRounded(d).toFixed(2);

/** GCI = sale price × commission rate (percent). */
export function grossCommission(salePrice: string, commissionRate: string): string {
  return fmt(new DecimalRounded(salePrice).times(commissionRate).div(100));
}

/** Net = (GCI − referral fee) × (1 − brokerage split − team split) − transaction fees; splits are percents. */
export function netCommission(t: {
  gross_commission: string;
  referral_fee: string;
  brokerage_split_rate: string;
  team_split_rate: string;
  transaction_fees: string;
}): string {
  const base = new DecimalRounded(t.gross_commission).minus(t.referral_fee);
  const keep = new DecimalRounded(1)
    .minus(new DecimalRounded(t.brokerage_split_rate).div(100))
    .minus(new DecimalRounded(t.team_split_rate).div(100));
  return fmt(base.times(keep).minus(t.transaction_fees));
}

/** A transaction date: `YYYY-MM-DD` as timestamps.ts states it, or '' (unset). */
export function parseDateOnly(v: string, param: string): string {
  if (v === '') return '';
  const problem = dateProblem(v);
  if (problem) throw invalidField(param, problem);
  return v;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
