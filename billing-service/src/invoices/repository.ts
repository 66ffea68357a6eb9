import { takeInvoiceNumber } from '../accounts/repository.js';
import { ledgerEntryInsert } from '../ledger/entries.js';
import { sql, type QueryCreator, type Selectable } from 'kysely';
import { billingInputsOf, selectBillingInputs } from '../billing-settings/repository.js';
import { isStorableId } from '../db/ids.js';
import { enabledEndpointsJson } from '../outbox/webhook-repository.js';
import type { Queryable } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import type { Database, InvoiceChargesTable, InvoiceTaxesTable } from '../db/schema.js';
import {
  advanceSubscriptionPeriodsSql,
  type SubscriptionCouponRow,
  type SubscriptionMove,
  type SubscriptionProductRow,
  type SubscriptionWithPlan,
} from '../subscriptions/repository.js';
import type { DraftInvoice, PlanChangeCharge } from './engine/index.js';

/** What insertInvoice stores: a computed invoice, its lines possibly a plan change's Credit lines. */
export type InvoiceToStore = Pick<
  DraftInvoice,
  'currency' | 'effectiveDate' | 'dueDate' | 'subtotal' | 'totalDiscount' | 'taxes' | 'totalTaxes' | 'total'
> & { charges: PlanChangeCharge[] };

/** Invoices with what the ledger says of them: amount paid (allocated) and outstanding. */
export function selectInvoices(db: Queryable, accountId: number) {
  return db
    .selectFrom('invoices')
    .leftJoin('ledgerEntries', (join) =>
      join.onRef('ledgerEntries.invoiceId', '=', 'invoices.id').on('ledgerEntries.entryType', '=', 'invoice'),
    )
    .selectAll('invoices')
    .select([
      // a void or write-off closed the invoice by allocating what it owed: not a payment
      sql<string>`case when invoices.status in ('Void', 'WrittenOff')
        then coalesce(ledger_entries.amount - ledger_entries.open_amount - coalesce((select c.amount from ledger_entries c
          where c.invoice_id = invoices.id and c.entry_type in ('void', 'write_off')), 0), 0)
        else coalesce(ledger_entries.amount - ledger_entries.open_amount, 0) end`.as('totalPayments'),
      sql<string>`coalesce(ledger_entries.open_amount, invoices.total)`.as('outstandingBalance'),
    ])
    .where('invoices.accountId', '=', accountId);
}

export type InvoiceRow = Awaited<ReturnType<ReturnType<typeof selectInvoices>['executeTakeFirstOrThrow']>>;
export type InvoiceChargeRow = Selectable<InvoiceChargesTable>;
export type InvoiceTaxRow = Selectable<InvoiceTaxesTable>;

export async function findInvoice(db: Queryable, accountId: number, id: number): Promise<InvoiceRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return selectInvoices(db, accountId).where('invoices.id', '=', id).executeTakeFirst();
}

/**
 * A Draft invoice becomes Posted at `postedAt`, its other dates kept; undefined when it is not
 * (or no longer) a Draft, so two posts at once post it once.
 */
export async function markDraftPosted(db: Queryable, accountId: number, id: number, postedAt: Date) {
  if (!isStorableId(id)) return undefined;
  return db
    .updateTable('invoices')
    .set({ status: 'Posted', postedAt })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'Draft')
    .returning(['id', 'customerId', 'invoiceNumber', 'total', 'effectiveAt', 'dueAt'])
    .executeTakeFirst();
}

/**
 * A Posted invoice becomes Void or WrittenOff (issue 40: closed, owing nothing); undefined when it is not (or no
 * longer) Posted, so two closings at once close it once.
 */
export async function markPostedClosed(db: Queryable, accountId: number, id: number, status: 'Void' | 'WrittenOff') {
  if (!isStorableId(id)) return undefined;
  return db
    .updateTable('invoices')
    .set({ status })
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'Posted')
    .returning(['id', 'customerId', 'invoiceNumber', 'total', 'currency'])
    .executeTakeFirst();
}

