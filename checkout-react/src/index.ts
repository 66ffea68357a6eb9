import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
import type { CompletedCheckout } from '@renew/widget/checkout-contract';
import type { CheckoutStep } from '@renew/widget/checkout-controller';
import { RenewCheckout as RenewCheckoutElement } from '@renew/widget/element';

export type { CheckoutMessages, MessageId } from '@renew/widget/element';
export type { CompletedCheckout } from '@renew/widget/checkout-contract';
export type { CheckoutStep } from '@renew/widget/checkout-controller';

/**
 * `<renew-checkout>` for React (`@renew/checkout-react`), built with @lit/react: typed props
 * (`proxy`, `plan`, `lang`, `coupons`, `termsUrl`, `messages`) and events as callbacks:
 *
 *     <RenewCheckout proxy="/checkout" onComplete={(e) => e.detail.invoice?.total} onStep={(e) => e.detail.step} />
 *
 * Not part of the widget's bundle: a React app imports it through its own bundler, React being a peer dependency.
 */
export const RenewCheckout = createComponent({
  tagName: 'renew-checkout',
  elementClass: RenewCheckoutElement,
  react: React,
  events: {
    onComplete: 'renew-checkout-complete' as EventName<CustomEvent<CompletedCheckout>>,
    onStep: 'renew-checkout-step' as EventName<CustomEvent<{ step: CheckoutStep }>>,
  },
});
