import { Decimal } from 'decimal.js';
import { badRequest } from '../errors.js';

/** Money is decimal strings end to end; floats never touch it. */
const DecimalRounded = Decimal.clone({ rounding: Decimal.ROUND_HALF_UP, precision: 40 });

export function parseMoney(v: string, param: string): Decimal {
  if (!/^\d{1,15}(\.\d+)?$/.test(v)) throw badRequest(`${param} must be a non-negative decimal string`, param);
  return new DecimalRounded(v);
}

export function parseRate(v: string, param: string): Decimal {
  const d = parseMoney(v, param);
  if (d.gt(100)) throw badRequest(`${param} is a percentage and must be at most 100`, param);
  return d;
}

export const fmt = (d: Decimal.Value) => new DecimalRounded(d).toFixed(2);

/** GCI = sale price × commission rate (percent). */
export function grossCommission(salePrice: string, commissionRate: string): string {
  return fmt(new DecimalRounded(salePrice).times(commissionRate).div(100));
}

/** Net = (GCI − referral fee) × (1 − brokerage split − team split) − transaction fees; splits are percents. */
export function netCommission(t: { gross_commission: string; referral_fee: string; brokerage_split_rate: string; team_split_rate: string; transaction_fees: string }): string {
  const base = new DecimalRounded(t.gross_commission).minus(t.referral_fee);
  const keep = new DecimalRounded(1).minus(new DecimalRounded(t.brokerage_split_rate).div(100)).minus(new DecimalRounded(t.team_split_rate).div(100));
  return fmt(base.times(keep).minus(t.transaction_fees));
}

export function parseDateOnly(v: string, param: string): string {
  if (v === '') return '';
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const d = m ? new Date(`${v}T00:00:00.000Z`) : null;
  if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v) throw badRequest(`${param} must be a date as YYYY-MM-DD`, param);
  return v;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
