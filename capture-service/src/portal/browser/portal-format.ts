/** How the portal says amounts, dates, frequencies, statuses, cards and changes, in the page's language. */
import type { Card, ChangeLine, ChangeOptions, Interval, PendingChange, Portal } from './portal-model.js';
import { type PortalText, say } from './portal-text.js';

export function money(p: Portal, amount: number, currency: string): string {
  return new Intl.NumberFormat(p.language, { style: 'currency', currency }).format(amount);
}

export function date(p: Portal, value: string): string {
  return new Intl.DateTimeFormat(p.language, { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(value.length === 10 ? `${value}T00:00:00Z` : value),
  );
}

/** "monthly", "every 3 months"… */
export function frequency(p: Portal, interval: Interval, count: number): string {
  const t = p.text;
  if (count === 1) return interval === 'Monthly' ? t.monthly : t.yearly;
  return say(interval === 'Monthly' ? t.everyMonths : t.everyYears, count);
}

export function statusWord(p: Portal, status: string): string {
  const key = `status${status}` as keyof PortalText;
  return typeof p.text[key] === 'string' ? (p.text[key] as string) : status;
}

export function cardLine(p: Portal, card: Card): string {
  const expiry =
    card.expirationMonth && card.expirationYear
      ? `${String(card.expirationMonth).padStart(2, '0')}/${String(card.expirationYear).slice(-2)}`
      : '—';
  return say(p.text.cardEnding, card.brand ?? p.text.card, card.lastFour ?? '••••', expiry);
}

/** The scheduled change in words: the plan and frequency, and the quantities the customer may choose. */
export function describePending(p: Portal, options: ChangeOptions, pending: PendingChange): string {
  const parts = [`${pending.planName}, ${frequency(p, pending.interval, pending.numberOfIntervals)}`];
  for (const q of options.quantities)
    if (pending.quantities[q.productCode] !== undefined) parts.push(`${q.name}: ${pending.quantities[q.productCode]}`);
  return parts.join(', ');
}

export function lineName(p: Portal, line: ChangeLine): string {
  const t = p.text;
  const template = line.chargeType === 'Credit' ? t.lineCredit : line.chargeType === 'SetupFee' ? t.lineSetupFee : t.lineCharge;
  return say(template, line.name, line.quantity);
}
