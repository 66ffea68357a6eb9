/**
 * What the card-capture host needs from disputes (`@renew/billing-service/disputes`): ingesting a processor's
 * events that it receives itself (Stripe's webhooks), as the worker ingests the events it fetches.
 */
export { ingestGatewayEvent } from './ingest.js';
