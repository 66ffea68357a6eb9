/**
 * The billing API as an app (`@renew/billing-service`): build it (tests,
 * benchmarks), its services' context, its configuration, or start it (the
 * product launcher).
 */
export { buildApp, type AppOptions } from './app.js';
export type { AppContext } from './app-context.js';
export { createAppContext } from './create-app-context.js';
export { wallClockNow, type AccountClock } from './clock/account-clock.js';
export { DEMO_CATALOG_PATH, isProduction, loadConfig, SANDBOX_IN_PRODUCTION_WARNING, type Config } from './config.js';
export {
  billingBanner,
  openBillingResources,
  startBillingService,
  stopOnSignals,
  type BillingResources,
  type BillingRole,
  type StartedBilling,
} from './start-billing.js';
