import type { Account } from './account.js';
import { authenticationFailure } from './errors.js';

const NO_KEY =
  "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY'). See https://docs.stripe.com/api#authentication for details, or we can help at https://support.stripe.com/.";

/**
 * The account of a request's secret key. Stripe takes the key as a Bearer token (what stripe-node sends) or as the
 * user name of Basic auth (what `curl -u sk_test_…:` sends); anything else is a 401 in Stripe's error shape.
 */
export function authenticate(header: string | undefined, accounts: ReadonlyMap<string, Account>): Account {
  const key = keyOf(header);
  if (!key) throw authenticationFailure(NO_KEY);
  const account = accounts.get(key);
  if (!account) throw authenticationFailure(`Invalid API Key provided: ${masked(key)}`);
  return account;
}

function keyOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (!value) return undefined;
  if (scheme?.toLowerCase() === 'bearer') return value;
  if (scheme?.toLowerCase() === 'basic') return Buffer.from(value, 'base64').toString('utf8').split(':')[0];
  return undefined;
}

/** Stripe shows a refused key with all but its prefix and last four characters hidden. */
function masked(key: string): string {
  const prefix = /^(sk|rk|pk)_(test|live)_/.exec(key)?.[0] ?? '';
  return `${prefix}${'*'.repeat(Math.max(0, key.length - prefix.length - 4))}${key.slice(-4)}`;
}
