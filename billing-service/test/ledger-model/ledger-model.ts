/**
 * A small reference model of one customer's ledger in USD, JPY or BHD (money in the currency's minor
 * unit): one to three subscriptions of the BASIC plan (frequencies of 1, 2 and 3 months and 2 years)
 * or the PLUS plan (monthly, yearly), SEAT × quantity (FREQUENCIES; BASIC monthly is the demo
 * catalogue's, the others are added by the test's catalogue), each with coupons in a given order
 * (COUPONS), billed on the customer's billing period rule per interval (SingleInvoice or
 * MultipleInvoices, anchored on the customer's activation), and their plan changes (changePlan at
 * the end: now, at the period end, withdrawn). No address, so no tax; terms Net0, grace period 7
 * days, auto-cancel 30 days with None, autoCollect off (the demo defaults: so a change's invoice is
 * not collected, only paid by the funds held).
 *
 * Written from README.md ("The billing clock", "Billing rules", "API conventions", "Refunds", "Plan changes"), the
 * invoice engine's README (periods, proration, discounts, coupons, invoices) and the spec, not from
 * the service's code: no import from src/. Money is whole cents (bigint); every share is an exact
 * rational rounded once, half away from zero (model-arith.ts). The rules it encodes:
 *
 * - Periods: a frequency of N months (N years = 12·N months) runs from the anniversary in steps of N
 *   months: the next start is N months on, on the anchor day, clamped to the month's length. The
 *   anchor is the activation day, moved to the unhold day by ChargeForCurrentFullPeriod.
 * - Lines: per subscription (ascending), its Recurring line then its SetupFee line (first invoice
 *   only, never discounted, none when 0). A line for part of a period (from a day after its start)
 *   costs round(price × days left / days of the period).
 * - Coupons, per recurring line, in the subscription's input order: a coupon is active while
 *   unused (Once), used fewer than `periods` times (Periods), always (Forever); each active one counts
 *   one use on every invoice of its subscription, whatever it comes to. Percentage: round(value % ×
 *   the line's amount before any discount); Amount: its value, not prorated; each capped at what is
 *   left of the line; one that comes to 0 is not listed. Name: the coupon's name, else its code.
 * - Invoices: one billing operation (an activation, a clock tick's renewals, an unhold, an uncancel)
 *   bills on today, round by round: round k holds each subscription's k-th period to bill (a
 *   subscription that missed three periods has one in each of the first three rounds). In a round,
 *   SingleInvoice puts every subscription of the interval on one invoice (Monthly and Yearly share it
 *   when both are SingleInvoice), MultipleInvoices gives each its own; invoices in order of their
 *   first subscription. A posted invoice is due today (Net0).
 * - Activation (Draft only): every Draft subscription starts a full period today, with its setup fee;
 *   posted, or left Draft with temporarilyDisableAutoPost (the subscriptions move on all the same).
 * - Billing clock tick, in order: renewals (Active customer, Active subscriptions: every period
 *   started on or before today, full price; first a change pending for a due subscription, effective
 *   by today, applies: the renewal bills the new plan); [no collection: autoCollect off]; reactivation
 *   (Suspended, nothing overdue unpaid → Active, NoChargesForMissedPeriods: billing resumes at the
 *   first period start after today); suspension (Active, PoorStanding for 7 days or more);
 *   auto-cancel (Suspended 30 days or more → cancelled with None).
 * - Overdue and PoorStanding: a posted invoice is overdue from 00:00 UTC of the day after its due
 *   date. It keeps the customer PoorStanding from the later of that and its posting (or its
 *   reopening by a refund, when it owed nothing before) until it owes nothing; overlapping spells are
 *   one, and the grace period counts from the start of the spell running now. Every command runs at
 *   noon UTC (a draft posted later opens then).
 * - Ledger: posted invoices, payments and credits have an open amount; a Draft invoice is not owed
 *   (no open amount, no dunning) until posted. Posting invoices and recording credits applies all
 *   the funds the customer holds (payments and credits, oldest first) to open invoices, oldest due
 *   first (ties, which the README leaves open: the one posted first, so a draft posted later comes
 *   after the invoices posted before it). A payment with autoAllocate (default) applies itself the
 *   same way; with autoAllocate:false it stays unallocated (until the next posting or credit); explicit
 *   paymentAllocations apply exactly what they name and are refused (400) when the parts for one
 *   invoice add up to more than it owes or all parts to more than the payment. A declined card
 *   payment is a Failed payment and changes no balance. Posting a draft (POST /v1/invoices/{id}/post)
 *   keeps its dates and applies held money; posting anything else is refused.
 * - Cancellation (any status but Cancelled), per posted invoice, over its recurring lines of the
 *   period running today (start <= today < end, and not a period an unhold with CurrentFull replaced:
 *   that one ended on the unhold day): Full reverses a line's net amount (after discounts), Unearned
 *   round(net × days left / days of the line), less what was credited for that line before (a period
 *   is never reversed twice); one credit per invoice, applied at once.
 * - Uncancel (Cancelled): subscriptions cancelled with the customer (and activated once) come back.
 *   Periods started while cancelled: only the one running today is billed, from today to the end of
 *   that period (the anniversary stays), prorated by days left / days of the period (in full when it
 *   starts today). If the period running today was billed before and this cancellation credited its
 *   rest (Unearned or Full, an amount above 0 on that period's own lines), today → period end is
 *   billed again, prorated; otherwise (None, a rest worth nothing, a period whose invoice is still a
 *   Draft) nothing is billed.
 * - Purchases (README "Purchases"): a one-time charge (quantity × unit price, whole minor units). A Draft
 *   customer's is Draft: activation with activateAllDraftPurchases bills every Draft one on its first invoice (in
 *   the order of the subscriptions' invoices; an invoice of its own when no subscription is billed), after the
 *   plan lines; without it they stay Draft. An Active customer's is Pending, billed on the first invoice of the
 *   next renewal (only a renewal that bills something), or with invoiceNow at once on an invoice of its own, posted
 *   and due today (taking the funds held; autoCollect off, so nothing is charged). invoiceNow of a Draft customer:
 *   409 on invoiceNow; a customer on hold, suspended or cancelled: 409 on customerId. Never discounted, never
 *   credited by a cancellation (not a recurring line). A purchase line's service dates are its invoice's day.
 * - Hold (Active): subscriptions suspended; nothing billed. Unhold (Hold), missed periods = period
 *   starts from the next one up to today: All = one per missed period; Last = only the latest; None
 *   = nothing, billing resumes at the first period start after today; CurrentFull = a full period from
 *   today (the anchor moves to today), after crediting the unserved rest of the replaced period as
 *   Unearned does. With `prorate`, the running (last missed) period, when it started before today,
 *   is billed from today to its end. temporarilyDisableAutoPost leaves the invoices Draft.
 */
