/** Runs one usage-billing scenario on a throwaway PostgreSQL cluster and prints its report (the standalone bench:usage / bench:renewal). */
import { providePostgres, type PostgresServer } from './postgres.js';

export async function runUsageSection(name: string, scenario: (server: PostgresServer) => Promise<string>): Promise<void> {
  const provision = await providePostgres((line) => console.log(line));
  if ('skipped' in provision) return void console.log(`${name} skipped: ${provision.skipped}`);
  try {
    console.log(`\n${await scenario(provision.server)}`);
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    await provision.server.stop();
  }
}
