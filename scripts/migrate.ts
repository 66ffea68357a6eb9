import { openBillingResources } from '@renew/billing-service';

/**
 * `npm run migrate`: applies the migrations this release knows to the configured database (RENEW_DATABASE_URL,
 * else the embedded one in RENEW_DATA_DIR) and exits; run it once per release before the instances start.
 * Opening the database migrates it (every start does the same check); Kysely's migrator holds a lock while
 * it runs, so several instances migrating at once apply each migration once.
 */
async function main() {
  const { database } = await openBillingResources(process.env);
  await database.close();
  console.log(`migrate: the ${database.kind === 'postgres' ? 'PostgreSQL' : 'embedded'} database is up to date`);
}

main().catch((error) => {
  console.error(`migrate: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
