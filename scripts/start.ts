import { billingBanner, startBillingService, stopOnSignals, type BillingRole } from '@renew/billing-service';
import { startCaptureRole, startProduct } from './start-product.js';

/**
 * `npm start`: everything in one process (see start-product.ts). `npm start -- <role>` runs one role,
 * as operators run several instances on one PostgreSQL (README "Operating it"):
 *   api      the billing API, without background tasks
 *   capture  the card-capture host and its hosted pages
 *   worker   the billing clock and the bulk, e-mail and webhook workers; no port
 */
const ROLES = ['all', 'api', 'capture', 'worker'] as const;
type Role = (typeof ROLES)[number];

async function main() {
  const role = (process.argv[2] ?? 'all') as Role;
  if (!ROLES.includes(role)) throw new Error(`unknown role "${process.argv[2]}": use one of api, capture, worker (or none for everything)`);
  let close: (() => Promise<void>) | undefined;
  stopOnSignals(async () => close?.());
  if (role === 'all') {
    const product = await startProduct(process.env);
    close = () => product.close();
    console.log(product.banner);
  } else if (role === 'capture') {
    const capture = await startCaptureRole(process.env);
    close = () => capture.close();
    console.log(capture.banner);
  } else {
    const billing = await startBillingService(process.env, role satisfies BillingRole);
    close = () => billing.close();
    console.log(billingBanner(billing, role));
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
