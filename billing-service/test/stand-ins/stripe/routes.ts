import type { Context, Handler } from './context.js';
import { createCustomer, retrieveCustomer } from './customers.js';
import { resourceMissing } from './errors.js';
import { attachPaymentMethod, createPaymentMethod, retrievePaymentMethod } from './payment-methods.js';
import { confirmPaymentIntent, createPaymentIntent, retrievePaymentIntent } from './payment-intents.js';
import { createRefund, listRefunds, retrieveRefund } from './refunds.js';
import { updateDispute } from './dispute-evidence.js';
import { confirmSetupIntent, createSetupIntent, retrieveSetupIntent } from './setup-intents.js';

interface Route {
  method: 'GET' | 'POST';
  /** The path with `:id` where an object's id goes. */
  path: string;
  handler: Handler;
}

/** The part of Stripe's API the stand-in speaks. */
const ROUTES: Route[] = [
  { method: 'POST', path: '/v1/customers', handler: createCustomer },
  { method: 'GET', path: '/v1/customers/:id', handler: retrieveCustomer },
  { method: 'POST', path: '/v1/payment_methods', handler: createPaymentMethod },
  { method: 'GET', path: '/v1/payment_methods/:id', handler: retrievePaymentMethod },
  { method: 'POST', path: '/v1/payment_methods/:id/attach', handler: attachPaymentMethod },
  { method: 'POST', path: '/v1/setup_intents', handler: createSetupIntent },
  { method: 'GET', path: '/v1/setup_intents/:id', handler: retrieveSetupIntent },
  { method: 'POST', path: '/v1/setup_intents/:id/confirm', handler: confirmSetupIntent },
  { method: 'POST', path: '/v1/payment_intents', handler: createPaymentIntent },
  { method: 'GET', path: '/v1/payment_intents/:id', handler: retrievePaymentIntent },
  { method: 'POST', path: '/v1/payment_intents/:id/confirm', handler: confirmPaymentIntent },
  { method: 'POST', path: '/v1/refunds', handler: createRefund },
  { method: 'GET', path: '/v1/refunds', handler: listRefunds },
  { method: 'GET', path: '/v1/refunds/:id', handler: retrieveRefund },
  { method: 'GET', path: '/v1/charges/:id', handler: ({ account, id }) => account.charge(id, 'id') },
  { method: 'GET', path: '/v1/disputes/:id', handler: ({ account, id }) => account.dispute(id) },
  { method: 'POST', path: '/v1/disputes/:id', handler: updateDispute },
  { method: 'GET', path: '/v1/events/:id', handler: retrieveEvent },
];

/** The route for a request and the id its path carries. */
export function matchRoute(method: string, path: string): { handler: Handler; id: string } | undefined {
  const segments = path.split('/');
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    let id = '';
    const fits = pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part !== ':id') return part === segment;
      id = safeDecode(segment);
      return segment !== '';
    });
    if (fits) return { handler: route.handler, id };
  }
  return undefined;
}

function retrieveEvent({ account, id }: Context): object {
  const event = account.events.find((candidate) => candidate.id === id);
  if (!event) throw resourceMissing('event', id);
  return event;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
