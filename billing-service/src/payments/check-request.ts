import { Refusal } from '../refusals/refusal.js';
import { findCustomerRow, findCustomerRowOnce, lockCustomer } from '../customers/repository.js';
import { transactionWithRetry } from '../db/conflict-retry.js';
import type { Queryable } from '../db/database.js';
import type { CustomerRow } from '../db/schema.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import { money, sumMoney, type Money } from '../money/money.js';
import { amountInCurrency } from '../money/amount-in-currency.js';
import { findDefaultPaymentMethod, findPaymentMethod, type PaymentMethodRow } from '../payment-methods/repository.js';
import { findOpenInvoiceEntries, reserveAllocations, type ReservationsCounted } from './repository.js';
import type { CollectPaymentInput } from './schemas.js';

/**
 * The customer a first payment is for, read before anything is charged: 404 for
 * an unknown customer, 400 on `field` when the amount has more decimals than the
 * customer's currency. Read once per transaction or read scope (findCustomerRowOnce): a capture's
 * steps share one read of the row.
 */
export async function customerForCollection(
  ctx: AppContext,
  caller: Caller,
  customerId: number,
  amount: string,
  field: string,
): Promise<CustomerRow> {
  const customer = await findCustomerRowOnce(ctx.db, caller.accountId, customerId);
  if (!customer) throw Refusal.notFound('customer', customerId);
  amountInCurrency(amount, customer.currency, field);
  return customer;
}

async function resolveCard(
  ctx: AppContext,
  caller: Caller,
  customer: CustomerRow,
  input: CollectPaymentInput,
): Promise<PaymentMethodRow | null> {
  if (input.paymentMethod !== 'CreditCard') return null;
  if (input.paymentMethodId != null) {
    const method = await findPaymentMethod(ctx.db, caller.accountId, input.paymentMethodId);
    if (!method || method.customerId !== customer.id)
      throw Refusal.invalid(`customer ${customer.id} has no payment method ${input.paymentMethodId}`, 'paymentMethodId', 'not_found');
    return method;
  }
  if (!input.useDefaultPaymentMethod)
    throw Refusal.invalid('required for CreditCard unless useDefaultPaymentMethod is true', 'paymentMethodId', 'value_required');
  const method = await findDefaultPaymentMethod(ctx.db, customer.id);
  if (!method) throw Refusal.invalid('the customer has no payment method on file', 'useDefaultPaymentMethod', 'state_conflict');
  return method;
}

/**
 * Explicit allocations must name the customer's posted invoices, be amounts of its currency, and fit
 * what is open (their sum per invoice: one invoice may be named twice) less what card payments in
 * progress hold of it (their allocation reservations, `counted`), and what is paid. A Void or WrittenOff
 * invoice is refused (409 invoice_closed): it takes no payment.
 */
export async function checkExplicitAllocations(
  db: Queryable,
  counted: ReservationsCounted,
  customer: { id: number; currency: string },
  amount: Money,
  allocations: NonNullable<CollectPaymentInput['paymentAllocations']>,
) {
  const entries = await findOpenInvoiceEntries(
    db,
    customer.id,
    allocations.map((a) => a.invoiceId),
    counted,
  );
  const allocatedTo = new Map<number, Money>();
  const parts = allocations.map((a, i) => {
    const entry = entries.find((e) => e.invoiceId === a.invoiceId);
    if (!entry)
      throw Refusal.invalid(`no posted invoice ${a.invoiceId} for this customer`, `paymentAllocations[${i}].invoiceId`, 'not_found');
    if (entry.invoiceStatus === 'Void' || entry.invoiceStatus === 'WrittenOff')
      throw Refusal.conflict(
        `invoice ${a.invoiceId} is ${entry.invoiceStatus}: it takes no payment`,
        `paymentAllocations[${i}].invoiceId`,
        'invoice_closed',
      );
    const part = amountInCurrency(a.amount, customer.currency, `paymentAllocations[${i}].amount`);
    const sum = (allocatedTo.get(a.invoiceId) ?? money(0)).plus(part);
    const reserved = money(entry.reserved);
    if (sum.greaterThan(money(entry.openAmount).minus(reserved))) {
      const what = sum.equals(part) ? 'more than' : `with the earlier allocations to invoice ${a.invoiceId}, more than`;
      const held = reserved.isZero() ? '' : ` less ${reserved.toString()} held for payments in progress`;
      throw Refusal.invalid(
        `${what} the invoice's outstanding ${entry.openAmount}${held}`,
        `paymentAllocations[${i}].amount`,
        'value_invalid',
      );
    }
    allocatedTo.set(a.invoiceId, sum);
    return { invoiceEntryId: entry.id, invoiceId: a.invoiceId, amount: part };
  });
  if (sumMoney(parts.map((p) => p.amount)).greaterThan(amount))
    throw Refusal.invalid('allocations add up to more than the payment', 'paymentAllocations', 'value_invalid');
  return parts;
}

/**
 * What a collection is checked for before any charge: the customer, the amount in
 * its currency, the card (given or default), the allocations. Throws the 400/404.
 * Bulk jobs run it on every item when they are submitted. `chargeKey`: the gateway key the payment
 * will be charged under (an earlier run's reservation under it does not count against it).
 */
export async function checkPaymentRequest(ctx: AppContext, caller: Caller, input: CollectPaymentInput, chargeKey: string | null = null) {
  if (input.paymentAllocations?.length && input.autoAllocate) {
    throw Refusal.invalid('give either autoAllocate or paymentAllocations, not both', 'autoAllocate', 'value_invalid');
  }
  const customer = await findCustomerRow(ctx.db, caller.accountId, input.customerId);
  if (!customer) throw Refusal.notFound('customer', input.customerId);
  const amount = amountInCurrency(input.amount, customer.currency, 'amount');
  const card = await resolveCard(ctx, caller, customer, input);
  if (input.paymentAllocations?.length)
    await checkExplicitAllocations(ctx.db, { instance: ctx.instance, ownChargeKey: chargeKey }, customer, amount, input.paymentAllocations);
  return { customer, amount, card };
}

/**
 * How long past the gateway's deadline an allocation reservation holds: recording a charge's answer
 * takes milliseconds; a holder that could not let go (its database away) frees the invoice then.
 */
const RESERVATION_MARGIN_MS = 60_000;

/**
 * Checks a card payment's explicit allocations under the customer's lock and reserves them for the
 * charge `chargeKey`, committed before the gateway is called: concurrent payments naming the same
 * invoices, on any instance, queue on the lock and see this reservation, so the ones that no longer
 * fit are refused (400) before their card is charged.
 */
export async function reserveExplicitAllocations(
  ctx: AppContext,
  caller: Caller,
  customer: CustomerRow,
  amount: Money,
  allocations: NonNullable<CollectPaymentInput['paymentAllocations']>,
  chargeKey: string,
) {
  const counted = { instance: ctx.instance, ownChargeKey: chargeKey };
  await transactionWithRetry(ctx.db, async (trx) => {
    await lockCustomer(trx, caller.accountId, customer.id);
    const parts = await checkExplicitAllocations(trx, counted, customer, amount, allocations);
    await reserveAllocations(trx, counted, {
      accountId: caller.accountId,
      customerId: customer.id,
      heldForMs: ctx.payments.gatewayTimeoutMs + RESERVATION_MARGIN_MS,
      parts: parts.map((p) => ({ invoiceEntryId: p.invoiceEntryId, amount: p.amount.toString() })),
    });
  });
}