export async function findInvoiceLines(
  db: Queryable,
  invoiceIds: number[],
): Promise<{ charges: InvoiceChargeRow[]; taxes: InvoiceTaxRow[] }> {
  if (invoiceIds.length === 0) return { charges: [], taxes: [] };
  const [charges, taxes] = await Promise.all([
    db.selectFrom('invoiceCharges').selectAll().where('invoiceId', 'in', invoiceIds).orderBy('invoiceId').orderBy('position').execute(),
    db.selectFrom('invoiceTaxes').selectAll().where('invoiceId', 'in', invoiceIds).orderBy('invoiceId').orderBy('position').execute(),
  ]);
  return { charges, taxes };
}

/** A subscription as the invoice engine bills it. */
export type BilledSubscription = Pick<SubscriptionWithPlan, 'id' | 'name' | 'interval' | 'numberOfIntervals' | 'isProrated'>;
export type BilledProduct = Pick<
  SubscriptionProductRow,
  | 'subscriptionId'
  | 'productCode'
  | 'name'
  | 'description'
  | 'quantity'
  | 'catalogPrice'
  | 'priceOverride'
  | 'setupFee'
  | 'included'
  | 'discountKind'
  | 'discountValue'
>;
export type BilledCoupon = Pick<SubscriptionCouponRow, 'subscriptionId' | 'couponCode' | 'periodsUsed' | 'lastUsedOn' | 'lastUsedUntil'>;

// The customer's subscriptions in one of the statuses, and their products and coupons, as JSON
// (numerics as text: exact). Same order as findSubscriptionsOfCustomers, findProducts and findCoupons.
const BILLED = sql`from subscriptions b join plan_frequencies f on f.id = b.plan_frequency_id where b.customer_id = c.id and b.status = any(`;

// An activation (and its preview) reads all of it in one round trip: compiled once (see reusableQuery).
const billingRunInputsById = reusableQuery((db: Queryable, customerId: number, statuses: string[]) =>
  selectBillingInputs(db)
    .select([
      sql<BilledSubscription[]>`coalesce((select json_agg(json_build_object('id', b.id, 'name', b.name, 'interval', f.interval,
        'numberOfIntervals', f.number_of_intervals, 'isProrated', f.is_prorated) order by b.id)
        ${BILLED}${statuses})), '[]'::json)`.as('billedSubscriptions'),
      sql<BilledProduct[]>`coalesce((select json_agg(json_build_object('subscriptionId', p.subscription_id, 'productCode', p.product_code,
        'name', p.name, 'description', p.description, 'quantity', p.quantity::text, 'catalogPrice', p.catalog_price::text,
        'priceOverride', p.price_override::text, 'setupFee', p.setup_fee::text, 'included', p.included, 'discountKind', p.discount_kind,
        'discountValue', p.discount_value::text) order by p.subscription_id, p.position)
        from subscription_products p where p.subscription_id in (select b.id ${BILLED}${statuses}))), '[]'::json)`.as('billedProducts'),
      sql<BilledCoupon[]>`coalesce((select json_agg(json_build_object('subscriptionId', k.subscription_id, 'couponCode', k.coupon_code,
        'periodsUsed', k.periods_used, 'lastUsedOn', k.last_used_on::text,
        'lastUsedUntil', k.last_used_until::text) order by k.subscription_id, k.position)
        from subscription_coupons k where k.subscription_id in (select b.id ${BILLED}${statuses}))), '[]'::json)`.as('billedCoupons'),
      // unallocated money (what allocateAvailableFunds would apply): without any, posting allocates nothing
      sql<boolean>`exists (select 1 from ledger_entries l where l.customer_id = c.id and l.open_amount > 0 and l.entry_type in ('payment', 'credit'))`.as(
        'holdsFunds',
      ),
      // the events an activation emits need them: read here, not by a statement of their own
      enabledEndpointsJson(sql<number>`c.account_id`).as('enabledWebhookEndpoints'),
    ])
    .where('c.id', '=', customerId),
);

/**
 * What billing the customer's subscriptions in `statuses` needs, in one round trip: the billing
 * inputs (findBillingInputs), the subscriptions with their products and coupons, whether the
 * customer holds unallocated payments or credits, and the account's enabled webhook endpoints.
 */
