/** Accounts and their API keys (`@renew/billing-service/accounts`). */
export { accountForKeyHash, createAccount, type CreatedAccount } from './service.js';
export { hashApiKey } from './api-keys.js';
export type { Account, AccountWithKey, KeyKind } from './repository.js';
