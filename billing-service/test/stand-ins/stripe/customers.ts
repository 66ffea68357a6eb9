import type { Context } from './context.js';
import { type CustomerObject, newId, nowSeconds } from './objects.js';
import { Params } from './params.js';

const CREATE = [
  'address',
  'description',
  'email',
  'invoice_settings',
  'metadata',
  'name',
  'payment_method',
  'phone',
  'preferred_locales',
  'shipping',
];

/** POST /v1/customers. Address and shipping are accepted and not kept (the adapter does not send them; see README). */
export function createCustomer({ account, body }: Context): CustomerObject {
  const params = new Params(body, CREATE);
  const locales = params.values.preferred_locales;
  const customer: CustomerObject = {
    id: newId('cus'),
    object: 'customer',
    address: null,
    balance: 0,
    created: nowSeconds(),
    description: params.string('description') ?? null,
    email: params.string('email') ?? null,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: false,
    metadata: params.metadata(),
    name: params.string('name') ?? null,
    phone: params.string('phone') ?? null,
    preferred_locales: Array.isArray(locales) ? locales.filter((locale): locale is string => typeof locale === 'string') : [],
  };
  account.customers.set(customer.id, customer);
  const paymentMethod = params.string('payment_method');
  if (paymentMethod) account.paymentMethod(paymentMethod).object.customer = customer.id;
  return customer;
}

/** GET /v1/customers/:id */
export function retrieveCustomer({ account, id }: Context): CustomerObject {
  return account.customer(id, 'id');
}
