import type { AppContext } from '../app-context.js';
import type { Queryable } from '../db/database.js';
import { minorUnits, money } from '../money/money.js';
import { emitWebhookEvent } from '../outbox/webhook-events.js';
import { findDispute, type DisputeRow } from './repository.js';
import { toDisputeResponse } from './responses.js';

/** dispute.created or dispute.closed, with the dispute as the API answers it, in the change's transaction. */
export async function emitDisputeEvent(
  ctx: AppContext,
  trx: Queryable,
  dispute: { id: number; accountId: number; customerId: number },
  type: 'dispute.created' | 'dispute.closed',
  now: Date,
): Promise<void> {
  if (!ctx.webhooks) return;
  await emitWebhookEvent(trx, {
    accountId: dispute.accountId,
    customerId: dispute.customerId,
    type,
    now,
    data: async () => {
      const row = await findDispute(trx, dispute.accountId, dispute.id);
      return row ? toDisputeResponse(trx, ctx.uris, row) : null;
    },
  });
}

/** The merchant's operators are told of a dispute opened: what to answer, by when, and what it costs. */
export async function emailDisputeOpened(ctx: AppContext, trx: Queryable, dispute: DisputeRow): Promise<void> {
  if (!ctx.notifier?.enabled) return;
  const decimals = minorUnits(dispute.currency);
  const amount = `${money(dispute.amount).toFixed(decimals)} ${dispute.currency}`;
  const fee =
    dispute.fee === null ? '' : ` The processor charges a dispute fee of ${money(dispute.fee).toFixed(decimals)} ${dispute.currency}.`;
  const due = dispute.evidenceDueAt ? dispute.evidenceDueAt.toISOString().slice(0, 10) : 'the date the processor sets';
  const name = ctx.catalog.account.name;
  await ctx.notifier.enqueueAccountNotice(trx, {
    accountId: dispute.accountId,
    emailType: 'DisputeOpened',
    subject: `${name}: payment ${dispute.paymentId} is disputed (${amount})`,
    body:
      `Hello,\n\nThe cardholder's bank disputes payment ${dispute.paymentId} of customer ${dispute.customerId}: ` +
      `${amount}, reason "${dispute.reason}". The money was taken back and the invoices it paid are open again.${fee}\n\n` +
      `Answer with your evidence by ${due} (POST /v1/disputes/${dispute.id}/evidence, or the console's payment page); ` +
      `a dispute won gives the money back and pays the invoices again.\n\n— ${name}`,
  });
}
