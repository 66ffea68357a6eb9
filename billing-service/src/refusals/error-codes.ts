/*
 * The stable machine codes of refusals, free of HTTP: the services refuse with them (refusal.ts), the
 * HTTP layer lists them in the error body (http/error-codes.ts) and the OpenAPI document.
 */

/**
 * The machine codes an error item may carry (`Code`, beside the spec's `Key` and `Value`): stable
 * names for refusals a client or the checkout acts on. The English `Value` may be reworded at any
 * time; a client branches on `Code`. Declared once here; README "Error codes" and the OpenAPI
 * document list them from this table.
 */
export const ERROR_CODES = {
  // Generic: every refusal that has no more specific code carries one of these (the Key names the field).
  value_required: 'a required field is missing or empty',
  value_invalid: "a field's value is not of the type, form or range the field takes",
  value_taken: 'the value must be unique in the account and another record already has it',
  not_found: 'the resource, or one the request refers to, does not exist in this account',
  state_conflict: "the request is valid, but the resource's present state does not allow it",
  request_malformed: 'the body is not JSON of the declared content type, or is too large, or the query cannot be read',
  endpoint_not_found: 'no endpoint at this path',
  method_not_allowed: 'the endpoint exists but not with this method (the Allow header lists the methods it takes)',
  unauthenticated: "no API key, or a key that is not one of this service's",
  forbidden: 'the credentials are valid but may not do this',
  rate_limited: 'too many requests: wait Retry-After seconds',
  idempotency_key_reused: 'this Idempotency-Key was already used with a different request',
  idempotency_key_in_flight: 'a request with this Idempotency-Key is still running, or its answer was lost: read the resource',
  gateway_unavailable: 'the payment gateway could not be reached or failed: nothing was charged, retry later',
  gateway_timed_out: 'the payment gateway did not answer in time: read the payment before retrying',
  database_unavailable: 'the database is unavailable for a moment: retry after Retry-After seconds',
  internal_error: 'an error of the service itself (reported with the ErrorId)',
  // Cards (the gateway's checks and declines)
  card_invalid: 'the card number, security code or expiry is not of a valid form',
  card_expired: 'the card is past its expiry date',
  coupon_unknown: 'the coupon code is not in the catalogue',
  coupon_inapplicable: 'the coupon exists but cannot be used here (another currency, listed twice)',
  quantity_out_of_bounds: "a quantity outside the product's minimum and maximum",
  subscription_not_draft: 'the change needs a Draft subscription, and this one has moved on (activated meanwhile)',
  checkout_complete: "the checkout's order was already activated; nothing more can change",
  captcha_failed: 'the CAPTCHA token was already used, is not valid, or was solved on another site: solve it again',
  capture_token_required: 'adding a card to this customer, or making a new card its default, needs a capture token from the shop',
  card_declined: 'the card or the first payment was declined; the card was not kept',
  portal_link_expired: 'the portal link is past its lifetime: ask for a new one (sign in by e-mail, or the shop makes a new session)',
  portal_link_used: 'the portal link opens once and was already opened: ask for a new one',
  portal_link_superseded: 'no longer given (a newer e-mail leaves the older links working); kept for clients that branch on it',
  portal_link_invalid: 'the portal link is not one this service issued',
  portal_session_expired: 'the portal session ended (signed out, idle too long, or at its time limit): open a new link',
  portal_action_not_allowed:
    "the portal session may not do this: an e-mail link may only update the card and pay, and the catalogue's portal settings bound the rest",
  csrf_token_invalid: "a console or portal write without the session's CSRF token (X-CSRF-Token, X-Portal-CSRF), or with another one",
  console_session_required: 'no console session, or it ended (signed out, idle too long, or at its time limit): sign in again',
  console_role_forbidden: "the operator's role may not do this",
  console_credentials_invalid: 'the e-mail or the password is wrong (the same answer for an e-mail nobody uses)',
  console_totp_required: 'the operator has a second factor: send totpCode, the 6 digits of the authenticator app',
  console_totp_invalid: 'the authenticator code is wrong, too old, or was already used',
  console_sign_in_throttled: 'too many failed sign-ins for this e-mail from this address, or from this address: wait Retry-After seconds',
  console_invitation_expired: 'the invitation is past its lifetime: ask an owner for a new one',
  console_invitation_used: 'the invitation was already accepted: sign in instead',
  console_operator_exists: 'an operator with this e-mail already exists in the account',
  console_last_owner: 'the account would have no owner left: make another operator owner first',
  console_operator_self: 'an operator cannot remove itself: another owner can',
  plan_change_not_active: "only an Active customer's Active subscription can change plan or seats",
  plan_change_renewal_due: "the subscription's renewal is due: change it once the renewal is billed",
  plan_change_draft_period: "the current period's invoice is still a Draft: post it first, or change at periodEnd",
  plan_change_nothing: 'the change changes nothing: another plan frequency or other quantities are needed',
  plan_unavailable:
    "the plan frequency is not active, not offered in the subscription's currency, or the catalogue does not allow the switch",
  quantity_fixed: "the product's quantity is fixed by the plan",
  // capture-widget: the browser side (card frame, widget) names a request that never reached the service.
  network_error: 'the browser could not reach the service (no connection, or no answer): nothing was received, retry',
  capture_token_invalid:
    'the capture token is unknown, expired, already used, or was issued for another customer: ask the shop for a new one',
  // refunds
  refund_declined: 'the gateway refused the refund; the refund is recorded as Failed and nothing went back',
  // 3-D Secure (issue 37)
  authentication_required:
    "the card's bank asks the customer to authenticate (3-D Secure): done where the customer is (the capture host's challenge), not through the private API",
  authentication_failed:
    "the customer's authentication with the bank failed, expired or was abandoned: nothing was saved or charged; try again or use another card",
  authentication_pending: 'the challenge has not been answered yet: complete it on its page, then ask again',
  authentication_unknown: 'no card authentication has this id, or it was made by another account',
  // disputes branch (issue 37)
  dispute_closed: 'the dispute is closed (won or lost): it takes no more evidence',
  evidence_declined: 'the payment processor refused the evidence (its code in declineCode)',
  signature_invalid: "a processor's webhook whose signature does not verify (Stripe-Signature): nothing was done",
  // s38-links branch (issue 38)
  // merge of issue 38 (portal pay-now racing the billing clock)
  payment_in_progress:
    'an automatic payment of the same money is at the payment processor now: look again in a minute, nothing was charged',
  cross_site_refused: 'a portal link opened by another site (Origin or Sec-Fetch-Site): open the link from its e-mail instead',
  // s38-cards (issue 38): the portal's card form against card testing, and e-mail changes proven by the new address
  captcha_required: "the customer's card was declined within the hour: this attempt needs a solved CAPTCHA (recaptcha)",
  card_attempts_exhausted:
    "the customer's cards were declined too often within an hour: card updates are refused until Retry-After seconds have passed",
  email_change_invalid:
    'the e-mail change link is unknown, expired, already used, or replaced by a newer request: ask for the change again',
  // s40-corrections branch (issue 40): void and write-off of posted invoices
  invoice_not_posted: 'the invoice is a Draft, which owes nothing yet: only a posted invoice can be voided or written off',
  invoice_closed: 'the invoice is Void or WrittenOff: it takes no payment, and is not voided or written off again',
  invoice_has_payments:
    'payments or credits are allocated to the invoice: only an invoice nothing was paid on can be voided (refund first, or write off what is owed)',
  invoice_nothing_owed: 'nothing is owed on the invoice (it is paid): there is nothing to write off',
  // s40-purchases branch (issue 40)
  purchase_not_draft: 'only a Draft purchase can be deleted: this one was invoiced, or waits for the next invoice',
  // credit notes (issue 40)
  // usage events (issue 41), per event in POST /v1/usageEvents' refused list
  usage_not_charged: 'no Active or Suspended subscription of the customer has a usage charge on the metric: the event would bill nothing',
  usage_out_of_period:
    "the event's timestamp is before the subscription's current period (its usage was billed) or more than 5 minutes ahead of the account clock",
  credit_exceeds_line:
    "more than is left to credit on the invoice line (with its tax, after earlier credit notes and cancellations' credits)",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The `Key` of an error item that is about the request as a whole rather than one field. */
export const API_ERROR_KEY = 'Api Error';

/** One item of the spec's error body; `Code` is Renew's addition, present when the refusal has one. */
export interface ErrorItem {
  Key: string;
  Value: string;
  Code: ErrorCode;
}
