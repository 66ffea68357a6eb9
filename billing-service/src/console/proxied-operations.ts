import type { ConsolePermission } from './permissions.js';

/**
 * Every /v1 operation the console's proxy may forward, by route id (method and route as registered,
 * lower-cased), with the permission it needs (README "Console"). An operation missing here is never
 * forwarded, and test/console/permissions.test.ts fails naming it: a new /v1 route is added here.
 */
const DECLARED: Record<ConsolePermission, readonly string[]> = {
  /** Every read the private key makes. */
  'console:read': [
    'GET /v1/openapi.json',
    'GET /v1/plans',
    'GET /v1/plans/:planid',
    'GET /v1/planfrequencies/:planfrequencyid',
    'GET /v1/planfrequencies/:planfrequencyid/charges/:amountid',
    'GET /v1/planfrequencies/:planfrequencyid/setupfees/:amountid',
    'GET /v1/subscriptions/:subscriptionid',
    'GET /v1/subscriptions/:subscriptionid/subscriptionproducts/:subscriptionproductid',
    'GET /v1/customers/:customerid/subscriptions',
    'GET /v1/customers',
    'GET /v1/customers/:customerid',
    'GET /v1/customers/:customerid/overview',
    'GET /v1/customers/:customerid/customerreference',
    'GET /v1/customers/:customerid/customerreference/salestrackingcodes/:salestrackingcodeid',
    'GET /v1/customers/:customerid/customeracquisition',
    'GET /v1/invoices/:invoiceid',
    'GET /v1/invoices/pdf/:invoiceid',
    'GET /v1/customers/:customerid/invoices',
    'GET /v1/customers/:customerid/paymentmethods/creditcard',
    'GET /v1/paymentmethods/:paymentmethodid/creditcard',
    'GET /v1/payments/:paymentid',
    'GET /v1/customers/:customerid/payments',
    'GET /v1/refunds/:refundid',
    'GET /v1/payments/:paymentid/refunds',
    'GET /v1/customers/:customerid/refunds',
    'GET /v1/disputes',
    'GET /v1/disputes/:disputeid',
    'GET /v1/customers/:customerid/disputes',
    'GET /v1/customerbillingsetting/:customerid',
    'GET /v1/addresses/:addressid',
    'GET /v1/customeraddresspreferences/:customerid',
    'GET /v1/customernotes/:noteid',
    'GET /v1/customers/:customerid/notes',
    'GET /v1/purchases/:purchaseid',
    'GET /v1/customers/:customerid/purchases',
    'GET /v1/creditnotes/:creditnoteid',
    'GET /v1/creditnotes/pdf/:creditnoteid',
    'GET /v1/customers/:customerid/creditnotes',
    'GET /v1/subscriptions/:subscriptionid/usage',
    'GET /v1/usagecharges',
    'GET /v1/subscriptions/:subscriptionid/usagethresholds',
    'GET /v1/countries',
    'GET /v1/countries/:countryid',
    'GET /v1/customers/:customerid/customeremailpreferences',
    'GET /v1/bulkapi/:bulkjobid',
    'GET /v1/webhookendpoints',
    'GET /v1/webhookendpoints/:webhookendpointid',
    'GET /v1/webhookendpoints/:webhookendpointid/deliveries',
    'GET /v1/webhookdeliveries/:webhookdeliveryid',
    'GET /v1/testclock',
  ],
  /** Notes on a customer (support). */
  'notes:write': ['POST /v1/customernotes', 'DELETE /v1/customernotes/:noteid', 'DELETE /v1/customernotes/delete/:noteid'],
  /** A portal link for a customer (support). */
  'portal:write': ['POST /v1/portalsessions'],
  /** Every other billing write (billing). */
  'billing:write': [
    'POST /v1/subscriptions',
    'DELETE /v1/subscriptions/:subscriptionid/changes/pending',
    'PUT /v1/subscriptions',
    'POST /v1/customers',
    'PUT /v1/customers',
    'POST /v1/customeractivation',
    'POST /v1/customerhold/:customerid',
    'POST /v1/customers/unhold',
    'POST /v1/customercancellation',
    'POST /v1/subscriptions/:subscriptionid/changes',
    'POST /v1/customers/uncancel/:customerid',
    'POST /v1/invoices/:invoiceid/post',
    'POST /v1/invoices/:invoiceid/void',
    'POST /v1/invoices/:invoiceid/writeoff',
    'POST /v1/creditnotes',
    'POST /v1/creditnotes/preview',
    'POST /v1/usageevents',
    'PUT /v1/subscriptions/:subscriptionid/usagethresholds',
    'POST /v1/paymentmethods/creditcard',
    'PUT /v1/paymentmethods/creditcard',
    'DELETE /v1/paymentmethods/:paymentmethodid/creditcard',
    'POST /v1/capturetokens',
    'POST /v1/payments',
    'POST /v1/refunds',
    'POST /v1/purchases',
    'DELETE /v1/purchases/:purchaseid',
    'POST /v1/disputes/:disputeid/evidence',
    'PUT /v1/customerbillingsetting',
    'POST /v1/addresses',
    'PUT /v1/addresses',
    'PUT /v1/customeraddresspreferences',
    'PUT /v1/customeremailpreferences',
    'POST /v1/bulkpaymentsubmit',
    'POST /v1/bulkapi/process',
    'POST /v1/bulkapi/cancel/:bulkjobid',
    'POST /v1/testclock/advance',
    'POST /v1/testclock/reset',
  ],
  /** Webhook endpoints and their deliveries (owner). */
  'webhooks:write': [
    'POST /v1/webhookendpoints',
    'PUT /v1/webhookendpoints',
    'PUT /v1/webhookendpoints/:webhookendpointid',
    'DELETE /v1/webhookendpoints/:webhookendpointid',
    'POST /v1/webhookendpoints/:webhookendpointid/rotatesecret',
    'POST /v1/webhookdeliveries/:webhookdeliveryid/retry',
  ],
  'session:own': [],
  'apikeys:write': [],
  'team:manage': [],
};

const OPERATIONS = new Map<string, ConsolePermission>(
  Object.entries(DECLARED).flatMap(([permission, ids]) => ids.map((id) => [id, permission as ConsolePermission] as const)),
);

/** A /v1 operation's id: its method (HEAD as GET) and its route as registered, lower-cased (routes ignore case). */
export function proxiedOperationId(method: string, url: string): string {
  return `${method === 'HEAD' ? 'GET' : method.toUpperCase()} ${url.toLowerCase()}`;
}

/** What forwarding an operation needs; undefined: the console does not forward it. */
export function proxiedPermission(method: string, url: string): ConsolePermission | undefined {
  return OPERATIONS.get(proxiedOperationId(method, url));
}

/** Every declared operation id (the route×role test checks each is a registered route). */
export const DECLARED_OPERATION_IDS: readonly string[] = [...OPERATIONS.keys()];
