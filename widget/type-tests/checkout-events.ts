/**
 * Type-level test of <renew-checkout>'s events: compiled by `tsc -p widget/tsconfig.json`
 * (`npm run typecheck`), never run. Each `@ts-expect-error` fails the compilation if the
 * line below it stops being an error.
 */
import '../src/renew-checkout.js';
import { emit } from '../src/checkout/events.js';

const checkout = document.createElement('renew-checkout');

// What a merchant writes: the detail is typed from the event's name.
checkout.addEventListener('renew-checkout-complete', (event) => {
  const customerId: number = event.detail.customerId;
  const status: string = event.detail.status;
  const total: string | undefined = event.detail.invoice?.total;
  // @ts-expect-error: amounts are decimal strings, not numbers
  const wrong: number | undefined = event.detail.invoice?.total;
  void [customerId, status, total, wrong];
});
checkout.addEventListener('renew-checkout-step', (event) => {
  const step: 'plan' | 'customer' | 'address' | 'summary' | 'card' | 'done' | 'loading' | 'unavailable' = event.detail.step;
  void step;
});
document.body.addEventListener('renew-checkout-complete', (event) => void event.detail.invoice?.outstandingBalance);

// A misspelt name is an unknown event: it carries no detail.
// @ts-expect-error: 'renew-checkout-compelte' is not an event of the checkout
checkout.addEventListener('renew-checkout-compelte', (event) => void event.detail.customerId);

// The one helper that raises events accepts only declared names, each with its own detail.
emit(checkout, 'renew-checkout-step', { step: 'plan' });
// @ts-expect-error: misspelt event name
emit(checkout, 'renew-checkout-stpe', { step: 'plan' });
// @ts-expect-error: the detail must match the event
emit(checkout, 'renew-checkout-step', { customerId: 1 });
// @ts-expect-error: every event of the checkout is prefixed renew-
emit(checkout, 'click', {});
