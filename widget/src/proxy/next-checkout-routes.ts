import { createCheckoutHandler, type CheckoutHandlerOptions } from './checkout-handler.js';

export interface NextCheckoutRoutesOptions extends CheckoutHandlerOptions {
  /**
   * The shopper's address. A Next.js route handler gets no socket address; by default the
   * last `X-Forwarded-For` entry, the one the nearest proxy in front of Next.js (the platform's
   * edge, or Next.js's own server) added, which a shopper cannot forge.
   */
  clientIp?: (request: Request) => string | undefined;
}

/**
 * The checkout proxy as Next.js App Router route handlers, over the fetch handler. In
 * `app/checkout/[...path]/route.ts`:
 * `export const { GET, POST, DELETE } = nextCheckoutRoutes({ basePath: '/checkout', ... })`.
 */
export function nextCheckoutRoutes(options: NextCheckoutRoutesOptions) {
  const handle = createCheckoutHandler(options);
  const clientIp = options.clientIp ?? lastForwardedFor;
  const route = (request: Request): Promise<Response> => handle(request, { clientIp: clientIp(request) });
  return { GET: route, POST: route, DELETE: route };
}

function lastForwardedFor(request: Request): string | undefined {
  const entries = request.headers
    .get('x-forwarded-for')
    ?.split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return entries?.at(-1) ?? request.headers.get('x-real-ip') ?? undefined;
}
