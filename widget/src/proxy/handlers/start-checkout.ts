import type { z } from 'zod';
import type { CustomerResponse } from '@renew/billing-service/api-types';
import { enforceRateLimit } from '@renew/billing-service/http';
import type { StartedCheckout } from '../../checkout-contract.js';
import type { Exchange, ProxyContext } from '../proxy-context.js';
import { headerSink } from '../proxy-io.js';
import type { PROXY_ROUTES } from '../proxy-routes.js';

/** Steps 2-3: the Draft customer with its billing address; the answer carries the session. */
export async function startCheckout(ctx: ProxyContext, exchange: Exchange): Promise<StartedCheckout> {
  const perMinute = ctx.options.perIpNewCustomersPerMinute ?? 20;
  // Each new checkout is a customer in the merchant's books: fewer per address than other calls.
  await enforceRateLimit(ctx.store, headerSink(exchange.headers), `checkout-customers:${exchange.addressBudget}`, {
    perMinute,
    perDay: perMinute * 60,
  });
  const { firstName, lastName, email, address, language } = exchange.body as z.infer<typeof PROXY_ROUTES.startCheckout.body>;
  const customer = await ctx.billingFor(exchange).call<CustomerResponse>('POST', '/v1/customers', {
    ...(language ? { language } : {}),
    firstName,
    lastName,
    primaryEmail: email,
    currency: ctx.options.currency,
    billing: {
      line1: address.line1,
      line2: address.line2 || null,
      city: address.city,
      postalZip: address.postalZip,
      country: address.country.toUpperCase(),
      // The schema takes "US-NY" only: the subdivision is what follows the one hyphen.
      state: address.state ? address.state.slice(address.state.indexOf('-') + 1).toUpperCase() : null,
    },
  });
  return { customerId: customer.id, session: ctx.sessions.issue(customer.id) };
}
