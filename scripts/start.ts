import { stopOnSignals } from '@renew/billing-service';
import { startProduct, type StartedProduct } from './start-product.js';

/** `npm start`: everything in one process (see start-product.ts). */
async function main() {
  let product: StartedProduct | undefined;
  stopOnSignals(async () => product?.close());
  product = await startProduct(process.env);
  console.log(product.banner);
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
