import { z } from 'zod';
import { SESSION_HEADER } from '../checkout-contract.js';
import { PROXY_ROUTES, type ProxyRoute } from './proxy-routes.js';
import { ErrorBodyResponse } from './proxy-schemas.js';

/**
 * The proxy's routes as an OpenAPI 3.1 document, generated from the zod schemas the
 * handler validates with, so a merchant whose server is not Node can implement the
 * same routes for the widget. Served at `<proxy>/openapi.json` and kept in
 * `widget/openapi.json` (`npm run openapi -w @renew/widget`; a test fails when it is stale).
 */
export function checkoutOpenApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [name, route] of Object.entries(PROXY_ROUTES) as Array<[string, ProxyRoute]>) {
    const methods = paths[route.path] ?? {};
    methods[route.method.toLowerCase()] = operation(name, route);
    paths[route.path] = methods;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Renew checkout proxy',
      version: '1',
      description:
        "The routes <renew-checkout> calls on the merchant's server, under the path given to its `proxy` attribute. The proxy holds the private API key and calls the billing API; the card goes from the browser to the card-capture host, never here. Errors have the spec's body, keyed on the field.",
    },
    paths,
    components: {
      securitySchemes: {
        checkoutSession: {
          type: 'apiKey',
          in: 'header',
          name: SESSION_HEADER,
          description: 'the session POST /customers answered: this browser may act on that customer only',
        },
        signedInCustomer: {
          type: 'apiKey',
          in: 'cookie',
          name: 'the shop session',
          description:
            "the merchant's own sign-in (its session cookie, or whatever the shop uses): the proxy's signedInCustomer option says which billing customer it is; the browser never names one",
        },
      },
      schemas: { ErrorBody: jsonSchema(ErrorBodyResponse, 'output') },
      responses: {
        Error400: errorResponse(
          'invalid input: one entry per field (Key is the field, e.g. address.postalZip, couponCode, quantities.SEAT)',
        ),
        Error401: errorResponse('nobody is signed in to the shop'),
        Error403: errorResponse(
          'the session does not allow this customer, or has expired (routes of a signed-in customer: the proxy has no signedInCustomer option)',
        ),
        Error429: errorResponse('too many requests from this address (X-Rate-Limit-* and Retry-After headers)'),
        Error502: errorResponse('the billing service failed or cannot be reached (504: it did not answer in time)'),
      },
    },
  };
}

/** One route as an OpenAPI operation: its path parameters, body, security and answers. */
function operation(name: string, route: ProxyRoute) {
  const parameters = route.params
    ? Object.entries(route.params.shape).map(([param, schema]) => ({
        name: param,
        in: 'path',
        required: true,
        schema: jsonSchema(schema as z.ZodType, 'input'),
      }))
    : [];
  const errors = (statuses: number[]) =>
    Object.fromEntries(statuses.map((status) => [String(status), { $ref: `#/components/responses/Error${status}` }]));
  return {
    operationId: name,
    summary: route.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.session ? { security: [{ checkoutSession: [] }] } : route.signedIn ? { security: [{ signedInCustomer: [] }] } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
      : {}),
    responses: {
      200: route.binary
        ? {
            description: 'the file, to download',
            content: { [route.binary]: { schema: { type: 'string', contentMediaType: route.binary } } },
          }
        : { description: 'OK', content: { 'application/json': { schema: jsonSchema(route.response, 'output') } } },
      ...errors([
        ...(route.body || route.params ? [400] : []),
        ...(route.signedIn ? [401] : []),
        ...(route.session || route.signedIn ? [403] : []),
        429,
        502,
      ]),
      ...Object.fromEntries(Object.entries(route.errors ?? {}).map(([status, description]) => [status, errorResponse(description)])),
    },
  };
}

function errorResponse(description: string) {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}
