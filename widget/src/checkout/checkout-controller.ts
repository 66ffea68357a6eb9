import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { CheckoutConfig, CompletedCheckout, CountryOption, OrderSummary, PlanOption, ShopperDetails, StartedCheckout } from '../checkout-contract.js';
import { CheckoutClient, type CardDetails, type Result } from './checkout-client.js';
import type { CardFrameSender } from './card-frame-channel.js';

/** What every capture request carries besides the card, the name and the CAPTCHA. */
type CaptureDetails = { customerId: number; captureToken: string; riskToken: string; email: string; collectionAmount: string | null };

export type CheckoutStep = 'loading' | 'unavailable' | 'plan' | 'customer' | 'address' | 'summary' | 'card' | 'done';

const CAPTCHA_MESSAGE = 'Please confirm you are not a robot, then try again.';

/** Failed card attempts (declines, failed verification) before the card form locks. */
export const MAX_CARD_ATTEMPTS = 3;

export interface CheckoutState {
  step: CheckoutStep;
  busy: boolean;
  config?: CheckoutConfig;
  plans: PlanOption[];
  countries: CountryOption[];
  plan?: PlanOption;
  customer?: Omit<ShopperDetails, 'address'>;
  address?: ShopperDetails['address'];
  started?: StartedCheckout;
  summary?: OrderSummary;
  /** The card and the first payment were accepted; only activation is left. */
  paid: boolean;
  completed?: CompletedCheckout;
  /** Field (as the step names it) -> message, from the last refused request. */
  fieldErrors: Record<string, string>;
  /** A message for the whole step. */
  message?: string;
  failedCardAttempts: number;
  /** Bumped after every card attempt: the CAPTCHA must be solved again (tokens work once). */
  captchaRound: number;
}

/** API field keys -> the form field the shopper sees. */
const FIELD_FOR_KEY: Record<string, string> = { primaryEmail: 'email', 'billing.line1': 'address.line1', 'billing.line2': 'address.line2', 'billing.city': 'address.city', 'billing.postalZip': 'address.postalZip', 'billing.country': 'address.country', 'billing.state': 'address.state' };
const CUSTOMER_FIELDS = ['firstName', 'lastName', 'email'];

/**
 * Owns the checkout's state and is the only part that talks to the network; the
 * step components render from the state and raise events. The order is the
 * spec's: plan (1), customer and address (2-3), subscription and preview (4-5),
 * card with the first payment on the capture host (6-7), activation (8).
 */
export class CheckoutController implements ReactiveController {
  state: CheckoutState = { step: 'loading', busy: false, plans: [], countries: [], paid: false, fieldErrors: {}, failedCardAttempts: 0, captchaRound: 0 };
  private readonly client: CheckoutClient;
  /** What the current Draft customer was created from: changed details start a new one. */
  private startedFrom?: string;
  private readonly riskToken = crypto.randomUUID();

  constructor(
    private readonly host: ReactiveControllerHost,
    proxyUrl: string,
    private readonly listeners: { onStep?(step: CheckoutStep): void; onComplete?(completed: CompletedCheckout): void } = {},
  ) {
    this.client = new CheckoutClient(proxyUrl);
    host.addController(this);
  }

  hostConnected() {
    if (this.state.step === 'loading') void this.load();
  }

  async load() {
    const [config, plans, countries] = await Promise.all([this.client.config(), this.client.plans(), this.client.countries()]);
    if (!config.ok || !plans.ok || !countries.ok) {
      this.go('unavailable');
      return this.update({ message: 'The checkout is not available right now. Please try again later.' });
    }
    this.update({ config: config.value, plans: plans.value, countries: countries.value });
    this.go('plan');
  }

  choosePlan(planFrequencyId: number) {
    const plan = this.state.plans.find((p) => p.planFrequencyId === planFrequencyId);
    if (!plan) return this.update({ fieldErrors: { plan: 'choose a plan' } });
    this.update({ plan });
    this.go('customer');
  }

  submitCustomer(customer: Omit<ShopperDetails, 'address'>) {
    this.update({ customer });
    this.go('address');
  }

  /** Steps 2-5: the Draft customer with its address, the subscription, the previewed first invoice. */
  async submitAddress(address: ShopperDetails['address']) {
    const { plan, customer } = this.state;
    if (!plan || !customer) return this.go('plan');
    this.update({ address });
    const details: ShopperDetails = { ...customer, address };
    const startedFrom = JSON.stringify([details, plan.planFrequencyId]);
    await this.run(async () => {
      let started = this.state.started;
      if (!started || this.startedFrom !== startedFrom) {
        const result = await this.client.startCheckout(details);
        if (!result.ok) return this.refused(result);
        started = result.value;
        this.startedFrom = startedFrom;
        this.update({ started, summary: undefined });
      }
      const summary = await this.client.subscribe(started, plan.planFrequencyId);
      if (!summary.ok) return this.refused(summary);
      this.update({ summary: summary.value });
      this.go('summary');
    });
  }

