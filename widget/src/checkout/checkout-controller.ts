import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type {
  CheckoutConfig,
  CompletedCheckout,
  CountryOption,
  ErrorResponse,
  OrderChoice,
  OrderSummary,
  PlanOption,
  ShopperDetails,
  StartedCheckout,
} from '../checkout-contract.js';
import { CheckoutClient, type CapturedCard, type CardDetails, type Result } from './checkout-client.js';
import { currentLocale, SOURCE_LOCALE, t, type MessageId } from './i18n/localization.js';
import type { CardFrameSender } from '@renew/capture-service/card-frame-channel';
import { declineMessage } from './declines.js';
import { saveFile } from './save-file.js';

/** What every capture request carries besides the card, the name and the CAPTCHA. */
type CaptureDetails = { customerId: number; captureToken: string; riskToken: string; email: string; collectionAmount: string | null };

export type CheckoutStep = 'loading' | 'unavailable' | 'plan' | 'customer' | 'address' | 'summary' | 'card' | 'done';

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
  /** What the shopper chose at review: quantities (seats) and a coupon. */
  choice: Pick<OrderChoice, 'quantities' | 'couponCode'>;
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
  /** Direct mode: the bank's 3-D Secure page the card step shows in its dialog until it answers or the shopper cancels. */
  challengeUrl?: string;
}

/** A challenge the shopper cancelled: as the capture host answers a failed one (nothing stored or charged). */
const CHALLENGE_CANCELLED = {
  ok: false as const,
  status: 400,
  errors: [{ Key: 'Api Error', Value: 'the bank challenge was cancelled', Code: 'authentication_failed' as const }],
};

/** API field keys -> the form field the shopper sees. */
const FIELD_FOR_KEY: Record<string, string> = {
  primaryEmail: 'email',
  'billing.line1': 'address.line1',
  'billing.line2': 'address.line2',
  'billing.city': 'address.city',
  'billing.postalZip': 'address.postalZip',
  'billing.country': 'address.country',
  'billing.state': 'address.state',
};
const CUSTOMER_FIELDS = ['firstName', 'lastName', 'email'];

/**
 * Owns the checkout's state and is the only part that talks to the network; the
 * step components render from the state and raise events. The order is the
 * spec's: plan (1), customer and address (2-3), subscription and preview (4-5),
 * card with the first payment on the capture host (6-7), activation (8).
 */