export async function findBillingRunInputs(db: Queryable, customerId: number, statuses: readonly string[]) {
  const row = (await billingRunInputsById(db, customerId, [...statuses]))[0];
  if (!row)
    return {
      inputs: billingInputsOf(undefined, customerId),
      subscriptions: [],
      products: [],
      coupons: [],
      holdsFunds: false,
      enabledWebhookEndpoints: [],
    };
  const { billedSubscriptions, billedProducts, billedCoupons, holdsFunds, enabledWebhookEndpoints, ...inputs } = row;
  return {
    inputs: billingInputsOf(inputs, customerId),
    subscriptions: billedSubscriptions,
    products: billedProducts,
    coupons: billedCoupons,
    holdsFunds,
    enabledWebhookEndpoints,
  };
}

/**
 * Stores an invoice with its charges and taxes, numbered with the account's next invoice
 * number, in one statement (data-modifying CTEs: one round trip instead of four). The
 * number comes from an update of the account row, whose lock makes numbers sequential
 * without gaps or repeats. `with` adds writes that go with the invoice to the same statement:
 * the billed subscriptions' moves to their next period, and a posted invoice's ledger entry.
 */
export async function insertInvoice(
  db: Queryable,
  invoice: {
    accountId: number;
    customerId: number;
    status: 'Draft' | 'Posted';
    terms: string;
    poNumber: string | null;
    postedAt: Date | null;
  },
  draft: InvoiceToStore,
  with_: { subscriptionMoves?: { moves: SubscriptionMove[]; now: Date }; ledgerEntry?: boolean } = {},
): Promise<{ id: number; invoiceNumber: number }> {
  // the CTEs below (CamelCasePlugin writes newInvoice as new_invoice)
  const invoiceNumber = sql<number>`(select number from taken_invoice_number)`;
  let query = db
    .with('takenInvoiceNumber', (qc) => takeInvoiceNumber(qc, invoice.accountId))
    .with('newInvoice', (qc) =>
      qc
        .insertInto('invoices')
        .values({
          ...invoice,
          invoiceNumber,
          currency: draft.currency,
          effectiveAt: `${draft.effectiveDate}T00:00:00Z`,
          dueAt: `${draft.dueDate}T00:00:00Z`,
          subtotal: draft.subtotal.toString(),
          totalDiscount: draft.totalDiscount.toString(),
          totalTaxes: draft.totalTaxes.toString(),
          total: draft.total.toString(),
        })
        .returning(['id', 'invoiceNumber']),
    ) as unknown as WithNewInvoice;
  if (draft.charges.length > 0) query = withNewCharges(query, draft.charges);
  if (draft.taxes.length > 0) query = withNewTaxes(query, draft.taxes);
  const moved = with_.subscriptionMoves;
  if (moved && moved.moves.length > 0) {
    // a raw update is a valid CTE body (Kysely's types list only its builders, and it adds no parentheses to raw SQL)
    query = query.with(
      'movedSubscriptions',
      () => sql`(${advanceSubscriptionPeriodsSql(moved.moves, moved.now)})` as never,
    ) as unknown as WithNewInvoice;
  }
  if (with_.ledgerEntry) query = withNewLedgerEntry(query, invoice, draft);
  const row = await query.selectFrom('newInvoice').select(['newInvoice.id', 'newInvoice.invoiceNumber']).executeTakeFirstOrThrow();
  return { id: row.id, invoiceNumber: Number(row.invoiceNumber) };
}

/** insertInvoice's statement so far: CTEs after `newInvoice` refer to its row. */
type WithNewInvoice = QueryCreator<Database & { newInvoice: { id: number; invoiceNumber: number } }>;
/** The new invoice's id, inside insertInvoice's statement (CamelCasePlugin writes newInvoice as new_invoice). */
const invoiceId = sql<number>`(select id from new_invoice)`;