  confirmSummary() {
    if (this.state.summary) this.go('card');
  }

  /** Steps 6-7 on the capture host, then step 8: the card typed in the widget (direct mode). */
  submitCard(card: CardDetails, recaptcha: string) {
    return this.capture((request, config) => this.client.captureCard(config, { ...request, card, recaptcha }));
  }

  /** Steps 6-7 through the hosted card fields: the frame sends the card itself and reports only the outcome. */
  submitCardThroughFrame(frame: CardFrameSender, cardholder: { firstName: string; lastName: string }, recaptcha: string) {
    return this.capture((request, config) =>
      frame.submit({ ...request, ...cardholder, recaptcha, publicApiKey: config.publicApiKey, clientIp: config.clientIp, makeDefault: true }));
  }

  private async capture(send: (request: CaptureDetails, config: CheckoutConfig) => Promise<Result<unknown>>) {
    const { config, started, summary, customer } = this.state;
    if (!config || !started || !summary || !customer || this.cardLocked) return;
    await this.run(async () => {
      // A free first invoice (a trial) has nothing to collect; the card is still validated and kept.
      const collectionAmount = /[1-9]/.test(summary.total) ? summary.total : null;
      const result = await send({ customerId: started.customerId, captureToken: summary.captureToken, riskToken: this.riskToken, email: customer.email, collectionAmount }, config);
      this.update({ captchaRound: this.state.captchaRound + 1 });
      if (!result.ok) return this.cardRefused(result);
      this.update({ paid: true });
      await this.activate();
    });
  }

  /** The card form was sent without a solved CAPTCHA. */
  captchaMissing() {
    this.update({ message: CAPTCHA_MESSAGE });
  }

  /** Step 8; also the retry when activation failed after the payment went through. */
  async activate() {
    const started = this.state.started;
    if (!started) return;
    const completed = await this.client.activate(started);
    if (!completed.ok) return this.update({ message: `Your payment was received, but the order could not be completed: ${completed.errors.map((e) => e.Value).join('; ')}. Please try again.` });
    this.update({ completed: completed.value });
    this.go('done');
    this.listeners.onComplete?.(completed.value);
  }

  back() {
    const previous: Partial<Record<CheckoutStep, CheckoutStep>> = { customer: 'plan', address: 'customer', summary: 'address', card: 'summary' };
    const step = previous[this.state.step];
    if (step && !this.state.paid && !this.state.busy) this.go(step);
  }

  get cardLocked(): boolean {
    return this.state.failedCardAttempts >= MAX_CARD_ATTEMPTS;
  }

  private cardRefused(result: Extract<Result<unknown>, { ok: false }>) {
    const keys = result.errors.map((e) => e.Key.toLowerCase());
    if (keys.includes('recaptcha')) return this.update({ message: CAPTCHA_MESSAGE });
    const cardField = result.errors.find((e) => ['cardNumber', 'expirationMonth', 'expirationYear', 'cvv', 'firstName', 'lastName'].includes(e.Key));
    if (result.status === 400 && cardField) return this.update({ fieldErrors: { [cardField.Key]: cardField.Value } });
    if (result.status !== 400 && result.status !== 402) return this.update({ message: 'The payment service could not be reached. Please try again.' });
    // Declines and failed verification: one generic message (no hints for card testers), limited retries.
    const failedCardAttempts = this.state.failedCardAttempts + 1;
    this.update({
      failedCardAttempts,
      message: failedCardAttempts >= MAX_CARD_ATTEMPTS
        ? 'This card could not be used, and no more attempts are allowed. Please contact the shop.'
        : 'This card could not be used. Check the details or use another card.',
    });
  }

  private refused(result: Extract<Result<unknown>, { ok: false }>) {
    const fieldErrors: Record<string, string> = {};
    const general: string[] = [];
    for (const { Key, Value } of result.errors) {
      const field = FIELD_FOR_KEY[Key] ?? Key;
      if (field === 'Api Error' || field === 'planFrequencyId') general.push(Value);
      else fieldErrors[field] = Value;
    }
    // A refused name or e-mail is fixed on the customer step.
    if (Object.keys(fieldErrors).some((f) => CUSTOMER_FIELDS.includes(f))) this.go('customer');
    this.update({ fieldErrors, message: general.length > 0 ? general.join('; ') : result.status >= 500 || result.status === 0 ? 'Something went wrong. Please try again.' : undefined });
  }

  private async run(work: () => Promise<void>) {
    if (this.state.busy) return;
    this.update({ busy: true, message: undefined, fieldErrors: {} });
    try {
      await work();
    } finally {
      this.update({ busy: false });
    }
  }

  private go(step: CheckoutStep) {
    if (step === this.state.step) return;
    this.update({ step, message: undefined, ...(this.state.busy ? {} : { fieldErrors: {} }) });
    this.listeners.onStep?.(step);
  }

  private update(patch: Partial<CheckoutState>) {
    this.state = { ...this.state, ...patch };
    this.host.requestUpdate();
  }
}
