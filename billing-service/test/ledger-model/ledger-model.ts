/**
 * A small reference model of one customer's ledger on the demo catalogue's BASIC monthly
 * frequency (id 11: 19.99 a month, prorated, + 10.00 setup fee; no address, so no tax; terms
 * Net0, grace period 7 days, auto-cancel 30 days with None, autoCollect off: the demo defaults).
 *
 * Written from README.md ("The billing clock", "Billing rules", "API conventions", "Refunds") and the spec,
 * not from the service's code: no import from src/. Money is whole cents (bigint); every share is
 * an exact rational rounded once, half away from zero (model-arith.ts). The rules it encodes:
 *
 * - Activation (Draft only): one period from today [today, today + 1 month) on the anniversary of
 *   today's day: 19.99 recurring + 10.00 setup fee, posted, due today (Net0).
 * - Anniversary periods: the next start is the anchor day of the next month, clamped to its
 *   length; the anchor is the activation day, moved to the unhold day by ChargeForCurrentFullPeriod.
 * - Billing clock tick, in order: renewals (Active customer, Active subscription: one invoice per
 *   period started on or before today, full price); [no collection: autoCollect off];
 *   reactivation (Suspended, nothing overdue unpaid → Active, NoChargesForMissedPeriods: billing
 *   resumes at the first period start after today); suspension (Active, PoorStanding for 7 days or
 *   more); auto-cancel (Suspended 30 days or more → cancelled with None).
 * - Overdue and PoorStanding: an invoice is overdue from 00:00 UTC of the day after its due date.
 *   It keeps the customer PoorStanding from the later of that and its posting (or its reopening by a
 *   refund, when it owed nothing before) until it owes nothing; overlapping spells are one, and the
 *   grace period counts from the start of the spell running now. Every command runs at noon UTC.
 * - Ledger: posted invoices, payments and credits have an open amount. Posting invoices and
 *   recording credits applies all the funds the customer holds (payments and credits, oldest
 *   first) to open invoices, oldest due first (ties: oldest invoice). A payment with autoAllocate
 *   (default) applies itself the same way; with autoAllocate:false it stays unallocated (until the
 *   next posting or credit); explicit paymentAllocations apply exactly what they name and are
 *   refused (400) when the parts for one invoice add up to more than it owes or all parts to more
 *   than the payment. A declined card payment is a Failed payment and changes no balance.
 * - Cancellation (any status but Cancelled), per invoice with a recurring line running today
 *   (start <= today < end): Full credits the line, Unearned round(line × days left / days of the
 *   line); what was credited against that invoice before is deducted (a period is never reversed
 *   twice). Credits are applied at once.
 * - Uncancel (Cancelled): subscriptions cancelled with the customer (and activated once) come back.
 *   Periods started while cancelled: only the one running today is billed, from today, prorated by
 *   days left / days of that period (in full when it starts today); renewals then at the usual
 *   anniversary. If the period running today was billed before and the cancellation credited its
 *   rest (no covering invoice still holds the rest as of today), today → period end is billed
 *   again, prorated by days left / days of the period; otherwise nothing.
 * - Hold (Active): subscriptions suspended; nothing billed. Unhold (Hold), missed periods = period
 *   starts from the next one up to today: All = one invoice per missed period; Last = only the
 *   latest; None = nothing, billing resumes at the first period start after today; CurrentFull = a
 *   full period from today (anchor moves to today), after crediting the unserved rest of the
 *   replaced period as Unearned does. With `prorate`, the running (last missed) period, when it
 *   started before today, is billed from today: round(19.99 × days left / days of the period).
 */
import { nextAnniversary, partsOf, roundShare } from './model-arith.js';

export const PRICE = 1999n;
export const SETUP_FEE = 1000n;
export const GRACE_DAYS = 7;
export const AUTO_CANCEL_DAYS = 30;

