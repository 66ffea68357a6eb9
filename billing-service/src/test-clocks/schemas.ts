import { z } from 'zod';

export const AdvanceTestClockBody = z.object({
  /** The account's new time: after its current time, at most five years later. */
  to: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 timestamp, e.g. 2027-01-31T00:00:00Z' }),
});
export type AdvanceTestClockInput = z.infer<typeof AdvanceTestClockBody>;

export const TestClockResponse = z.object({
  /** The account's time. */
  now: z.string(),
  /** Whether the account left real time (its clock stands still at `now` until the next advance). */
  advanced: z.boolean(),
});
export type TestClockResponse = z.infer<typeof TestClockResponse>;

/** What the billing clock did for the account while its time moved, counted over the whole advance. */
export const TestClockAdvanceResponse = TestClockResponse.extend({
  from: z.string(),
  /** Billing clock ticks run: one per day passed, and one at `to`. */
  days: z.number(),
  invoicesPosted: z.number(),
  customersRenewed: z.number(),
  paymentsCollected: z.number(),
  paymentsFailed: z.number(),
  overdueNotices: z.number(),
  customersSuspended: z.number(),
  customersReactivated: z.number(),
  customersCancelled: z.number(),
  /** Written to the outboxes during the advance; delivered by the e-mail and webhook workers right after. */
  emailsQueued: z.number(),
  webhookEventsQueued: z.number(),
});
export type TestClockAdvanceResponse = z.infer<typeof TestClockAdvanceResponse>;
