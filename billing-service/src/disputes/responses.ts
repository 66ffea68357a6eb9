import type { Queryable } from '../db/database.js';
import { toJsonAmount } from '../money/money.js';
import type { UriBuilder } from '../uri-builder.js';
import { findDisputeUnallocations, type DisputeRow } from './repository.js';
import type { DisputeResponse } from './schemas.js';

/** Disputes as the API answers them, with what each took back from invoices. */
export async function toDisputeResponses(db: Queryable, uris: UriBuilder, disputes: DisputeRow[]): Promise<DisputeResponse[]> {
  const unallocations = await findDisputeUnallocations(
    db,
    disputes.map((d) => d.id),
  );
  return disputes.map((d) => ({
    id: d.id,
    customerId: d.customerId,
    paymentId: d.paymentId,
    gatewayDisputeId: d.gatewayDisputeId,
    amount: toJsonAmount(d.amount),
    currency: d.currency,
    reason: d.reason,
    status: d.status,
    evidenceDueTimestamp: d.evidenceDueAt?.toISOString() ?? null,
    evidenceSubmittedTimestamp: d.evidenceSubmittedAt?.toISOString() ?? null,
    fee: d.fee === null ? null : toJsonAmount(d.fee),
    invoiceUnallocations: unallocations
      .filter((u) => u.disputeId === d.id)
      .map((u) => ({
        invoiceId: u.invoiceId,
        invoiceNumber: u.invoiceNumber,
        amount: toJsonAmount(u.amount),
        uri: uris.resource('Invoices', u.invoiceId),
      })),
    createdTimestamp: d.createdAt.toISOString(),
    closedTimestamp: d.closedAt?.toISOString() ?? null,
    paymentUri: uris.resource('payments', d.paymentId),
    customerUri: uris.resource('customers', d.customerId),
    uri: uris.resource('disputes', d.id),
  }));
}

/** One dispute as the API answers it. */
export async function toDisputeResponse(db: Queryable, uris: UriBuilder, dispute: DisputeRow): Promise<DisputeResponse> {
  const [response] = await toDisputeResponses(db, uris, [dispute]);
  if (!response) throw new Error('toDisputeResponses answers one response per row');
  return response;
}