export type Status = 'Draft' | 'Active' | 'Hold' | 'Suspended' | 'Cancelled';
export type CancelOption = 'None' | 'Unearned' | 'Full';
export type StartOption = 'ChargeForAllMissedPeriods' | 'ChargeForLastMissedPeriods' | 'NoChargesForMissedPeriods' | 'ChargeForCurrentFullPeriod';

export interface Line {
  kind: 'Recurring' | 'SetupFee';
  amount: bigint;
  start: number;
  end: number;
}
export interface Invoice {
  amount: bigint;
  open: bigint;
  due: number;
  /** When it last began to owe (posted, or reopened by a refund), in half days (see atNoon). */
  openedAt: number;
  /** When it last came to owe nothing (null: never), in half days. */
  settledAt: number | null;
  lines: Line[];
  /** Credits recorded against this invoice (cancellation, unhold CurrentFull). */
  credited: bigint;
}
export interface Source {
  /** refund: what a refund took from its payment (amount, open 0), in the order of the ledger. */
  kind: 'payment' | 'credit' | 'refund';
  amount: bigint;
  open: bigint;
  invoice?: number;
}
export interface Payment {
  amount: bigint;
  status: 'Succeeded' | 'Failed';
  /** Paid back by refunds so far. */
  refunded: bigint;
  /** index in sources when Succeeded */
  source?: number;
}
export interface Subscription {
  status: 'Draft' | 'Active' | 'Suspended' | 'Cancelled';
  activated: boolean;
  anchor: number;
  periodStart: number | null;
  next: number | null;
  cancelledWithCustomer: boolean;
  /** Day of the month of the activation (the anchor until an unhold with CurrentFull moves it). */
  activatedDay: number | null;
}
export interface Model {
  today: number;
  status: Status;
  statusDay: number;
  sub: Subscription;
  invoices: Invoice[];
  sources: Source[];
  payments: Payment[];
  /** Money a source (payment or credit) put into an invoice, in the order it was allocated. */
  allocations: Allocation[];
}
export interface Allocation {
  source: number;
  invoice: number;
  amount: bigint;
}

export function newModel(today: number): Model {
  return {
    today,
    status: 'Draft',
    statusDay: today,
    sub: { status: 'Draft', activated: false, anchor: partsOf(today).day, periodStart: null, next: null, cancelledWithCustomer: false, activatedDay: null },
    invoices: [],
    sources: [],
    payments: [],
    allocations: [],
  };
}

/** What an operation answers: ok, or refused with a status (and the error key when it matters). */
export type Outcome = { ok: true } | { ok: false; status: number; key?: string };
const OK: Outcome = { ok: true };
const refused = (status = 400, key?: string): Outcome => ({ ok: false, status, ...(key ? { key } : {}) });

// ---------- time ----------

/** Times in half days: 2 × day is 00:00 UTC of that day, 2 × day + 1 its noon, when every command runs. */
const atMidnight = (day: number) => day * 2;
const atNoon = (day: number) => day * 2 + 1;

// ---------- ledger ----------

function openInvoicesOldestDueFirst(m: Model): Invoice[] {
  return m.invoices
    .map((inv, i) => ({ inv, i }))
    .filter((x) => x.inv.open > 0n)
    .sort((a, b) => a.inv.due - b.inv.due || a.i - b.i)
    .map((x) => x.inv);
}

function apply(m: Model, sources: Source[]) {
  for (const source of sources) {
    for (const inv of openInvoicesOldestDueFirst(m)) {
      if (source.open === 0n) break;
      const part = source.open < inv.open ? source.open : inv.open;
      allocate(m, source, m.invoices.indexOf(inv), part);
    }
  }
}

function allocate(m: Model, source: Source, invoice: number, part: bigint) {
  source.open -= part;
  const inv = m.invoices[invoice]!;
  inv.open -= part;
  if (inv.open === 0n) inv.settledAt = atNoon(m.today);
  m.allocations.push({ source: m.sources.indexOf(source), invoice, amount: part });
}