/** The invoice's charges, inserted in the same statement. */
function withNewCharges(query: WithNewInvoice, charges: InvoiceToStore['charges']): WithNewInvoice {
  // One array per column (unnest), not a parameter per value: a customer's thousands of
  // subscriptions stay under PostgreSQL's 65,535 parameters, and the text, the same for any
  // number of charges, is prepared once.
  const column = <T>(value: (c: (typeof charges)[number]) => T) => charges.map(value);
  return query.with('newCharges', (qc) =>
    qc
      .insertInto('invoiceCharges')
      .columns([
        'invoiceId',
        'subscriptionId',
        'position',
        'kind',
        'productCode',
        'name',
        'description',
        'quantity',
        'unitPrice',
        'proratedUnitPrice',
        'amount',
        'taxableAmount',
        'startServiceDate',
        'endServiceDate',
        'discounts',
      ])
      .expression(
        sql`select ${invoiceId}, c.subscription_id, (c.position - 1)::smallint, c.kind, c.product_code, c.name, c.description,
          c.quantity, c.unit_price, c.prorated_unit_price, c.amount, c.taxable_amount, c.start_service_date, c.end_service_date, c.discounts::jsonb
        from unnest(
          ${column((c) => c.subscriptionId)}::integer[], ${column((c) => c.kind)}::text[], ${column((c) => c.productCode)}::text[],
          ${column((c) => c.name)}::text[], ${column((c) => c.description)}::text[], ${column((c) => c.quantity.toString())}::numeric[],
          ${column((c) => c.unitPrice.toString())}::numeric[], ${column((c) => c.proratedUnitPrice.toString())}::numeric[],
          ${column((c) => c.amount.toString())}::numeric[], ${column((c) => c.taxableAmount.toString())}::numeric[],
          ${column((c) => c.startServiceDate)}::date[], ${column((c) => c.endServiceDate)}::date[],
          ${column((c) => JSON.stringify(c.discounts.map((d) => ({ name: d.name, amount: d.amount.toString() }))))}::text[]
        ) with ordinality as c (subscription_id, kind, product_code, name, description, quantity, unit_price, prorated_unit_price, amount,
          taxable_amount, start_service_date, end_service_date, discounts, position)`,
      ),
  ) as unknown as WithNewInvoice;
}

/** The invoice's tax lines, inserted in the same statement. */
function withNewTaxes(query: WithNewInvoice, taxes: InvoiceToStore['taxes']): WithNewInvoice {
  return query.with('newTaxes', (qc) =>
    qc
      .insertInto('invoiceTaxes')
      .values(taxes.map((t, position) => ({ invoiceId, position, name: t.name, rate: t.rate.toString(), amount: t.amount.toString() }))),
  ) as unknown as WithNewInvoice;
}

/** The posted invoice's ledger entry, inserted in the same statement. */
function withNewLedgerEntry(
  query: WithNewInvoice,
  invoice: { accountId: number; customerId: number; postedAt: Date | null },
  draft: InvoiceToStore,
): WithNewInvoice {
  const total = draft.total.toString();
  return query.with('newLedgerEntry', (qc) =>
    ledgerEntryInsert(qc as unknown as QueryCreator<Database>, {
      accountId: invoice.accountId,
      customerId: invoice.customerId,
      entryType: 'invoice',
      amount: total,
      invoiceId,
      dueAt: new Date(`${draft.dueDate}T00:00:00Z`),
      effectiveAt: new Date(`${draft.effectiveDate}T00:00:00Z`),
      // open from its posting (the account's time): when it is overdue by then, PoorStanding starts here
      ...(invoice.postedAt ? { openedAt: invoice.postedAt } : {}),
    }),
  ) as unknown as WithNewInvoice;
}

/**
 * Recurring charges of the subscriptions on posted invoices whose service period runs on `day` (with
 * their invoice's totals; what they bill and for which product, for a plan change's credit): started, not ended, and not replaced by an unhold with
 * ChargeForCurrentFullPeriod (that period ended on the unhold day). Oldest invoice first.
 */