import { addMonthsAnchored, partsOf, roundShare } from './model-arith.js';

export const GRACE_DAYS = 7;
export const AUTO_CANCEL_DAYS = 30;

export type Interval = 'Monthly' | 'Yearly';
export type InvoiceRule = 'SingleInvoice' | 'MultipleInvoices';

/** The currencies of the model's catalogue and their minor units (ISO 4217). */
export type Currency = 'USD' | 'JPY' | 'BHD';
export const CURRENCIES: readonly Currency[] = ['USD', 'JPY', 'BHD'];
export const DIGITS: Record<Currency, number> = { USD: 2, JPY: 0, BHD: 3 };

/**
 * The model's plans, each of one product (SEAT) with the quantity bounds a plan change checks (a new
 * subscription has 1). Switches between plans: BASIC → PLUS only (planChanges.allowed); any frequency of the
 * same plan; PRO (of the demo catalogue) from neither.
 */
export type PlanCode = 'BASIC' | 'PLUS' | 'PRO';
export const PLAN_SEATS: Record<PlanCode, { min: number; max: number }> = {
  BASIC: { min: 1, max: 10 },
  PLUS: { min: 1, max: 20 },
  PRO: { min: 1, max: 50 },
};
export function switchAllowed(from: PlanCode, to: PlanCode): boolean {
  return from === to || (from === 'BASIC' && to === 'PLUS');
}

/** A plan frequency (one product, SEAT × quantity), prorated; prices and setup fees per unit in minor units. */
export interface Frequency {
  id: number;
  plan: PlanCode;
  interval: Interval;
  numberOfIntervals: number;
  /** Months per period. */
  months: number;
  prices: Record<Currency, bigint>;
  setupFees: Record<Currency, bigint>;
}

const noFee = { USD: 0n, JPY: 0n, BHD: 0n };
/** BASIC monthly (11) is the demo catalogue's (with JPY and BHD prices added); the others are the model catalogue's. */
export const FREQUENCIES: readonly Frequency[] = [
  {
    id: 11,
    plan: 'BASIC',
    interval: 'Monthly',
    numberOfIntervals: 1,
    months: 1,
    prices: { USD: 1999n, JPY: 2980n, BHD: 7125n },
    setupFees: { USD: 1000n, JPY: 1500n, BHD: 3750n },
  },
  {
    id: 13,
    plan: 'BASIC',
    interval: 'Monthly',
    numberOfIntervals: 2,
    months: 2,
    prices: { USD: 3749n, JPY: 5600n, BHD: 13370n },
    setupFees: noFee,
  },
  {
    id: 14,
    plan: 'BASIC',
    interval: 'Monthly',
    numberOfIntervals: 3,
    months: 3,
    prices: { USD: 5499n, JPY: 8250n, BHD: 19875n },
    setupFees: { USD: 500n, JPY: 750n, BHD: 1875n },
  },
  {
    id: 15,
    plan: 'BASIC',
    interval: 'Yearly',
    numberOfIntervals: 2,
    months: 24,
    prices: { USD: 37900n, JPY: 56800n, BHD: 142500n },
    setupFees: noFee,
  },
  {
    id: 41,
    plan: 'PLUS',
    interval: 'Monthly',
    numberOfIntervals: 1,
    months: 1,
    prices: { USD: 2999n, JPY: 4480n, BHD: 11333n },
    setupFees: noFee,
  },
  {
    id: 42,
    plan: 'PLUS',
    interval: 'Yearly',
    numberOfIntervals: 1,
    months: 12,
    prices: { USD: 29900n, JPY: 44800n, BHD: 113000n },
    setupFees: noFee,
  },
];
/** The demo catalogue's PRO monthly: a target no switch allows (priced in USD only). */
export const PRO_MONTHLY = 21;

export interface Coupon {
  code: string;
  name?: string;
  kind: 'Percentage' | 'Amount';
  /** Percent (Percentage) or cents (Amount). */
  value: bigint;
  duration: 'Once' | 'Periods' | 'Forever';
  periods?: number;
}

/** The demo catalogue's two coupons, and three the test's catalogue adds. */
export const COUPONS: readonly Coupon[] = [
  { code: 'WELCOME10', name: '10% off the first period', kind: 'Percentage', value: 10n, duration: 'Once' },
  { code: 'FIVEOFF', name: '5 off for three months', kind: 'Amount', value: 500n, duration: 'Periods', periods: 3 },
  { code: 'FREE100', name: 'Free forever', kind: 'Percentage', value: 100n, duration: 'Forever' },
  { code: 'FIRSTFREE', name: 'First period free', kind: 'Percentage', value: 100n, duration: 'Once' },
  { code: 'HALF2', kind: 'Percentage', value: 50n, duration: 'Periods', periods: 2 },
];