function applyAllFunds(m: Model) {
  apply(m, m.sources.filter((s) => s.open > 0n));
}

function post(m: Model, lines: Line[]) {
  const amount = lines.reduce((a, l) => a + l.amount, 0n);
  m.invoices.push({ amount, open: amount, due: m.today, openedAt: atNoon(m.today), settledAt: null, lines, credited: 0n });
}

function recurring(start: number, end: number, amount = PRICE): Line {
  return { kind: 'Recurring', amount, start, end };
}

/** A period's price from `from` to its end, prorated by days left / days of the period. */
function proratedLine(periodStart: number, end: number, from: number): Line {
  if (from === periodStart) return recurring(periodStart, end);
  return recurring(from, end, roundShare(PRICE, end - from, end - periodStart));
}

/** Period starts from the subscription's next one up to today, and the first one after today. */
function missedStarts(m: Model): { missed: number[]; firstFuture: number } {
  const missed: number[] = [];
  let start = m.sub.next ?? m.today;
  while (start <= m.today) {
    missed.push(start);
    start = nextAnniversary(start, m.sub.anchor);
  }
  return { missed, firstFuture: start };
}

/** Per invoice with recurring lines running today: what the option reverses, less what was credited against it. */
function reversible(m: Model, option: 'Unearned' | 'Full'): Array<{ invoice: number; amount: bigint }> {
  const out: Array<{ invoice: number; amount: bigint }> = [];
  m.invoices.forEach((inv, i) => {
    const running = inv.lines.filter((l) => l.kind === 'Recurring' && l.start <= m.today && m.today < l.end);
    if (running.length === 0) return;
    const total = running.reduce((a, l) => a + (option === 'Full' ? l.amount : roundShare(l.amount, l.end - m.today, l.end - l.start)), 0n);
    const left = total - inv.credited;
    out.push({ invoice: i, amount: left > 0n ? left : 0n });
  });
  return out;
}

function credit(m: Model, option: 'Unearned' | 'Full') {
  const credits = reversible(m, option).filter((r) => r.amount > 0n);
  for (const c of credits) {
    m.sources.push({ kind: 'credit', amount: c.amount, open: c.amount, invoice: c.invoice });
    m.invoices[c.invoice]!.credited += c.amount;
  }
  if (credits.length > 0) applyAllFunds(m);
}

function setStatus(m: Model, status: Status) {
  m.status = status;
  m.statusDay = m.today;
}

// ---------- commands ----------

export function activate(m: Model): Outcome {
  if (m.status !== 'Draft') return refused();
  setStatus(m, 'Active');
  const s = m.sub;
  if (s.status === 'Draft') {
    s.status = 'Active';
    s.activated = true;
    s.anchor = partsOf(m.today).day;
    s.activatedDay = s.anchor;
    s.periodStart = m.today;
    s.next = nextAnniversary(m.today, s.anchor);
    post(m, [recurring(m.today, s.next), { kind: 'SetupFee', amount: SETUP_FEE, start: m.today, end: s.next }]);
    applyAllFunds(m);
  }
  return OK;
}

function renew(m: Model) {
  const s = m.sub;
  if (m.status !== 'Active' || s.status !== 'Active' || s.next === null || s.next > m.today) return;
  while (s.next <= m.today) {
    const end = nextAnniversary(s.next, s.anchor);
    post(m, [recurring(s.next, end)]);
    s.periodStart = s.next;
    s.next = end;
  }
  applyAllFunds(m);
}

function hasUnpaidOverdue(m: Model): boolean {
  return m.invoices.some((inv) => inv.open > 0n && inv.due < m.today);
}