export async function recurringChargesRunningOn(
  db: Queryable,
  subscriptionIds: number[],
  day: string,
  /**
   * The invoices' statuses: Posted (what was billed and stands), or also Void and WrittenOff (closed, issue 40: what
   * a void took back, what a write-off gave up on) where the last line to bill a period decides.
   */
  statuses: readonly ('Posted' | 'Void' | 'WrittenOff')[] = ['Posted'],
) {
  if (subscriptionIds.length === 0) return [];
  return db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select([
      'invoiceCharges.id',
      'invoices.id as invoiceId',
      'invoiceCharges.subscriptionId',
      'invoiceCharges.productCode',
      'invoiceCharges.name',
      'invoiceCharges.description',
      'invoiceCharges.quantity',
      'invoiceCharges.unitPrice',
      'invoiceCharges.taxableAmount',
      'invoiceCharges.startServiceDate',
      'invoiceCharges.endServiceDate',
      'invoiceCharges.creditedAmount',
      'invoices.subtotal',
      'invoices.totalDiscount',
      'invoices.totalTaxes',
      'invoices.status as invoiceStatus',
    ])
    .where('invoiceCharges.subscriptionId', 'in', subscriptionIds)
    .where('invoiceCharges.kind', '=', 'Recurring')
    .where('invoices.status', 'in', statuses)
    .where('invoiceCharges.startServiceDate', '<=', day)
    .where('invoiceCharges.endServiceDate', '>', day)
    .where((eb) => eb.or([eb('invoiceCharges.replacedOn', 'is', null), eb('invoiceCharges.replacedOn', '>', day)]))
    .orderBy('invoices.id')
    .orderBy('invoiceCharges.position')
    .execute();
}

/**
 * Whether a Draft invoice bills the subscription's period running on `day` (a recurring line covering it): a plan
 * change cannot credit that line (drafts are never credited), so it waits until the draft is posted.
 */
export async function draftBillsPeriodOn(db: Queryable, subscriptionId: number, day: string): Promise<boolean> {
  const row = await db
    .selectFrom('invoiceCharges')
    .innerJoin('invoices', 'invoices.id', 'invoiceCharges.invoiceId')
    .select('invoiceCharges.id')
    .where('invoiceCharges.subscriptionId', '=', subscriptionId)
    .where('invoiceCharges.kind', '=', 'Recurring')
    .where('invoices.status', '=', 'Draft')
    .where('invoiceCharges.startServiceDate', '<=', day)
    .where('invoiceCharges.endServiceDate', '>', day)
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks an invoice's overdue notice as given; false when another instance did it first. */
export async function markOverdueNotified(db: Queryable, invoiceId: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('invoices')
    .set({ overdueNotifiedAt: now })
    .where('id', '=', invoiceId)
    .where('overdueNotifiedAt', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Per invoice: what credits reversed of its lines (the part of its credits attributed to lines). */
export async function creditedOnCharges(db: Queryable, invoiceIds: number[]): Promise<Map<number, string>> {
  if (invoiceIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('invoiceCharges')
    .select(['invoiceId', sql<string>`sum(credited_amount)::text`.as('credited')])
    .where('invoiceId', 'in', invoiceIds)
    .groupBy('invoiceId')
    .execute();
  return new Map(rows.map((r) => [r.invoiceId, r.credited]));
}

/** Records what a credit reversed of each line (added to what earlier credits reversed). */
export async function addChargeCredits(db: Queryable, credits: ReadonlyArray<{ chargeId: number; amount: string }>): Promise<void> {
  if (credits.length === 0) return;
  await sql`
    update invoice_charges set credited_amount = credited_amount + credit.amount
    from unnest(${credits.map((c) => c.chargeId)}::integer[], ${credits.map((c) => c.amount)}::numeric[]) as credit (charge_id, amount)
    where invoice_charges.id = credit.charge_id`.execute(db);
}

/**
 * An unhold with ChargeForCurrentFullPeriod replaced the period running on `day`: the subscriptions'
 * recurring lines of it on posted invoices end there (their rest was just credited). A Draft's line
 * was not credited and keeps its dates.
 */
export async function markChargesReplaced(db: Queryable, subscriptionIds: number[], day: string): Promise<void> {
  const running = await recurringChargesRunningOn(db, subscriptionIds, day);
  if (running.length === 0) return;
  await db
    .updateTable('invoiceCharges')
    .set({ replacedOn: day })
    .where(
      'id',
      'in',
      running.map((c) => c.id),
    )
    .execute();
}
