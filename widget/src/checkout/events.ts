import type { CompletedCheckout, OrderChoice, ShopperDetails } from '../checkout-contract.js';
import type { CardDetails } from './checkout-client.js';
import type { CheckoutStep } from './checkout-controller.js';
import type { CardFrameSender } from '@renew/capture-service/card-frame-channel';

/**
 * Every event the checkout raises, declared once: `addEventListener('renew-checkout-complete', (e) => e.detail.customerId)`
 * is typed, and emit refuses a name not declared here. All bubble and cross shadow roots.
 */
declare global {
  interface HTMLElementEventMap {
    /** Public: on every step change. */
    'renew-checkout-step': CustomEvent<{ step: CheckoutStep }>;
    /** Public: once the subscription is active. */
    'renew-checkout-complete': CustomEvent<CompletedCheckout>;
    /** From the steps to `<renew-checkout>`: */
    'renew-back': CustomEvent<Record<string, never>>;
    'renew-plan-chosen': CustomEvent<{ planFrequencyId: number }>;
    'renew-customer-submitted': CustomEvent<Omit<ShopperDetails, 'address'>>;
    'renew-address-submitted': CustomEvent<ShopperDetails['address']>;
    'renew-order-changed': CustomEvent<Pick<OrderChoice, 'quantities' | 'couponCode'>>;
    'renew-summary-confirmed': CustomEvent<Record<string, never>>;
    'renew-card-submitted': CustomEvent<{ card: CardDetails; captchaToken?: string }>;
    /** Hosted card fields: the frame holds the card; the cardholder's name and the CAPTCHA come from the step. */
    'renew-hosted-card-submitted': CustomEvent<{
      frame: CardFrameSender;
      cardholder: { firstName: string; lastName: string };
      captchaToken?: string;
    }>;
    /** Public: the card's bank asks the shopper to authenticate (3-D Secure) and its challenge is open. */
    'renew-checkout-authentication': CustomEvent<{ state: 'challenge' }>;
    /** Direct mode: the bank's page in the card step answered, or the shopper cancelled it. */
    'renew-challenge-answered': CustomEvent<{ answered: boolean }>;
    'renew-activation-retry': CustomEvent<Record<string, never>>;
    'renew-invoice-download': CustomEvent<Record<string, never>>;
  }
}

/** The name of an event of the checkout. */
export type RenewEventName = Extract<keyof HTMLElementEventMap, `renew-${string}`>;
/** What an event of the checkout carries. */
export type RenewEventDetail<K extends RenewEventName> = HTMLElementEventMap[K] extends CustomEvent<infer D> ? D : never;

/** Every event the checkout raises goes through here: prefixed, bubbling, composed (crosses shadow roots). */
export function emit<K extends RenewEventName>(from: HTMLElement, name: K, detail: RenewEventDetail<K>): void {
  from.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
}
