import { Refusal } from '../refusals/refusal.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../http/auth.js';
import type { AppContext } from '../app-context.js';
import type { UriBuilder } from '../uri-builder.js';
import { heldByDisputes } from '../ledger/disputes.js';
import { money, sumMoney, toJsonAmount } from '../money/money.js';
import { findAllocations, findRefundsOfPayments, findPayment, type PaymentRow } from './repository.js';
import type { PaymentResponse } from './schemas.js';

export async function toPaymentResponses(db: Queryable, uris: UriBuilder, payments: PaymentRow[]): Promise<PaymentResponse[]> {
  const entryIds = payments.flatMap((p) => (p.ledgerEntryId ? [p.ledgerEntryId] : []));
  const [allocations, refunds, disputed] = await Promise.all([
    findAllocations(db, entryIds),
    findRefundsOfPayments(
      db,
      payments.map((p) => p.id),
    ),
    heldByDisputes(db, entryIds),
  ]);
  return payments.map((p) => {
    const unallocated = p.status === 'Succeeded' ? (p.unallocated ?? '0') : '0';
    const own = refunds.filter((r) => r.paymentId === p.id);
    const refunded = sumMoney(own.filter((r) => r.status === 'Succeeded').map((r) => money(r.amount)));
    const disputedAmount = (p.ledgerEntryId && disputed.get(p.ledgerEntryId)) || money(0);
    // refunds that hold money, and open or lost disputes: what cannot be refunded any more
    const held = sumMoney(own.filter((r) => r.status !== 'Failed').map((r) => money(r.amount))).plus(disputedAmount);
    return {
      paymentActivityId: p.id,
      reference: p.reference,
      effectiveTimestamp: p.effectiveAt.toISOString(),
      customerId: p.customerId,
      amount: toJsonAmount(p.amount),
      currency: p.currency,
      status: p.status,
      paymentMethod: p.paymentMethodType as PaymentResponse['paymentMethod'],
      paymentMethodId: p.paymentMethodId,
      source: p.source as PaymentResponse['source'],
      declineCode: p.declineCode,
      invoiceAllocations: allocations
        .filter((a) => a.sourceEntryId === p.ledgerEntryId)
        .map((a) => ({
          invoiceId: a.invoiceId,
          invoiceNumber: a.invoiceNumber,
          amount: toJsonAmount(a.amount),
          outstandingBalance: toJsonAmount(a.outstandingBalance),
          invoiceTotal: toJsonAmount(a.invoiceTotal),
          uri: uris.resource('Invoices', a.invoiceId),
        })),
      refunds: own.map((r) => ({
        amount: toJsonAmount(r.amount),
        status: r.status,
        effectiveTimestamp: r.effectiveAt.toISOString(),
        id: r.id,
        uri: uris.resource('refunds', r.id),
      })),
      unallocatedAmount: toJsonAmount(unallocated),
      refundedAmount: toJsonAmount(refunded),
      disputedAmount: toJsonAmount(disputedAmount),
      refundableAmount: toJsonAmount(p.status === 'Succeeded' ? money(p.amount).minus(held) : money(0)),
      id: p.id,
      uri: uris.resource('payments', p.id),
    };
  });
}

export async function getPayment(ctx: AppContext, caller: Caller, id: number): Promise<PaymentResponse> {
  const row = await findPayment(ctx.db, caller.accountId, id);
  if (!row) throw Refusal.notFound('payment', id);
  const [response] = await toPaymentResponses(ctx.db, ctx.uris, [row]);
  if (!response) throw new Error('toPaymentResponses answers one response per row');
  return response;
}
