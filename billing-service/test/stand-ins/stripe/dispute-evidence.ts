import type Stripe from 'stripe';
import type { Context } from './context.js';
import { invalidParameter, invalidRequest } from './errors.js';
import type { DisputeObject } from './objects.js';
import { Params } from './params.js';

/** The text fields of a dispute's evidence the stand-in takes (Stripe's file fields and shipping details are not). */
const TEXT_EVIDENCE: ReadonlyArray<keyof Stripe.Dispute.Evidence> = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'duplicate_charge_explanation',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'uncategorized_text',
];

/**
 * POST /v1/disputes/:id: the merchant's evidence, saved, and with submit=true (Stripe's default) sent to the bank:
 * the dispute goes `under_review` and `charge.dispute.updated` follows. Only a dispute waiting for a response takes
 * evidence (the refusal's wording is a guess, see README).
 */
export function updateDispute(context: Context): DisputeObject {
  const params = new Params(context.body, ['evidence', 'submit', 'metadata']);
  const dispute = context.account.dispute(context.id);
  if (dispute.status !== 'needs_response' && dispute.status !== 'warning_needs_response') {
    throw invalidRequest(`This dispute is ${dispute.status} and can no longer be updated.`, 'dispute_not_updatable');
  }
  const evidence = new Params(params.object('evidence') ?? {}, TEXT_EVIDENCE);
  for (const field of TEXT_EVIDENCE) {
    const value = evidence.string(field);
    if (value === undefined) continue;
    if (value.length > 20_000) throw invalidParameter(`evidence[${field}]`, 'Evidence text is limited to 20,000 characters');
    dispute.evidence[field] = value;
  }
  Object.assign(dispute.metadata, params.metadata());
  dispute.evidence_details.has_evidence = Object.keys(dispute.evidence).length > 0;
  if (params.boolean('submit') ?? true) {
    dispute.status = 'under_review';
    dispute.evidence_details.submission_count += 1;
  }
  context.account.emit('charge.dispute.updated', dispute, context.origin);
  return dispute;
}
