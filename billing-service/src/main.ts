import { billingBanner, startBillingService, stopOnSignals } from './start-billing.js';

/** The billing API alone (several of these can share one PostgreSQL). `npm start` at the root runs the whole product. */
async function main() {
  const billing = await startBillingService();
  stopOnSignals(() => billing.close());
  console.log(billingBanner(billing));
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