export class CheckoutController implements ReactiveController {
  state: CheckoutState = {
    step: 'loading',
    busy: false,
    plans: [],
    countries: [],
    choice: {},
    paid: false,
    fieldErrors: {},
    failedCardAttempts: 0,
    captchaRound: 0,
  };
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
      return this.update({ message: t('unavailable') });
    }
    this.update({ config: config.value, plans: plans.value, countries: countries.value });
    this.go('plan');
  }

  choosePlan(planFrequencyId: number) {
    const plan = this.state.plans.find((p) => p.planFrequencyId === planFrequencyId);
    if (!plan) return this.update({ fieldErrors: { plan: t('plan.required') } });
    // Seats and coupon belong to a plan: another plan starts from its own defaults.
    if (plan.planFrequencyId !== this.state.plan?.planFrequencyId) this.update({ choice: {} });
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
        // The customer's e-mails are written in the language the shopper used here.
        const result = await this.client.startCheckout({ ...details, language: currentLocale() });
        if (!result.ok) return this.refused(result);
        started = result.value;
        this.startedFrom = startedFrom;
        this.update({ started, summary: undefined });
      }
      const summary = await this.client.subscribe(started, { planFrequencyId: plan.planFrequencyId, ...this.state.choice });
      if (!summary.ok) {
        // A coupon or quantity the API no longer takes is dropped rather than blocking the review.
        if (summary.errors.some((e) => e.Key === 'couponCode' || e.Key.startsWith('quantities.'))) this.update({ choice: {} });
        return this.refused(summary);
      }
      this.update({ summary: summary.value });
      this.go('summary');
    });
  }

  /**
   * Step 5 again with other seats or another coupon: the billing API applies them and previews
   * anew. The total shown changes only with a new preview; a refused change leaves the order as it was.
   */
  async changeOrder(change: Pick<OrderChoice, 'quantities' | 'couponCode'>) {
    const { plan, started } = this.state;
    if (!plan || !started || this.state.paid) return;
    const choice = { ...this.state.choice, ...change };
    await this.run(async () => {
      const summary = await this.client.subscribe(started, { planFrequencyId: plan.planFrequencyId, ...choice });
      if (!summary.ok) return this.refused(summary);
      this.update({ summary: summary.value, choice });
    });
  }

  confirmSummary() {
    if (this.state.summary) this.go('card');
  }

  /** Steps 6-7 on the capture host, then step 8: the card typed in the widget (direct mode). */
  submitCard(card: CardDetails, recaptcha: string) {
    return this.capture(async (request, config) => {
      const captured = await this.client.captureCard(config, { ...request, card, recaptcha });
      if (!captured.ok || !('authentication' in captured.value)) return captured;
      // The bank asks the shopper to authenticate (3-D Secure): its page in the card step, then the capture completed;
      // a bank that asks for the first payment's own challenge too answers with it again (at most a few rounds).
      let outcome: Result<CapturedCard> = captured;
      for (let round = 0; round < 3 && outcome.ok && 'authentication' in outcome.value; round++) {
        const { id, challengeUrl } = outcome.value.authentication;
        const answered = await new Promise<boolean>((resolve) => {
          this.bankAnswer = resolve;
          this.update({ challengeUrl: new URL(challengeUrl, config.captureUrl).toString() });
        });
        this.bankAnswer = undefined;
        this.update({ challengeUrl: undefined });
        if (!answered) return CHALLENGE_CANCELLED;
        outcome = await this.client.completeAuthentication(config, id);
      }
      return outcome;
    });
  }

  /** Direct mode: the bank's page answered (true: the capture can be completed) or the shopper cancelled the challenge (false). */
  answerChallenge(answered: boolean) {
    this.bankAnswer?.(answered);
  }

  /** Steps 6-7 through the hosted card fields: the frame sends the card itself and reports only the outcome. */
  submitCardThroughFrame(frame: CardFrameSender, cardholder: { firstName: string; lastName: string }, recaptcha: string) {
    return this.capture((request, config) =>
      frame.submit({
        ...request,
        ...cardholder,
        recaptcha,
        publicApiKey: config.publicApiKey,
        clientIp: config.clientIp,
        makeDefault: true,
      }),
    );
  }

  private async capture(send: (request: CaptureDetails, config: CheckoutConfig) => Promise<Result<unknown>>) {
    const { config, started, summary, customer } = this.state;
    if (!config || !started || !summary || !customer || this.cardLocked) return;
    await this.run(async () => {
      // A free first invoice (a trial) has nothing to collect; the card is still validated and kept.
      const collectionAmount = /[1-9]/.test(summary.total) ? summary.total : null;
      const result = await send(
        {
          customerId: started.customerId,
          captureToken: summary.captureToken,
          riskToken: this.riskToken,
          email: customer.email,
          collectionAmount,
        },
        config,
      );
      this.update({ captchaRound: this.state.captchaRound + 1 });
      if (!result.ok) return this.cardRefused(result);
      this.update({ paid: true });
      await this.activate();
    });
  }

  /** The card form was sent without a solved CAPTCHA. */
  captchaMissing() {
    this.update({ message: t('card.captchaAgain') });
  }

  /** Step 8; also the retry when activation failed after the payment went through. */
  async activate() {
    const started = this.state.started;
    if (!started) return;
    const completed = await this.client.activate(started);
    if (!completed.ok) return this.update({ message: t('card.activationFailed') });
    this.update({ completed: completed.value });
    this.go('done');
    this.listeners.onComplete?.(completed.value);
  }

  /** After step 8: the first invoice as a PDF, saved by the browser as invoice-<number>.pdf. */
  async downloadInvoicePdf() {
    const { started, completed } = this.state;
    const invoice = completed?.invoice;
    if (!started || !invoice) return;
    await this.run(async () => {
      const pdf = await this.client.invoicePdf(started, invoice.id);
      if (!pdf.ok) return this.update({ message: t('done.downloadFailed') });
      saveFile(pdf.value, `invoice-${invoice.number}.pdf`);
    });
  }

  back() {
    const previous: Partial<Record<CheckoutStep, CheckoutStep>> = {
      customer: 'plan',
      address: 'customer',
      summary: 'address',
      card: 'summary',
    };
    const step = previous[this.state.step];
    if (step && !this.state.paid && !this.state.busy) this.go(step);
  }

  get cardLocked(): boolean {
    return this.state.failedCardAttempts >= MAX_CARD_ATTEMPTS;
  }

  private bankAnswer: ((answered: boolean) => void) | undefined;

  private cardRefused(result: Extract<Result<unknown>, { ok: false }>) {
    const keys = result.errors.map((e) => e.Key.toLowerCase());
    if (result.errors.some((e) => e.Code === 'captcha_failed') || keys.includes('recaptcha'))
      return this.update({ message: t('card.captchaAgain') });
    const cardField = result.errors.find((e) =>
      ['cardNumber', 'expirationMonth', 'expirationYear', 'cvv', 'firstName', 'lastName'].includes(e.Key),
    );
    if (result.status === 400 && cardField) {
      // One field for the whole expiry date.
      const field = cardField.Key.startsWith('expiration') ? 'expiry' : cardField.Key;
      return this.update({ fieldErrors: { [field]: serverText(cardField.Value, 'error.field') } });
    }
    if (result.status !== 400 && result.status !== 402) return this.update({ message: t('card.unreachable') });
    // Declines and failed verification: limited retries; the reason when the shopper can act on it (see declineMessage);
    // a bank challenge failed or abandoned (3-D Secure) says so: the shopper knows they were asked.
    const failedCardAttempts = this.state.failedCardAttempts + 1;
    const authentication = result.errors.some((e) => e.Code === 'authentication_failed' || e.Code === 'authentication_required');
    this.update({
      failedCardAttempts,
      message: t(
        failedCardAttempts >= MAX_CARD_ATTEMPTS
          ? 'card.locked'
          : authentication
            ? 'card.authenticationFailed'
            : declineMessage(result.errors),
      ),
    });
  }

  private refused(result: Extract<Result<unknown>, { ok: false }>) {
    const fieldErrors: Record<string, string> = {};
    const general: string[] = [];
    for (const error of result.errors) {
      const field = FIELD_FOR_KEY[error.Key] ?? error.Key;
      if (field === 'Api Error' || field === 'planFrequencyId') general.push(serverText(error.Value, 'error.general'));
      else fieldErrors[field] = fieldText(field, error, this.state.summary?.quantities ?? []);
    }
    // A refused name or e-mail is fixed on the customer step.
    if (Object.keys(fieldErrors).some((f) => CUSTOMER_FIELDS.includes(f))) this.go('customer');
    const fallback = result.status === 0 ? t('error.network') : result.status >= 500 ? t('error.general') : undefined;
    this.update({
      fieldErrors,
      message: result.status === 0 || result.status >= 500 ? fallback : general.length > 0 ? [...new Set(general)].join(' ') : undefined,
    });
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

/**
 * The service's own words are English: shown as they are to an English-speaking shopper,
 * replaced by the translated `fallback` for everyone else (no English on a French screen).
 */
function serverText(value: string, fallback: MessageId): string {
  return currentLocale() === SOURCE_LOCALE ? value : t(fallback);
}

/**
 * A refused field, in the shopper's words: the coupon and the seats have messages of their own,
 * chosen by the error's code, never by its English words (which may change); the seat bounds are
 * the order's own.
 */
export function fieldText(field: string, error: ErrorResponse['Errors'][number], quantities: OrderSummary['quantities']): string {
  if (error.Code === 'coupon_unknown') return t('coupon.unknown');
  if (error.Code === 'coupon_inapplicable') return t('coupon.inapplicable');
  const seats = error.Code === 'quantity_out_of_bounds' ? quantities.find((q) => `quantities.${q.code}` === field) : undefined;
  if (seats) return t('seats.bounds', seats.minQuantity, seats.maxQuantity);
  return serverText(error.Value, 'error.field');
}