/** Start of the PoorStanding spell running now (null: not PoorStanding). */
function poorStandingSince(m: Model): number | null {
  const now = atNoon(m.today);
  const spells = m.invoices
    .map((inv) => ({ from: Math.max(inv.openedAt, atMidnight(inv.due + 1)), until: inv.open > 0n ? Infinity : (inv.settledAt ?? -Infinity) }))
    .filter((spell) => spell.from <= now && spell.until > spell.from)
    .sort((a, b) => a.from - b.from);
  let running: { from: number; until: number } | null = null;
  for (const spell of spells) {
    if (running && spell.from <= running.until) running.until = Math.max(running.until, spell.until);
    else running = { ...spell };
  }
  return running && running.until > now ? running.from : null;
}

/** One tick of the billing clock on `m.today`. */
export function clockTick(m: Model): Outcome {
  renew(m);
  const since = poorStandingSince(m);
  if (m.status === 'Suspended' && !hasUnpaidOverdue(m)) {
    setStatus(m, 'Active');
    if (m.sub.status === 'Suspended') {
      m.sub.status = 'Active';
      if (m.sub.next !== null && m.sub.next <= m.today) m.sub.next = missedStarts(m).firstFuture;
    }
  } else if (m.status === 'Active' && since !== null && atNoon(m.today) >= since + 2 * GRACE_DAYS) {
    setStatus(m, 'Suspended');
    if (m.sub.status === 'Active') m.sub.status = 'Suspended';
  } else if (m.status === 'Suspended' && m.today >= m.statusDay + AUTO_CANCEL_DAYS) {
    cancel(m, 'None');
  }
  return OK;
}

export function hold(m: Model): Outcome {
  if (m.status !== 'Active') return refused();
  setStatus(m, 'Hold');
  if (m.sub.status === 'Active') m.sub.status = 'Suspended';
  return OK;
}

export function unhold(m: Model, option: StartOption, prorate: boolean): Outcome {
  if (m.status !== 'Hold') return refused();
  const s = m.sub;
  setStatus(m, 'Active');
  if (s.status !== 'Suspended') return OK;
  s.status = 'Active';
  if (option === 'ChargeForCurrentFullPeriod') {
    credit(m, 'Unearned');
    s.anchor = partsOf(m.today).day;
    s.periodStart = m.today;
    s.next = nextAnniversary(m.today, s.anchor);
    post(m, [recurring(m.today, s.next)]);
    applyAllFunds(m);
    return OK;
  }
  const { missed, firstFuture } = missedStarts(m);
  if (option === 'NoChargesForMissedPeriods') {
    s.next = firstFuture;
    return OK;
  }
  const starts = option === 'ChargeForAllMissedPeriods' ? missed : missed.slice(-1);
  starts.forEach((start, i) => {
    const end = nextAnniversary(start, s.anchor);
    const current = i === starts.length - 1 && prorate && start < m.today;
    post(m, [current ? proratedLine(start, end, m.today) : recurring(start, end)]);
    s.periodStart = start;
    s.next = end;
  });
  if (starts.length > 0) applyAllFunds(m);
  return OK;
}

export function cancel(m: Model, option: CancelOption): Outcome {
  if (m.status === 'Cancelled') return refused();
  const s = m.sub;
  if (s.status !== 'Cancelled') {
    s.status = 'Cancelled';
    s.cancelledWithCustomer = true;
    if (option !== 'None') credit(m, option);
  }
  setStatus(m, 'Cancelled');
  return OK;
}

