/** `npm run bench:usage`: only the usage-events figures of `npm run bench` (scenarios/usage-ingest.ts). */
import { runUsageSection } from './usage-section.js';
import { benchUsageIngest } from './scenarios/usage-ingest.js';

await runUsageSection('usage bench', benchUsageIngest);
