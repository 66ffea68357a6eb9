import type { Catalog } from './schema.js';
import type { UsageCharge } from './usage-schema.js';

/** The usage charges of a catalogue plan frequency (none for a frequency the catalogue no longer has). */
export function usageChargesOf(catalog: Catalog, planFrequencyId: number): UsageCharge[] {
  for (const plan of catalog.plans) for (const f of plan.frequencies) if (f.id === planFrequencyId) return f.usageCharges;
  return [];
}
