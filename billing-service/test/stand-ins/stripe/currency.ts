import { invalidParameter, invalidRequest } from './errors.js';

/**
 * Amounts are integers in the currency's smallest unit (https://docs.stripe.com/currencies): cents for EUR, yen for
 * JPY. The lists below are Stripe's documented zero-decimal and three-decimal currencies and its minimum charge amounts.
 */
const ZERO_DECIMAL = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);
const THREE_DECIMAL = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** Stripe's minimum charge per currency, in the smallest unit; others are assumed to need at least 1 (a guess). */
const MINIMUM: Record<string, number> = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
};

/** Stripe's ceiling for an amount: eight digits. */
const MAXIMUM = 99_999_999;

export function decimalsOf(currency: string): number {
  if (ZERO_DECIMAL.has(currency)) return 0;
  return THREE_DECIMAL.has(currency) ? 3 : 2;
}

/** Stripe lowercases currency codes in its answers and accepts either case. */
export function readCurrency(value: string): string {
  const currency = value.toLowerCase();
  if (!/^[a-z]{3}$/.test(currency)) throw invalidParameter('currency', `Invalid currency: ${value}`, 'parameter_invalid');
  return currency;
}

/** Exact display of an amount for messages: integer digits only, no floating point. */
export function formatAmount(amount: number, currency: string): string {
  const decimals = decimalsOf(currency);
  if (decimals === 0) return `${amount} ${currency}`;
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  const sign = amount < 0 ? '-' : '';
  return `${sign}${digits.slice(0, -decimals)}.${digits.slice(-decimals)} ${currency}`;
}

export function checkChargeAmount(amount: number, currency: string): void {
  const minimum = MINIMUM[currency] ?? 1;
  if (amount < minimum) {
    throw invalidRequest(`Amount must be at least ${formatAmount(minimum, currency)}`, 'amount_too_small', 'amount');
  }
  if (amount > MAXIMUM) {
    throw invalidRequest(`Amount must be no more than ${formatAmount(MAXIMUM, currency)}`, 'amount_too_large', 'amount');
  }
  // Card issuers take three-decimal amounts rounded to tens (Stripe: "the last digit must be 0").
  if (THREE_DECIMAL.has(currency) && amount % 10 !== 0) {
    throw invalidRequest(`Amounts in ${currency} must be divisible by 10`, 'invalid_amount', 'amount');
  }
}
