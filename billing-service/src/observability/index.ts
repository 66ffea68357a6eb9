/** Health, readiness and metrics for an app (`@renew/billing-service/observability`). */
export { isLoopback, observe, type Observability, type ObservabilityOptions } from './observe.js';