export function uncancel(m: Model): Outcome {
  if (m.status !== 'Cancelled') return refused();
  setStatus(m, 'Active');
  const s = m.sub;
  if (s.status !== 'Cancelled' || !s.cancelledWithCustomer || !s.activated) return OK;
  s.status = 'Active';
  s.cancelledWithCustomer = false;
  if (s.next !== null && s.next <= m.today) {
    // Periods started while cancelled: only the one running today, from today.
    const { missed } = missedStarts(m);
    const start = missed[missed.length - 1]!;
    const end = nextAnniversary(start, s.anchor);
    post(m, [proratedLine(start, end, m.today)]);
    s.periodStart = start;
    s.next = end;
    applyAllFunds(m);
    return OK;
  }
  // The period running today was billed before: billed again from today if its rest was credited.
  const stillPaid = reversible(m, 'Unearned');
  if (stillPaid.length > 0 && stillPaid.every((r) => r.amount === 0n) && s.periodStart !== null && s.next !== null) {
    post(m, [proratedLine(s.periodStart, s.next, m.today)]);
    applyAllFunds(m);
  }
  return OK;
}

export type PaymentMode = 'auto' | 'unallocated';

export function pay(m: Model, cents: bigint, mode: PaymentMode): Outcome {
  const source: Source = { kind: 'payment', amount: cents, open: cents };
  m.sources.push(source);
  m.payments.push({ amount: cents, status: 'Succeeded', refunded: 0n, source: m.sources.length - 1 });
  if (mode === 'auto') apply(m, [source]);
  return OK;
}

/** Explicit allocations (invoice index in m.invoices, cents). */
export function payExplicit(m: Model, cents: bigint, parts: Array<{ invoice: number; cents: bigint }>): Outcome {
  const sums = new Map<number, bigint>();
  for (const [i, part] of parts.entries()) {
    const sum = (sums.get(part.invoice) ?? 0n) + part.cents;
    if (sum > m.invoices[part.invoice]!.open) return refused(400, `paymentAllocations[${i}].amount`);
    sums.set(part.invoice, sum);
  }
  if (parts.reduce((a, p) => a + p.cents, 0n) > cents) return refused(400, 'paymentAllocations');
  const source: Source = { kind: 'payment', amount: cents, open: cents };
  m.sources.push(source);
  m.payments.push({ amount: cents, status: 'Succeeded', refunded: 0n, source: m.sources.length - 1 });
  for (const part of parts) allocate(m, source, part.invoice, part.cents);
  return OK;
}

export function declined(m: Model, cents: bigint): Outcome {
  m.payments.push({ amount: cents, status: 'Failed', refunded: 0n });
  return refused(402, 'declineCode');
}

/**
 * A refund of `cents` of payment `index` (README "Refunds"): refused (400 on originalPaymentId) for a
 * failed payment and (400 on amount) beyond what is left of it. It takes what the payment still holds
 * unallocated first, then undoes its allocations to invoices, newest invoice first (latest due date,
 * then the later invoice, then the later allocation): those invoices owe that much again. Nothing
 * else moves (no other funds are applied to the reopened invoices until the next posting or credit).
 */
export function refund(m: Model, index: number, cents: bigint): Outcome {
  const payment = m.payments[index]!;
  if (payment.status !== 'Succeeded' || payment.source === undefined) return refused(400, 'originalPaymentId');
  if (cents > payment.amount - payment.refunded) return refused(400, 'amount');
  const source = m.sources[payment.source]!;
  const fromOpen = cents < source.open ? cents : source.open;
  source.open -= fromOpen;
  let rest = cents - fromOpen;
  const newestFirst = m.allocations
    .map((a, seq) => ({ a, seq }))
    .filter(({ a }) => a.source === payment.source && a.amount > 0n)
    .sort((x, y) => m.invoices[y.a.invoice]!.due - m.invoices[x.a.invoice]!.due || y.a.invoice - x.a.invoice || y.seq - x.seq);
  for (const { a } of newestFirst) {
    if (rest === 0n) break;
    const part = rest < a.amount ? rest : a.amount;
    a.amount -= part;
    const inv = m.invoices[a.invoice]!;
    if (inv.open === 0n) inv.openedAt = atNoon(m.today);
    inv.open += part;
    rest -= part;
  }
  payment.refunded += cents;
  m.sources.push({ kind: 'refund', amount: cents, open: 0n });
  return OK;
}
