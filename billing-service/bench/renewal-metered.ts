/** `npm run bench:renewal`: only the metered-renewal figures of `npm run bench` (scenarios/usage-renewal.ts). */
import { runUsageSection } from './usage-section.js';
import { benchUsageRenewal } from './scenarios/usage-renewal.js';

await runUsageSection('renewal bench', benchUsageRenewal);
