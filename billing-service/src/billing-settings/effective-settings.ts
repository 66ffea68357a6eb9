import type { Catalog, Term } from '../catalog/schema.js';
import type { BillingSettingRow } from './repository.js';
import type { SERVICE_START_OPTIONS } from './schemas.js';

type ServiceStartOption = (typeof SERVICE_START_OPTIONS)[number];

/** A billing setting with every null ("account default") resolved from the catalogue's defaults. */
export interface EffectiveBillingSettings {
  term: Term;
  autoCollect: boolean;
  autoPostDraftInvoice: boolean;
  showZeroDollarCharges: boolean;
  useCustomerBillingAddress: boolean;
  rollUpTaxes: boolean;
  rollUpDiscounts: boolean;
  taxExempt: boolean;
  customerGracePeriod: number;
  gracePeriodExtension: number;
  customerAutoCancel: number;
  defaultCancelOption: 'Full' | 'None' | 'Unearned';
  /** How billing resumes when the system lifts a suspension (the customer paid). Default: no charges for the missed periods. */
  customerServiceStartOption: ServiceStartOption;
  poNumber: string | null;
}

export function effectiveBillingSettings(row: BillingSettingRow | undefined, catalog: Catalog): EffectiveBillingSettings {
  const d = catalog.defaults;
  return {
    term: (row?.term as Term | null) ?? d.term,
    autoCollect: row?.autoCollect ?? d.autoCollect,
    autoPostDraftInvoice: row?.autoPostDraftInvoice ?? d.autoPostDraftInvoice,
    showZeroDollarCharges: row?.showZeroDollarCharges ?? d.showZeroDollarCharges,
    useCustomerBillingAddress: row?.useCustomerBillingAddress ?? d.useCustomerBillingAddress,
    rollUpTaxes: row?.rollUpTaxes ?? d.rollUpTaxes,
    rollUpDiscounts: row?.rollUpDiscounts ?? d.rollUpDiscounts,
    taxExempt: row?.taxExempt ?? false,
    customerGracePeriod: row?.customerGracePeriod ?? d.customerGracePeriod,
    gracePeriodExtension: row?.gracePeriodExtension ?? 0,
    customerAutoCancel: row?.customerAutoCancel ?? d.customerAutoCancel,
    defaultCancelOption: (row?.defaultCancelOption as EffectiveBillingSettings['defaultCancelOption'] | null) ?? d.defaultCancelOption,
    customerServiceStartOption: (row?.customerServiceStartOption as ServiceStartOption | null) ?? 'NoChargesForMissedPeriods',
    poNumber: row?.standingPoNumber ?? null,
  };
}