export interface Setup {
  /** Created in this order (ascending ids); coupons in the order given. */
  subscriptions: Array<{ frequencyId: number; coupons: string[] }>;
  rules: Record<Interval, InvoiceRule>;
  /** The customer's currency (default USD). */
  currency?: Currency;
}
export const ONE_MONTHLY: Setup = {
  subscriptions: [{ frequencyId: 11, coupons: [] }],
  rules: { Monthly: 'SingleInvoice', Yearly: 'SingleInvoice' },
};

export type Status = 'Draft' | 'Active' | 'Hold' | 'Suspended' | 'Cancelled';
export type CancelOption = 'None' | 'Unearned' | 'Full';
export type StartOption =
  | 'ChargeForAllMissedPeriods'
  | 'ChargeForLastMissedPeriods'
  | 'NoChargesForMissedPeriods'
  | 'ChargeForCurrentFullPeriod';

export interface Discount {
  name: string;
  amount: bigint;
}
export interface Line {
  /** The subscription's index in Model.subs. */
  sub: number;
  /** Credit: a plan change's credit of the unused part of a running line (negative amount). Purchase: sub is -1. */
  kind: 'Recurring' | 'SetupFee' | 'Credit' | 'Purchase';
  amount: bigint;
  discounts: Discount[];
  start: number;
  end: number;
  /** Credits recorded for this line (cancellation, unhold CurrentFull). */
  credited: bigint;
  /** The day an unhold with CurrentFull or a plan change now ended it early (a new period or plan started): no longer current from then. */
  cut?: number;
}
/** A line of a plan change's invoice (credits and the new charge). */
export type ChangeLine = Line;
export interface Invoice {
  /** Below 0 for a plan change's invoice whose credits exceed its charges (nothing owed on it: open 0). */
  amount: bigint;
  /** What is owed on it; a draft owes nothing until posted. */
  open: bigint;
  due: number;
  lines: ChangeLine[];
  posted: boolean;
  /** Order of posting (the ledger's order): ties of the due date are paid in it. */
  postedSeq: number;
  /** When it last began to owe (posted, or reopened by a refund), in half days (see atNoon). */
  openedAt: number;
  /** When it last came to owe nothing (null: never), in half days. */
  settledAt: number | null;
  /** Closed (issue 40): voided, or written off; `closing`: its void or write_off source (index in sources). */
  closed?: { kind: 'void' | 'write_off'; closing: number };
}
export interface Source {
  /**
   * refund: what a refund took from its payment (amount, open 0), in the order of the ledger. void, write_off: what
   * closed an invoice (amount: what it owed then, open 0; a write-off grows by what a refund takes back of a payment to it).
   */
  kind: 'payment' | 'credit' | 'refund' | 'void' | 'write_off';
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
  index: number;
  freq: Frequency;
  quantity: number;
  /**
   * lastPeriod, lastPeriodEnd: the start and the end of the period the coupon's last use discounted (null: never
   * used). Both: a frequency switch on the day a period began starts another period on the same day.
   */
  coupons: Array<{ coupon: Coupon; used: number; lastPeriod: number | null; lastPeriodEnd: number | null }>;
  /** A plan change scheduled for the period end: applied by the renewal of `effective` (or a later one). */
  pending: { freq: Frequency; quantity: number; effective: number } | null;
  status: 'Draft' | 'Active' | 'Suspended' | 'Cancelled';
  activated: boolean;
  anchor: number;
  periodStart: number | null;
  next: number | null;
  cancelledWithCustomer: boolean;
  /** What the last cancellation credited for the lines of the period running then (0 with None). */
  creditedAtCancel: bigint;
  /** The option of the last cancellation (null: never cancelled). */
  cancelOption: CancelOption | null;
}
export interface Model {
  today: number;
  currency: Currency;
  status: Status;
  statusDay: number;
  rules: Record<Interval, InvoiceRule>;
  subs: Subscription[];
  invoices: Invoice[];
  sources: Source[];
  payments: Payment[];
  /** Money a source (payment or credit) put into an invoice, in the order it was allocated. */
  allocations: Allocation[];
  /** One-time purchases, in the order made (minor units). */
  purchases: Array<{ amount: bigint; status: 'Draft' | 'Pending' | 'Invoiced' }>;
}
export interface Allocation {
  source: number;
  invoice: number;
  amount: bigint;
}

export function frequencyOf(id: number): Frequency {
  const f = FREQUENCIES.find((x) => x.id === id);
  if (!f) throw new Error(`no frequency ${id} in the model`);
  return f;
}

export function couponOf(code: string): Coupon {
  const c = COUPONS.find((x) => x.code === code);
  if (!c) throw new Error(`no coupon ${code} in the model`);
  return c;
}

