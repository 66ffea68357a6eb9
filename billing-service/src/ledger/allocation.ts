import { sql, type RawBuilder } from 'kysely';
import type { Queryable } from '../db/database.js';
import { insertJsonRows } from '../db/json-rows.js';
import { reusableQuery } from '../db/reusable-query.js';
import { money, type Money } from '../money/money.js';

export type AllocationOrder = 'OldestToNewest' | 'NewestToOldest';

export interface Allocation {
  sourceEntryId: number;
  invoiceEntryId: number;
  invoiceId: number | null;
  amount: Money;
}

/**
 * Applies a customer's available funds (unallocated payments and credits, oldest
 * first) to its open posted invoices (oldest due first, or newest first), until
 * one side runs out. Rows are locked, so concurrent calls for one customer
 * serialize and never allocate the same money twice. Call inside a transaction.
 * `at` is the account's time (see recordAllocation).
 */
// Every payment and activation allocates: compiled once (see reusableQuery).
const lockOpenEntries = reusableQuery((db: Queryable, accountId: number, customerId: number) =>
  openEntries(db, accountId).select('effectiveAt').where('customerId', '=', customerId).orderBy('id').forUpdate(),
);

/** The account's entries that funds can still move from or to. */
function openEntries(db: Queryable, accountId: number) {
  return db
    .selectFrom('ledgerEntries')
    .select(['id', 'customerId', 'entryType', 'openAmount', 'invoiceId', 'dueAt'])
    .where('accountId', '=', accountId)
    .where('openAmount', '>', '0')
    .where('entryType', 'in', ['payment', 'credit', 'invoice']);
}

export async function allocateAvailableFunds(
  db: Queryable,
  accountId: number,
  customerId: number,
  at: Date,
  order: AllocationOrder = 'OldestToNewest',
  onlySourceEntryId?: number,
): Promise<Allocation[]> {
  const entries = await lockOpenEntries(db, accountId, customerId);
  const sources = entries
    .filter((e) => e.entryType !== 'invoice' && (onlySourceEntryId === undefined || e.id === onlySourceEntryId))
    .map((e) => ({ ...e, open: money(e.openAmount) }));
  const invoices = invoicesInPayingOrder(
    entries.filter((e) => e.entryType === 'invoice').map((e) => ({ ...e, open: money(e.openAmount) })),
    order,
  );
  return applyFunds(db, accountId, sources, invoices, at);
}

/** Open invoices in the order funds pay them: oldest due first (or newest first), then by entry. */
export function invoicesInPayingOrder<T extends { id: number; dueAt: Date | null }>(invoices: T[], order: AllocationOrder): T[] {
  return [...invoices].sort((a, b) => {
    const byDue = (a.dueAt?.getTime() ?? 0) - (b.dueAt?.getTime() ?? 0) || a.id - b.id;
    return order === 'OldestToNewest' ? byDue : -byDue;
  });
}

/**
 * The open entries of several customers, locked as allocateAvailableFunds locks one customer's
 * (a batch of payments allocates them in memory with planAllocations, then recordAllocations).
 */
export function lockOpenEntriesOfCustomers(db: Queryable, accountId: number, customerIds: number[]) {
  if (customerIds.length === 0) return Promise.resolve([]);
  return openEntries(db, accountId).where('customerId', 'in', customerIds).orderBy('id').forUpdate().execute();
}

/** An open invoice entry as lockedOpenInvoiceEntries gives it (JSON: the amount as text, the due time as ISO text). */
export interface LockedOpenInvoiceEntry {
  id: number;
  openAmount: string;
  invoiceId: number | null;
  dueAt: string | null;
}

/**
 * The customer's open entries locked as allocateAvailableFunds locks them, for one column of a
 * statement that also inserts the entry to allocate (a new payment's): its open invoice entries as
 * JSON. Run it under the customer's lock, in a statement after the lock's (its snapshot must not
 * predate the lock).
 */
export function lockedOpenInvoiceEntries(accountId: number, customerId: number) {
  return sql<
    LockedOpenInvoiceEntry[]
  >`(select coalesce(json_agg(json_build_object('id', e.id, 'openAmount', e.open_amount::text, 'invoiceId', e.invoice_id, 'dueAt', e.due_at) order by e.id) filter (where e.entry_type = 'invoice'), '[]'::json)
    from (select id, entry_type, open_amount, invoice_id, due_at from ledger_entries
      where customer_id = ${customerId} and account_id = ${accountId} and open_amount > 0 and entry_type in ('payment', 'credit', 'invoice') order by id for update) as e)`;
}

/**
 * allocateAvailableFunds for one new entry (`source`, inserted by the statement that read
 * `lockedInvoices` with lockedOpenInvoiceEntries, so not among them): oldest due invoice first.
 */
export function allocateNewEntry(
  db: Queryable,
  accountId: number,
  source: { id: number; open: Money },
  lockedInvoices: LockedOpenInvoiceEntry[],
  at: Date,
): Promise<Allocation[]> {
  const invoices = invoicesInPayingOrder(
    lockedInvoices.map((e) => ({
      id: e.id,
      invoiceId: e.invoiceId,
      dueAt: e.dueAt === null ? null : new Date(e.dueAt),
      open: money(e.openAmount),
    })),
    'OldestToNewest',
  );
  return applyFunds(db, accountId, [source], invoices, at);
}

