/**
 * The billing API's answers as TypeScript types (`@renew/billing-service/api-types`),
 * each the `z.infer` of the zod schema that serializes and documents that answer.
 * Types only: importing this module brings no code (and no zod) into a bundle.
 */
export type { CaptureTokenResponse } from './capture-tokens/schemas.js';
export type { CountryResponse } from './countries/schemas.js';
export type { CustomerOverviewResponse, CustomerResponse } from './customers/schemas.js';
export type { InvoicePreviewResponse, InvoiceResponse } from './invoices/schemas.js';
export type { LifecycleResponse, PlanChangeResponse } from './lifecycle/schemas.js';
export type { PlanResponse } from './plans/schemas.js';
export type { UsageChargeResponse } from './usage/schemas.js';
export type { SubscriptionResponse } from './subscriptions/schemas.js';