export function newModel(today: number, setup: Setup = ONE_MONTHLY): Model {
  return {
    today,
    currency: setup.currency ?? 'USD',
    status: 'Draft',
    statusDay: today,
    rules: { ...setup.rules },
    subs: setup.subscriptions.map((s, index) => ({
      index,
      freq: frequencyOf(s.frequencyId),
      quantity: 1,
      coupons: s.coupons.map((code) => ({ coupon: couponOf(code), used: 0, lastPeriod: null, lastPeriodEnd: null })),
      pending: null,
      status: 'Draft',
      activated: false,
      anchor: partsOf(today).day,
      periodStart: null,
      next: null,
      cancelledWithCustomer: false,
      creditedAtCancel: 0n,
      cancelOption: null,
    })),
    invoices: [],
    sources: [],
    payments: [],
    allocations: [],
    purchases: [],
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
    .filter((x) => x.inv.posted && x.inv.open > 0n)
    .sort((a, b) => a.inv.due - b.inv.due || a.inv.postedSeq - b.inv.postedSeq)
    .map((x) => x.inv);
}

function apply(m: Model, sources: Source[]) {
  for (const source of sources) {
    for (const inv of openInvoicesOldestDueFirst(m)) {
      if (source.open === 0n) break;
      // biome-ignore lint/complexity/useMathMinMax: bigint minor units (Math.min takes numbers only)
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
  apply(
    m,
    m.sources.filter((s) => s.open > 0n),
  );
}

function nextPostedSeq(m: Model): number {
  return m.invoices.reduce((max, inv) => Math.max(max, inv.postedSeq), 0) + 1;
}

export function netOf(line: ChangeLine): bigint {
  return line.amount - line.discounts.reduce((a, d) => a + d.amount, 0n);
}

// ---------- periods and billing ----------

function nextStart(s: Subscription, start: number): number {
  return addMonthsAnchored(start, s.freq.months, s.anchor);
}

/** Period starts from the subscription's next one up to today, and the first one after today. */
function missedStarts(m: Model, s: Subscription): { missed: number[]; firstFuture: number } {
  const missed: number[] = [];
  let start = s.next ?? m.today;
  while (start <= m.today) {
    missed.push(start);
    start = nextStart(s, start);
  }
  return { missed, firstFuture: start };
}

function couponIsActive(c: { coupon: Coupon; used: number }): boolean {
  if (c.coupon.duration === 'Once') return c.used === 0;
  if (c.coupon.duration === 'Periods') return c.used < (c.coupon.periods ?? 0);
  return true;
}

/** The discounts of the subscription's active coupons on a recurring line of `amount` for the period [periodStart, periodEnd); each counts one use. */
function couponDiscounts(s: Subscription, amount: bigint, periodStart: number, periodEnd: number): Discount[] {
  let left = amount;
  const out: Discount[] = [];
  for (const c of s.coupons) {
    if (!couponIsActive(c)) continue;
    c.used++;
    c.lastPeriod = periodStart;
    c.lastPeriodEnd = periodEnd;
    let d = c.coupon.kind === 'Percentage' ? roundShare(amount, Number(c.coupon.value), 100) : c.coupon.value;
    if (d > left) d = left;
    left -= d;
    if (d > 0n) out.push({ name: c.coupon.name ?? c.coupon.code, amount: d });
  }
  return out;
}

/** One subscription's period to bill: [periodStart, end), charged from `from` (prorated when later). */
interface Item {
  sub: Subscription;
  periodStart: number;
  end: number;
  from: number;
  setupFee: boolean;
}

function invoiceGroup(m: Model, s: Subscription): string {
  const own = m.rules[s.freq.interval];
  if (own === 'MultipleInvoices') return `subscription ${s.index}`;
  const other = m.rules[s.freq.interval === 'Monthly' ? 'Yearly' : 'Monthly'];
  return other === 'SingleInvoice' ? 'single' : s.freq.interval;
}

/** Bills the rounds of one operation (see "Invoices" above) and `purchases` on its first invoice; posted ones take the funds held. */
function bill(m: Model, rounds: Item[][], post: boolean, purchases: Model['purchases'] = []) {
  const invoiceLines: Line[][] = [];
  for (const round of rounds) {
    const groups = new Map<string, Item[]>();
    for (const item of [...round].sort((a, b) => a.sub.index - b.sub.index)) {
      const key = invoiceGroup(m, item.sub);
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    for (const items of groups.values()) {
      const lines: Line[] = [];
      for (const { sub, periodStart, end, from, setupFee } of items) {
        const price = BigInt(sub.quantity) * sub.freq.prices[m.currency];
        const amount = from === periodStart ? price : roundShare(price, end - from, end - periodStart);
        lines.push({
          sub: sub.index,
          kind: 'Recurring',
          amount,
          discounts: couponDiscounts(sub, amount, periodStart, end),
          start: from,
          end,
          credited: 0n,
        });
        const fee = BigInt(sub.quantity) * sub.freq.setupFees[m.currency];
        if (setupFee && fee > 0n)
          lines.push({ sub: sub.index, kind: 'SetupFee', amount: fee, discounts: [], start: from, end, credited: 0n });
        sub.periodStart = periodStart;
        sub.next = end;
      }
      invoiceLines.push(lines);
    }
  }
  if (purchases.length > 0) {
    if (invoiceLines.length === 0) invoiceLines.push([]);
    for (const p of purchases) {
      invoiceLines[0]!.push({ sub: -1, kind: 'Purchase', amount: p.amount, discounts: [], start: m.today, end: m.today, credited: 0n });
      p.status = 'Invoiced';
    }
  }
  for (const lines of invoiceLines) {
    const amount = lines.reduce((a, l) => a + netOf(l), 0n);
    m.invoices.push({
      amount,
      open: amount,
      due: m.today,
      lines,
      posted: post,
      postedSeq: post ? nextPostedSeq(m) : 0,
      openedAt: atNoon(m.today),
      settledAt: amount === 0n ? atNoon(m.today) : null,
    });
  }
  if (invoiceLines.length > 0 && post) applyAllFunds(m);
}

/**
 * Credits the subscriptions' lines running today on posted invoices as `option` says, less what was
 * credited for each line before: one credit per invoice. Returns what each subscription got for the
 * lines of its current period (not for the rest of a period an unhold with CurrentFull replaced).
 */
function credit(m: Model, option: 'Unearned' | 'Full', subs: Subscription[]): Map<number, bigint> {
  const bySub = new Map<number, bigint>();
  const indexes = new Set(subs.map((s) => s.index));
  const sourcesBefore = m.sources.length;
  m.invoices.forEach((inv, i) => {
    if (!inv.posted || inv.closed) return;
    let sum = 0n;
    for (const l of inv.lines) {
      if (l.kind !== 'Recurring' || !indexes.has(l.sub) || !runsToday(m, l)) continue;
      const net = netOf(l);
      const target = option === 'Full' ? net : roundShare(net, l.end - m.today, l.end - l.start);
      const left = target - l.credited;
      if (left <= 0n) continue;
      l.credited += left;
      sum += left;
      const s = m.subs[l.sub]!;
      if (s.periodStart !== null && s.next !== null && l.start >= s.periodStart && l.end <= s.next)
        bySub.set(l.sub, (bySub.get(l.sub) ?? 0n) + left);
    }
    if (sum > 0n) m.sources.push({ kind: 'credit', amount: sum, open: sum, invoice: i });
  });
  if (m.sources.length > sourcesBefore) applyAllFunds(m);
  return bySub;
}

/** A line of the period running today: started, not ended, not replaced by a CurrentFull unhold. */
function runsToday(m: Model, l: Line): boolean {
  return l.start <= m.today && m.today < (l.cut ?? l.end);
}

function setStatus(m: Model, status: Status) {
  m.status = status;
  m.statusDay = m.today;
}

// ---------- commands ----------

export function activate(m: Model, post = true, withPurchases = false): Outcome {
  if (m.status !== 'Draft') return refused();
  setStatus(m, 'Active');
  const items: Item[] = [];
  for (const s of m.subs) {
    if (s.status !== 'Draft') continue;
    s.status = 'Active';
    s.activated = true;
    s.anchor = partsOf(m.today).day;
    items.push({ sub: s, periodStart: m.today, end: nextStart(s, m.today), from: m.today, setupFee: true });
  }
  bill(m, items.length > 0 ? [items] : [], post, withPurchases ? m.purchases.filter((p) => p.status === 'Draft') : []);
  return OK;
}

/** A one-time purchase of `amount` (see "Purchases" above). */
export function purchase(m: Model, amount: bigint, invoiceNow: boolean): Outcome {
  if (m.status === 'Draft') {
    if (invoiceNow) return refused(409, 'invoiceNow');
    m.purchases.push({ amount, status: 'Draft' });
    return OK;
  }
  if (m.status !== 'Active') return refused(409, 'customerId');
  const made: Model['purchases'][number] = { amount, status: 'Pending' };
  m.purchases.push(made);
  if (invoiceNow) bill(m, [], true, [made]);
  return OK;
}

function renew(m: Model) {
  if (m.status !== 'Active') return;
  // Plan changes scheduled for a period end up to today apply first (due subscriptions only): the renewal bills the new plan.
  for (const s of m.subs) {
    if (s.status !== 'Active' || s.next === null || s.next > m.today || !s.pending || s.pending.effective > m.today) continue;
    s.freq = s.pending.freq;
    s.quantity = s.pending.quantity;
    s.pending = null;
  }
  const rounds: Item[][] = [];
  for (const s of m.subs) {
    if (s.status !== 'Active' || s.next === null) continue;
    for (const [k, start] of missedStarts(m, s).missed.entries()) {
      rounds[k] ??= [];
      rounds[k].push({ sub: s, periodStart: start, end: nextStart(s, start), from: start, setupFee: false });
    }
  }
  // the Pending purchases ride on the renewal's first invoice; a renewal that bills nothing takes none
  bill(m, rounds, true, rounds.length > 0 ? m.purchases.filter((p) => p.status === 'Pending') : []);
}

function hasUnpaidOverdue(m: Model): boolean {
  return m.invoices.some((inv) => inv.posted && inv.open > 0n && inv.due < m.today);
}

/** Start of the PoorStanding spell running now (null: not PoorStanding). */
function poorStandingSince(m: Model): number | null {
  const now = atNoon(m.today);
  const spells = m.invoices
    .filter((inv) => inv.posted)
    .map((inv) => ({
      from: Math.max(inv.openedAt, atMidnight(inv.due + 1)),
      until: inv.open > 0n ? Infinity : (inv.settledAt ?? -Infinity),
    }))
    .filter((spell) => spell.from <= now && spell.until > spell.from)
    .sort((a, b) => a.from - b.from);
  let running: { from: number; until: number } | null = null;
  for (const spell of spells) {
    if (running && spell.from <= running.until) running.until = Math.max(running.until, spell.until);
    else running = { ...spell };
  }
  return running && running.until > now ? running.from : null;
}

/** Suspended → Active when nothing overdue is unpaid (NoChargesForMissedPeriods: billing resumes at the next period start). */
function reactivateIfPaid(m: Model): boolean {
  if (m.status !== 'Suspended' || hasUnpaidOverdue(m)) return false;
  setStatus(m, 'Active');
  for (const s of m.subs) {
    if (s.status !== 'Suspended') continue;
    s.status = 'Active';
    if (s.next !== null && s.next <= m.today) s.next = missedStarts(m, s).firstFuture;
  }
  return true;
}

/** One tick of the billing clock on `m.today`. */
export function clockTick(m: Model): Outcome {
  renew(m);
  const since = poorStandingSince(m);
  if (reactivateIfPaid(m)) return OK;
  if (m.status === 'Active' && since !== null && atNoon(m.today) >= since + 2 * GRACE_DAYS) {
    setStatus(m, 'Suspended');
    for (const s of m.subs) if (s.status === 'Active') s.status = 'Suspended';
  } else if (m.status === 'Suspended' && m.today >= m.statusDay + AUTO_CANCEL_DAYS) {
    cancel(m, 'None');
  }
  return OK;
}

export function hold(m: Model): Outcome {
  if (m.status !== 'Active') return refused();
  setStatus(m, 'Hold');
  for (const s of m.subs) if (s.status === 'Active') s.status = 'Suspended';
  return OK;
}

export function unhold(m: Model, option: StartOption, prorate: boolean, post = true): Outcome {
  if (m.status !== 'Hold') return refused();
  setStatus(m, 'Active');
  const subs = m.subs.filter((s) => s.status === 'Suspended');
  for (const s of subs) s.status = 'Active';
  if (subs.length === 0) return OK;
  if (option === 'ChargeForCurrentFullPeriod') {
    credit(m, 'Unearned', subs);
    // The replaced period ends today (its rest was just credited): a later cancellation reverses the new
    // period, not the old one's served days. A draft's line was not credited and keeps its dates.
    const unheld = new Set(subs.map((s) => s.index));
    for (const inv of m.invoices) {
      if (!inv.posted || inv.closed) continue;
      for (const l of inv.lines) if (l.kind === 'Recurring' && unheld.has(l.sub) && runsToday(m, l)) l.cut = m.today;
    }
    const items = subs.map((s): Item => {
      s.anchor = partsOf(m.today).day;
      return { sub: s, periodStart: m.today, end: nextStart(s, m.today), from: m.today, setupFee: false };
    });
    bill(m, [items], post);
    return OK;
  }
  const rounds: Item[][] = [];
  for (const s of subs) {
    const { missed, firstFuture } = missedStarts(m, s);
    if (option === 'NoChargesForMissedPeriods') {
      s.next = firstFuture;
      continue;
    }
    const starts = option === 'ChargeForAllMissedPeriods' ? missed : missed.slice(-1);
    starts.forEach((start, k) => {
      const running = k === starts.length - 1 && prorate && start < m.today;
      rounds[k] ??= [];
      rounds[k].push({ sub: s, periodStart: start, end: nextStart(s, start), from: running ? m.today : start, setupFee: false });
    });
  }
  bill(m, rounds, post);
  return OK;
}

export function cancel(m: Model, option: CancelOption): Outcome {
  if (m.status === 'Cancelled') return refused();
  const subs = m.subs.filter((s) => s.status !== 'Cancelled');
  const credited = option === 'None' ? new Map<number, bigint>() : credit(m, option, subs);
  for (const s of subs) {
    s.status = 'Cancelled';
    s.cancelledWithCustomer = true;
    s.creditedAtCancel = credited.get(s.index) ?? 0n;
    s.cancelOption = option;
  }
  setStatus(m, 'Cancelled');
  return OK;
}

export function uncancel(m: Model): Outcome {
  if (m.status !== 'Cancelled') return refused();
  setStatus(m, 'Active');
  const items: Item[] = [];
  for (const s of m.subs) {
    if (s.status !== 'Cancelled' || !s.cancelledWithCustomer || !s.activated) continue;
    s.status = 'Active';
    s.cancelledWithCustomer = false;
    if (s.next !== null && s.next <= m.today) {
      // Periods started while cancelled: only the one running today, from today to its end.
      const { missed } = missedStarts(m, s);
      const start = missed[missed.length - 1]!;
      items.push({ sub: s, periodStart: start, end: nextStart(s, start), from: m.today, setupFee: false });
    } else if (s.periodStart !== null && s.next !== null && restUnbilled(m, s)) {
      // The period running today was billed and its rest credited, or its invoice voided: billed again from today.
      items.push({ sub: s, periodStart: s.periodStart, end: s.next, from: m.today, setupFee: false });
    }
  }
  bill(m, [items], true);
  return OK;
}

/**
 * Whether the rest of the period running today stands unbilled, so an uncancel bills it again. The last posted line
 * to bill that period decides (earlier ones were credited by a cancellation and billed again since): on a void
 * invoice (issue 40) the period counts as not billed; on a written-off one it was billed (the merchant gave up
 * collecting it); on a standing one, unbilled if the cancellation was one that credits (Unearned, Full) and the line
 * carries credits: the cancellation's, or a credit note's that left the cancellation nothing to credit (issue 40).
 */
function restUnbilled(m: Model, s: Subscription): boolean {
  const last = m.invoices
    .filter((inv) => inv.posted)
    .flatMap((inv) => inv.lines.map((line) => ({ inv, line })))
    .filter(
      ({ line: l }) =>
        l.kind === 'Recurring' && l.sub === s.index && runsToday(m, l) && (s.periodStart === null || l.start >= s.periodStart),
    )
    .at(-1);
  if (last === undefined) return false;
  if (last.inv.closed) return last.inv.closed.kind === 'void';
  return (s.cancelOption === 'Unearned' || s.cancelOption === 'Full') && last.line.credited > 0n;
}

export type PaymentMode = 'auto' | 'unallocated';

export function pay(m: Model, cents: bigint, mode: PaymentMode): Outcome {
  const source: Source = { kind: 'payment', amount: cents, open: cents };
  m.sources.push(source);
  m.payments.push({ amount: cents, status: 'Succeeded', refunded: 0n, source: m.sources.length - 1 });
  if (mode === 'auto') apply(m, [source]);
  return OK;
}

/** Explicit allocations (invoice index in m.invoices, of posted invoices, cents). */
export function payExplicit(m: Model, cents: bigint, parts: Array<{ invoice: number; cents: bigint }>): Outcome {
  const sums = new Map<number, bigint>();
  for (const [i, part] of parts.entries()) {
    if (m.invoices[part.invoice]!.closed) return refused(409, `paymentAllocations[${i}].invoiceId`);
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

/** Posts a draft invoice (index in m.invoices): its dates stay, the funds held are applied; anything else is refused. */
export function postDraft(m: Model, index: number): Outcome {
  const inv = m.invoices[index]!;
  if (inv.posted) return refused(409);
  inv.posted = true;
  inv.postedSeq = nextPostedSeq(m);
  inv.openedAt = atNoon(m.today);
  applyAllFunds(m);
  return OK;
}

/**
 * A refund of `cents` of payment `index` (README "Refunds"): refused (400 on originalPaymentId) for a
 * failed payment and (400 on amount) beyond what is left of it. It takes what the payment still holds
 * unallocated first, then undoes its allocations to invoices, newest invoice first (latest due date,
 * then the one posted later, then the later allocation): those invoices owe that much again. Nothing
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
    .sort(
      (x, y) =>
        m.invoices[y.a.invoice]!.due - m.invoices[x.a.invoice]!.due ||
        m.invoices[y.a.invoice]!.postedSeq - m.invoices[x.a.invoice]!.postedSeq ||
        y.seq - x.seq,
    );
  for (const { a } of newestFirst) {
    if (rest === 0n) break;
    // biome-ignore lint/complexity/useMathMinMax: bigint minor units (Math.min takes numbers only)
    const part = rest < a.amount ? rest : a.amount;
    a.amount -= part;
    const inv = m.invoices[a.invoice]!;
    rest -= part;
    if (inv.closed) {
      // a written-off invoice stays closed: what the refund takes back of it is written off too
      m.sources[inv.closed.closing]!.amount += part;
      // reopened and settled again at once (the ledger keeps only its last opening)
      inv.openedAt = atNoon(m.today);
      inv.settledAt = atNoon(m.today);
      continue;
    }
    if (inv.open === 0n) inv.openedAt = atNoon(m.today);
    inv.open += part;
  }
  payment.refunded += cents;
  m.sources.push({ kind: 'refund', amount: cents, open: 0n });
  return OK;
}

// ---------- plan changes (issue 28) ----------

export type Timing = 'now' | 'periodEnd';

/**
 * A plan change of subscription `index` (README "Plan changes", the engine's README "Plan changes"): to plan
 * frequency `frequencyId` (a frequency of the model, or PRO_MONTHLY) and/or `quantity` seats, `timing` as given or
 * by default (an upgrade now; a downgrade, the next renewal charging less before discounts, at the period end).
 *
 * Refusals, in the order they are checked: the customer not Active, or the subscription not Active → 400
 * subscriptionId; its renewal due and not billed (next period start on or before today) → 409 subscriptionId; a
 * switch to another plan that planChanges.allowed does not permit → 400 planFrequencyId; a quantity outside the
 * target plan's bounds → 400 quantities.SEAT; a change that changes nothing → 400 planFrequencyId; now while a
 * Draft invoice bills the period running today → 400 timing.
 *
 * Now: on a posted invoice, each recurring line of the subscription running today is credited its unused part,
 * round(net × days left / days of the line) less what was credited before (a `Credit` line, negative, from today
 * to its end; none when 0), and ends today. Then the new plan: the same frequency (length) bills
 * quantity × price for today → the period end, prorated by days over the period (the period and the anniversary
 * stay); a Percentage coupon whose last use discounted the running period (its start and its end) applies again as it stood before that
 * use (no use counted), Amount coupons do not. A frequency switch bills a full new period from today, the
 * anniversary moving to today, coupons as at a renewal (each active one counts a use). No setup fee, no tax (no
 * address). Posted, due today; a net below 0 owes nothing and its −net is a credit; the funds held are applied.
 * A pending change is withdrawn. Period end: stored as pending (replacing one), effective at the next period start.
 */
export function changePlan(
  m: Model,
  index: number,
  change: { frequencyId?: number; quantity?: number; timing?: Timing },
): Outcome & { timing?: Timing } {
  const s = m.subs[index]!;
  if (m.status !== 'Active' || s.status !== 'Active') return refused(400, 'subscriptionId');
  if (s.next === null || s.next <= m.today) return refused(409, 'subscriptionId');
  const target = change.frequencyId === undefined ? s.freq : targetOf(change.frequencyId);
  if (!target || !switchAllowed(s.freq.plan, target.plan)) return refused(400, 'planFrequencyId');
  const bounds = PLAN_SEATS[target.plan];
  if (change.quantity !== undefined && (change.quantity < bounds.min || change.quantity > bounds.max))
    return refused(400, 'quantities.SEAT');
  const quantity = change.quantity ?? (target.plan === s.freq.plan ? s.quantity : 1);
  if (target.id === s.freq.id && quantity === s.quantity) return refused(400, 'planFrequencyId');
  const perPeriod = (f: Frequency, q: number) => BigInt(q) * f.prices[m.currency];
  const timing = change.timing ?? (perPeriod(target, quantity) < perPeriod(s.freq, s.quantity) ? 'periodEnd' : 'now');
  if (timing === 'periodEnd') {
    s.pending = { freq: target, quantity, effective: s.next };
    return { ok: true, timing };
  }
  const draftRuns = m.invoices.some(
    (inv) => !inv.posted && inv.lines.some((l) => l.sub === index && l.kind === 'Recurring' && l.start <= m.today && m.today < l.end),
  );
  if (draftRuns) return refused(400, 'timing');

  // The ends of the lines billing the running period (on invoices neither Draft nor closed): a coupon re-applies only
  // to a period one of them bills (a period whose invoice was voided has none).
  const runningEnds = new Set(
    m.invoices
      .filter((inv) => inv.posted && !inv.closed)
      .flatMap((inv) => inv.lines)
      .filter((l) => l.sub === index && l.kind === 'Recurring' && runsToday(m, l))
      .map((l) => l.end),
  );
  const lines: ChangeLine[] = [];
  for (const inv of m.invoices) {
    if (!inv.posted || inv.closed) continue;
    for (const l of inv.lines) {
      if (l.sub !== index || l.kind !== 'Recurring' || !runsToday(m, l)) continue;
      let credit = roundShare(netOf(l), l.end - m.today, l.end - l.start) - l.credited;
      if (credit < 0n) credit = 0n;
      l.credited += credit;
      l.cut = m.today;
      if (credit > 0n) lines.push({ sub: index, kind: 'Credit', amount: -credit, discounts: [], start: m.today, end: l.end, credited: 0n });
    }
  }
  const price = perPeriod(target, quantity);
  let charge: ChangeLine;
  if (target.months !== s.freq.months) {
    s.anchor = partsOf(m.today).day;
    s.freq = target;
    s.periodStart = m.today;
    s.next = nextStart(s, m.today);
    charge = { sub: index, kind: 'Recurring', amount: price, discounts: [], start: m.today, end: s.next, credited: 0n };
    charge.discounts = couponDiscounts(s, price, m.today, s.next);
  } else {
    // The period running today: the one before the next start on the anniversary grid (a NoCharges unhold or a
    // reactivation moved the next start past periods never billed, so not always the last period billed).
    const end = s.next;
    const start = addMonthsAnchored(end, -s.freq.months, s.anchor);
    const amount = roundShare(price, end - m.today, end - start);
    charge = { sub: index, kind: 'Recurring', amount, discounts: [], start: m.today, end, credited: 0n };
    // The coupons that discounted the running period, as they stood before that use; nothing counted.
    let left = amount;
    for (const c of s.coupons) {
      if (c.coupon.kind !== 'Percentage' || c.used === 0 || c.lastPeriod !== start || c.lastPeriodEnd !== end || !runningEnds.has(end))
        continue;
      if (!couponIsActive({ coupon: c.coupon, used: c.used - 1 })) continue;
      let d = roundShare(amount, Number(c.coupon.value), 100);
      if (d > left) d = left;
      left -= d;
      if (d > 0n) charge.discounts.push({ name: c.coupon.name ?? c.coupon.code, amount: d });
    }
    s.freq = target;
  }
  s.quantity = quantity;
  s.pending = null;
  lines.push(charge);
  const amount = lines.reduce((a, l) => a + netOf(l), 0n);
  m.invoices.push({
    amount,
    open: amount > 0n ? amount : 0n,
    due: m.today,
    lines,
    posted: true,
    postedSeq: nextPostedSeq(m),
    openedAt: atNoon(m.today),
    settledAt: amount > 0n ? null : atNoon(m.today),
  });
  if (amount < 0n) m.sources.push({ kind: 'credit', amount: -amount, open: -amount });
  applyAllFunds(m);
  return { ok: true, timing };
}

function targetOf(frequencyId: number): Frequency | null {
  return FREQUENCIES.find((f) => f.id === frequencyId) ?? null;
}

/** DELETE …/changes/pending: withdraws the pending change; none pending → 404 keyed id. */
export function withdrawPendingChange(m: Model, index: number): Outcome {
  const s = m.subs[index]!;
  if (!s.pending) return refused(404, 'id');
  s.pending = null;
  return OK;
}

/**
 * The next renewal after a change of subscription `index` (what the change answers as nextRenewal): the date
 * the next period starts (a pending change's effective date), and the total of the renewal's invoice for that
 * subscription alone: quantity × price of the plan it will be on, less its coupons active then (none used yet).
 */
export function nextRenewalOf(m: Model, index: number): { date: number; amount: bigint } {
  const s = m.subs[index]!;
  const freq = s.pending?.freq ?? s.freq;
  const quantity = s.pending?.quantity ?? s.quantity;
  const amount = BigInt(quantity) * freq.prices[m.currency];
  let left = amount;
  for (const c of s.coupons) {
    if (!couponIsActive(c)) continue;
    let d = c.coupon.kind === 'Percentage' ? roundShare(amount, Number(c.coupon.value), 100) : c.coupon.value;
    if (d > left) d = left;
    left -= d;
  }
  return { date: s.pending?.effective ?? s.next!, amount: left };
}

// ---------- void and write-off (issue 40) ----------

/**
 * POST /v1/Invoices/{id}/void of invoice `index`: refused (409 invoiceId) for a Draft, an invoice already closed, or
 * one money was allocated to (amount − open above 0). Else it owes nothing (a `void` source of what it owed), its
 * period counts as not billed (uncancel), and a Suspended customer left with nothing overdue is reactivated.
 */
export function voidInvoice(m: Model, index: number): Outcome {
  const inv = m.invoices[index]!;
  if (!inv.posted || inv.closed || inv.amount - inv.open > 0n) return refused(409, 'invoiceId');
  close(m, inv, 'void');
  return OK;
}

/**
 * POST /v1/Invoices/{id}/writeOff of invoice `index`: refused (409 invoiceId) for a Draft, an invoice already closed,
 * or one that owes nothing. Else what it owes is written off (a `write_off` source), and a Suspended customer left
 * with nothing overdue is reactivated.
 */
export function writeOff(m: Model, index: number): Outcome {
  const inv = m.invoices[index]!;
  if (!inv.posted || inv.closed || inv.open === 0n) return refused(409, 'invoiceId');
  close(m, inv, 'write_off');
  return OK;
}

function close(m: Model, inv: Invoice, kind: 'void' | 'write_off') {
  m.sources.push({ kind, amount: inv.open, open: 0n });
  inv.closed = { kind, closing: m.sources.length - 1 };
  if (inv.open > 0n) inv.settledAt = atNoon(m.today);
  inv.open = 0n;
  reactivateIfPaid(m);
}

// ---------- credit notes (issue 40) ----------

/**
 * POST /v1/creditNotes crediting `amount` (net; the model has no tax) of line `lineIndex` of invoice `index`: refused
 * (409 invoiceId) for a Draft or a closed invoice; 400 lines[0].invoiceLineId for a line that billed nothing (a plan
 * change's credit, a line a coupon took to 0); 409 lines[0].amount beyond what is left of the line (its net less all
 * its credits: cancellations' and earlier notes'). Else the line carries the credit (a later cancellation credits
 * only what is left), a `credit` source pays the invoice first, its excess pays the other open invoices (oldest due
 * first) or stays held, and a Suspended customer left with nothing overdue is reactivated.
 */
export function creditNote(m: Model, index: number, lineIndex: number, amount: bigint): Outcome {
  const inv = m.invoices[index]!;
  if (!inv.posted || inv.closed) return refused(409, 'invoiceId');
  const line = inv.lines[lineIndex]!;
  if (netOf(line) <= 0n) return refused(400, 'lines[0].invoiceLineId');
  if (amount > netOf(line) - line.credited) return refused(409, 'lines[0].amount');
  line.credited += amount;
  const source: Source = { kind: 'credit', amount, open: amount, invoice: index };
  m.sources.push(source);
  const part = amount < inv.open ? amount : inv.open;
  if (part > 0n) allocate(m, source, index, part);
  apply(m, [source]);
  reactivateIfPaid(m);
  return OK;
}