/** Applies explicit amounts of one source entry to given invoices (already validated by the caller). */
export async function allocateExplicitly(
  db: Queryable,
  accountId: number,
  sourceEntryId: number,
  parts: Array<{ invoiceEntryId: number; invoiceId: number; amount: Money }>,
  at: Date,
): Promise<Allocation[]> {
  const allocations: Allocation[] = [];
  for (const part of parts) {
    await recordAllocation(db, accountId, sourceEntryId, part.invoiceEntryId, part.amount, at);
    allocations.push({ sourceEntryId, invoiceEntryId: part.invoiceEntryId, invoiceId: part.invoiceId, amount: part.amount });
  }
  return allocations;
}

async function applyFunds(
  db: Queryable,
  accountId: number,
  sources: Array<{ id: number; open: Money }>,
  invoices: Array<{ id: number; open: Money; invoiceId: number | null }>,
  at: Date,
): Promise<Allocation[]> {
  const allocations = planAllocations(sources, invoices);
  for (const a of allocations) await recordAllocation(db, accountId, a.sourceEntryId, a.invoiceEntryId, a.amount, at);
  return allocations;
}

/**
 * Which source pays how much of which invoice: the sources in order, each to the invoices in order,
 * until one side runs out. Lowers the `open` amounts it uses (exact, decimal.js); writes nothing.
 */
export function planAllocations(
  sources: Array<{ id: number; open: Money }>,
  invoices: Array<{ id: number; open: Money; invoiceId: number | null }>,
): Allocation[] {
  const allocations: Allocation[] = [];
  let s = 0;
  let i = 0;
  for (;;) {
    const source = sources[s];
    const invoice = invoices[i];
    if (!source || !invoice) break;
    const amount = smaller(source.open, invoice.open);
    allocations.push({ sourceEntryId: source.id, invoiceEntryId: invoice.id, invoiceId: invoice.invoiceId, amount });
    source.open = source.open.minus(amount);
    invoice.open = invoice.open.minus(amount);
    if (source.open.isZero()) s++;
    if (invoice.open.isZero()) i++;
  }
  return allocations;
}

/**
 * Moves `amount` from a source's open amount to an invoice's (or to a refund's: the payment money it
 * paid back). The ledger's own rule, whoever calls: an allocation is positive and no open amount goes
 * below zero (the update matches only entries holding enough; the database's check constraint is the
 * last guard). A breach is a bug: it throws. An entry it empties is settled `at` (the account's time:
 * an invoice settled leaves PoorStanding then, see account-status.ts).
 */
export async function recordAllocation(
  db: Queryable,
  accountId: number,
  sourceEntryId: number,
  invoiceEntryId: number,
  amount: Money,
  at: Date,
) {
  if (!amount.greaterThan(0)) throw new Error(`ledger: allocation of ${amount.toString()} is not positive`);
  const updated = await db
    .updateTable('ledgerEntries')
    .set({
      openAmount: sql`open_amount - ${amount.toString()}::numeric`,
      settledAt: settledWhenEmptied(sql`${amount.toString()}::numeric`, at),
    })
    .where('id', 'in', [sourceEntryId, invoiceEntryId])
    .where('accountId', '=', accountId)
    .where('openAmount', '>=', amount.toString())
    .returning('id')
    .execute();
  if (updated.length !== 2) {
    throw new Error(
      `ledger: allocating ${amount.toString()} from entry ${sourceEntryId} to ${invoiceEntryId} would leave an open amount below zero`,
    );
  }
  await db.insertInto('ledgerAllocations').values({ accountId, sourceEntryId, invoiceEntryId, amount: amount.toString() }).execute();
}

/**
 * Several allocations in two statements (a batch of payments), under recordAllocation's rule: each
 * entry's open amount drops by what its allocations take, and only if it holds that much; a breach throws.
 */
export async function recordAllocations(db: Queryable, accountId: number, allocations: Allocation[], at: Date) {
  if (allocations.length === 0) return;
  const taken = new Map<number, Money>();
  for (const a of allocations) {
    if (!a.amount.greaterThan(0)) throw new Error(`ledger: allocation of ${a.amount.toString()} is not positive`);
    for (const id of [a.sourceEntryId, a.invoiceEntryId]) taken.set(id, (taken.get(id) ?? money(0)).plus(a.amount));
  }
  const takes = [...taken].map(([id, amount]) => ({ id, amount: amount.toString() }));
  const updated = await sql<{ id: string | number }>`
    update ledger_entries set open_amount = open_amount - t.amount, settled_at = ${settledWhenEmptied(sql`t.amount`, at)}
    from jsonb_to_recordset(${JSON.stringify(takes)}::jsonb) as t(id bigint, amount numeric)
    where ledger_entries.id = t.id and ledger_entries.account_id = ${accountId} and ledger_entries.open_amount >= t.amount
    returning ledger_entries.id`.execute(db);
  if (updated.rows.length !== takes.length) throw new Error('ledger: a batch of allocations would leave an open amount below zero');
  await insertJsonRows(
    db,
    'ledger_allocations',
    'account_id integer, source_entry_id bigint, invoice_entry_id bigint, amount numeric',
    allocations.map((a) => ({
      account_id: accountId,
      source_entry_id: a.sourceEntryId,
      invoice_entry_id: a.invoiceEntryId,
      amount: a.amount.toString(),
    })),
  );
}

/** settled_at after taking `taken` from an entry's open amount (SQL: the right side of a set sees the row before the update). */
function settledWhenEmptied(taken: RawBuilder<unknown>, at: Date) {
  return sql<Date | null>`case when open_amount = ${taken} then ${at}::timestamptz else settled_at end`;
}

function smaller(a: Money, b: Money): Money {
  return a.lessThan(b) ? a : b;
}
