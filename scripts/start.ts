import { startCaptureService } from '@renew/capture-service/start-capture.js';
import { billingBanner, startBillingService, stopOnSignals } from '@renew/billing-service/start-billing.js';

/**
 * `npm start`: the whole product in one process on one database (the embedded
 * one cannot be shared between processes): the billing API and the card-capture host.
 */
async function main() {
  const billing = await startBillingService();
  let capture: Awaited<ReturnType<typeof startCaptureService>> | undefined;
  stopOnSignals(async () => {
    await capture?.app.close();
    await billing.close();
  });
  capture = await startCaptureService({
    database: billing.database,
    catalog: billing.catalog,
    gateway: billing.gateway,
    publicBaseUrl: billing.config.publicBaseUrl ?? billing.url,
  });
  console.log(`${billingBanner(billing)}\nCard-capture host listening on ${capture.url} (POST ${capture.url}/api/paymentsv2)`);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
