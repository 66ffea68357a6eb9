import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as foundation from './migrations/0001-foundation.js';
import * as customerSettings from './migrations/0002-customer-settings.js';
import * as subscriptionsAndInvoices from './migrations/0003-subscriptions-and-invoices.js';
import * as payments from './migrations/0004-payments.js';
import * as capture from './migrations/0005-capture.js';
import * as listIndexes from './migrations/0006-list-indexes.js';
import * as bulkJobs from './migrations/0007-bulk-jobs.js';
import * as billingClock from './migrations/0008-billing-clock.js';
import * as emailOutbox from './migrations/0009-email-outbox.js';
import * as subscriptionCustomFields from './migrations/0010-subscription-custom-fields.js';
import * as ledgerOpenAmounts from './migrations/0011-ledger-open-amounts.js';
import * as subscriptionAnchorDay from './migrations/0012-subscription-anchor-day.js';
import * as captureTokens from './migrations/0013-capture-tokens.js';
import * as webhooks from './migrations/0014-webhooks.js';
import * as webhookAccountEmail from './migrations/0015-webhook-account-email.js';
import * as accountClocks from './migrations/0016-account-clocks.js';
import * as refunds from './migrations/0017-refunds.js';
import * as invoicePdfEmail from './migrations/0018-invoice-pdf-email.js';
import * as accountRowCounts from './migrations/0019-account-row-counts.js';
import * as lastNameSearchCovering from './migrations/0020-last-name-search-covering.js';
import * as chargeOnce from './migrations/0021-charge-once.js';
import * as instanceLiveness from './migrations/0022-instance-liveness.js';
import * as pendingPlanChanges from './migrations/0030-pending-plan-changes.js';
import * as consoleOperators from './migrations/0031-console-operators.js';
import * as consoleReadIndexes from './migrations/0032-console-read-indexes.js';
import * as consoleBulkListAndKeyRotation from './migrations/0033-console-bulk-list-and-key-rotation.js';
import * as fencedClaims from './migrations/0034-fenced-claims.js';
import * as idempotencyEveryWrite from './migrations/0035-idempotency-every-write.js';
import * as emailOutboxContentAndClaimToken from './migrations/0036-email-outbox-content-and-claim-token.js';
import * as cardAuthentication from './migrations/0037-card-authentication.js';
import * as paymentRequiresAction from './migrations/0038-payment-requires-action.js';
import * as disputes from './migrations/0039-disputes.js';
import * as paymentChallengeOfCapture from './migrations/0040-payment-challenge-of-capture.js';
import * as portalLinkBinding from './migrations/0041-portal-link-binding.js';
import * as portalCardAttemptsAndEmailChanges from './migrations/0042-portal-card-attempts-and-email-changes.js';
import * as collectionAttemptPerCard from './migrations/0043-collection-attempt-per-card.js';
import * as voidAndWriteOff from './migrations/0046-void-and-write-off.js';
import * as purchases from './migrations/0047-purchases.js';
import * as creditNotes from './migrations/0048-credit-notes.js';
import * as usageEvents from './migrations/0049-usage-events.js';
import * as usageBilledUntil from './migrations/0050-usage-billed-until.js';
import * as usageThresholds from './migrations/0051-usage-thresholds.js';
import * as creditNoteRefundsUnfinished from './migrations/0052-credit-note-refunds-unfinished.js';
import * as allocationReservations from './migrations/0023-allocation-reservations.js';
import * as subscriptionCouponOrder from './migrations/0024-subscription-coupon-order.js';
import * as accountStatusAndSynchDefaults from './migrations/0025-account-status-and-synch-defaults.js';
import * as caseInsensitiveSort from './migrations/0026-case-insensitive-sort.js';
import * as customerPortal from './migrations/0027-customer-portal.js';
import * as chargeCredits from './migrations/0028-charge-credits.js';
import * as customerLanguageAndHtmlEmails from './migrations/0029-customer-language-and-html-emails.js';

/** Migrations are listed in code (not read from disk) so they run the same under tsx, tests and a bundle. */
const migrations: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-customer-settings': customerSettings,
  '0003-subscriptions-and-invoices': subscriptionsAndInvoices,
  '0004-payments': payments,
  '0005-capture': capture,
  '0006-list-indexes': listIndexes,
  '0007-bulk-jobs': bulkJobs,
  '0008-billing-clock': billingClock,
  '0009-email-outbox': emailOutbox,
  '0010-subscription-custom-fields': subscriptionCustomFields,
  '0011-ledger-open-amounts': ledgerOpenAmounts,
  '0012-subscription-anchor-day': subscriptionAnchorDay,
  '0013-capture-tokens': captureTokens,
  '0014-webhooks': webhooks,
  '0015-webhook-account-email': webhookAccountEmail,
  '0016-account-clocks': accountClocks,
  '0017-refunds': refunds,
  '0018-invoice-pdf-email': invoicePdfEmail,
  '0019-account-row-counts': accountRowCounts,
  '0020-last-name-search-covering': lastNameSearchCovering,
  '0021-charge-once': chargeOnce,
  '0022-instance-liveness': instanceLiveness,
  '0023-allocation-reservations': allocationReservations,
  '0024-subscription-coupon-order': subscriptionCouponOrder,
  '0025-account-status-and-synch-defaults': accountStatusAndSynchDefaults,
  '0026-case-insensitive-sort': caseInsensitiveSort,
  '0027-customer-portal': customerPortal,
  '0028-charge-credits': chargeCredits,
  '0029-customer-language-and-html-emails': customerLanguageAndHtmlEmails,
  '0030-pending-plan-changes': pendingPlanChanges,
  '0031-console-operators': consoleOperators,
  '0032-console-read-indexes': consoleReadIndexes,
  '0033-console-bulk-list-and-key-rotation': consoleBulkListAndKeyRotation,
  '0034-fenced-claims': fencedClaims,
  '0035-idempotency-every-write': idempotencyEveryWrite,
  '0036-email-outbox-content-and-claim-token': emailOutboxContentAndClaimToken,
  '0037-card-authentication': cardAuthentication,
  '0038-payment-requires-action': paymentRequiresAction,
  '0039-disputes': disputes,
  '0040-payment-challenge-of-capture': paymentChallengeOfCapture,
  '0041-portal-link-binding': portalLinkBinding,
  '0042-portal-card-attempts-and-email-changes': portalCardAttemptsAndEmailChanges,
  '0043-collection-attempt-per-card': collectionAttemptPerCard,
  '0046-void-and-write-off': voidAndWriteOff,
  '0047-purchases': purchases,
  '0048-credit-notes': creditNotes,
  '0049-usage-events': usageEvents,
  '0050-usage-billed-until': usageBilledUntil,
  '0051-usage-thresholds': usageThresholds,
  '0052-credit-note-refunds-unfinished': creditNoteRefundsUnfinished,
};

class CodeMigrationProvider implements MigrationProvider {
  async getMigrations() {
    return migrations;
  }
}

export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: new CodeMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

/** Every migration this code knows, in order. */
export const KNOWN_MIGRATIONS: readonly string[] = Object.keys(migrations).sort();

/** Known migrations the database has not recorded as applied (the readiness check); empty when up to date. */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  const applied = new Set(rows.map((row) => row.name));
  return KNOWN_MIGRATIONS.filter((name) => !applied.has(name));
}
