/** Health, readiness and metrics for an app (`@renew/billing-service/observability`). */
export { observe, type Observability, type ObservabilityOptions } from './observe.js';
