/// <reference path="./mjml.d.ts" />
import type { MerchantBranding } from '../catalog/branding.js';
import type { CustomerLanguage } from '../catalog/schema.js';
import type { EmailType } from '../email-preferences/schemas.js';
import type { NotificationEvent, RequestedEmail, SubscriptionChangeEvent } from '../outbox/notifications.js';
import { money as decimal } from '../money/money.js';
import type { EmailActionFlow } from './email-action-links.js';
import { emailFormats } from './email-formats.js';
import { EMAIL_WORDS, type EmailWords, type Message } from './email-words/index.js';

export type { NotificationEvent, RequestedEmail };

export type NotificationType = NotificationEvent['type'] & EmailType;

/** Every e-mail a customer gets: the spec's types (NotificationType) and those the customer asks for (the portal sign-in link). */
export type CustomerEmailType = NotificationType | RequestedEmail['type'];

/** The e-mails that ask the customer to act, and the task their button opens. */
export const ACTION_FLOWS: Partial<Record<NotificationType, EmailActionFlow>> = {
  PaymentFailed: 'paymentMethodUpdate',
  AuthenticationRequired: 'authenticatePayment',
  CreditCardExpiry: 'paymentMethodUpdate',
  InvoiceOverdue: 'payInvoices',
  CustomerSuspend: 'payInvoices',
  InvoicePost: 'invoices',
};

/** An e-mail the customer asked for: it carries its own link, its button. */
export function isRequestedEmail(event: NotificationEvent | RequestedEmail): event is RequestedEmail {
  return event.type === 'PortalSignIn' || event.type === 'EmailChangeConfirmation';
}

/** The merchant as its e-mails show it (catalogue `emails`). */
export type EmailBranding = MerchantBranding;

/** What an InvoicePost e-mail lists: the invoice's lines and totals (decimal strings). */
export interface InvoiceLines {
  currency: string;
  lines: Array<{ name: string; quantity: string; amount: string }>;
  subtotal: string;
  totalDiscount: string;
  taxes: Array<{ name: string; rate: string; amount: string }>;
  total: string;
}

export interface EmailToRender {
  branding: EmailBranding;
  language: CustomerLanguage;
  /** The customer's name; null: greeted without one. */
  customerName: string | null;
  /** What the e-mail tells; a requested e-mail (sign-in) carries its own link, its button. */
  event: NotificationEvent | RequestedEmail;
  /** InvoicePost: the lines and totals it lists. */
  invoice?: InvoiceLines;
  /** The button's link (an e-mail of ACTION_FLOWS); null or absent: no button. */
  actionUrl?: string | null;
}

/** An e-mail as sent: its subject, the plain text and the HTML alternative (and what MJML found wrong, for the tests). */
export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
  mjmlErrors: string[];
}

/** A composed e-mail, before it is written as text and as HTML. */
interface Composed {
  subject: string;
  greeting: string;
  paragraphs: string[];
  table: Array<{ label: string; amount: string; strong?: boolean }>;
  action: { label: string; url: string } | null;
  footer: string;
}

/** A credit note's e-mail: each way its money went, said only when something went that way. */
function creditNoteMessage(
  words: EmailWords,
  f: ReturnType<typeof emailFormats>,
  brand: string,
  event: Extract<NotificationEvent, { type: 'CreditNote' }>,
): Message {
  const part = (amount: string) => (Number(amount) === 0 ? null : f.money(amount, event.currency));
  return words.CreditNote({
    brand,
    number: event.number,
    invoiceNumber: event.invoiceNumber,
    total: f.money(event.total, event.currency),
    applied: part(event.applied),
    credited: part(event.credited),
    refunded: part(event.refunded),
  });
}

/** A usage threshold reached: the metric, the threshold and the quantity so far, in the customer's number format. */
function usageThresholdMessage(
  words: EmailWords,
  f: ReturnType<typeof emailFormats>,
  brand: string,
  event: Extract<NotificationEvent, { type: 'UsageThresholdReached' }>,
): Message {
  return words.UsageThresholdReached({
    brand,
    metric: event.metricName,
    threshold: f.quantity(event.threshold),
    quantity: f.quantity(event.quantity),
    periodStart: f.date(event.periodStart),
  });
}

/** A plan change applied or scheduled: the plans, the quantities that change, the invoice and the next charge. */
function subscriptionChangeMessage(
  words: EmailWords,
  f: ReturnType<typeof emailFormats>,
  brand: string,
  event: SubscriptionChangeEvent,
): Message {
  const plan = (p: typeof event.from) => `${p.name} (${words.frequency(p.interval, p.numberOfIntervals)})`;
  const changes = event.quantities.map((q) => words.quantityChange(q.product, f.quantity(q.from), f.quantity(q.to)));
  const invoice = event.invoice;
  return words.SubscriptionChange({
    brand,
    scheduled: event.stage === 'scheduled',
    fromPlan: plan(event.from),
    toPlan: plan(event.to),
    date: f.date(event.effectiveDate),
    quantities: changes.length > 0 ? f.list(changes) : null,
    invoice: invoice && {
      number: invoice.number,
      amount: f.money(decimal(invoice.total).abs().toString(), event.currency),
      credit: decimal(invoice.total).isNegative(),
    },
    nextCharge: { date: f.date(event.nextCharge.date), amount: f.money(event.nextCharge.amount, event.currency) },
  });
}

function message(words: EmailWords, language: CustomerLanguage, brand: string, event: NotificationEvent | RequestedEmail): Message {
  const f = emailFormats(language);
  switch (event.type) {
    case 'PortalSignIn':
      return words.PortalSignIn({ brand, minutes: event.minutes });
    case 'EmailChangeConfirmation':
      return words.EmailChangeConfirmation({ brand, newEmail: event.newEmail, hours: event.hours });
    case 'InvoicePost':
      return words.InvoicePost({
        brand,
        number: event.invoiceNumber,
        amount: f.money(event.amount, event.currency),
        dueDate: f.date(event.dueDate),
      });
    case 'PaymentReceived':
      return words.PaymentReceived({ brand, amount: f.money(event.amount, event.currency), reference: event.reference });
    case 'PaymentFailed': {
      const code = event.declineCode as keyof EmailWords['declines'] | null;
      const reason = code && code in words.declines ? words.declines[code] : words.declines.other;
      return words.PaymentFailed({ brand, amount: f.money(event.amount, event.currency), reason });
    }
    case 'AuthenticationRequired':
      return words.AuthenticationRequired({ brand, amount: f.money(event.amount, event.currency) });
    case 'Refund': {
      const way = words.refundWays[event.method as keyof EmailWords['refundWays']] ?? words.refundWays.other;
      return words.Refund({
        brand,
        amount: f.money(event.amount, event.currency),
        paymentAmount: f.money(event.paymentAmount, event.currency),
        paymentDate: f.date(event.paymentDate),
        way,
        reference: event.reference,
      });
    }
    case 'InvoiceOverdue':
      return words.InvoiceOverdue({
        brand,
        number: event.invoiceNumber,
        outstanding: f.money(event.outstanding, event.currency),
        dueDate: f.date(event.dueDate),
      });
    case 'SubscriptionCancellation':
      return words.SubscriptionCancellation({ brand, subscriptions: f.list(event.subscriptions), count: event.subscriptions.length });
    case 'CreditCardExpiry': {
      const year = event.expirationYear < 100 ? 2000 + event.expirationYear : event.expirationYear;
      return words.CreditCardExpiry({
        brand,
        cardBrand: event.cardBrand ?? words.unknownCardBrand,
        lastFour: event.lastFour,
        expiry: f.monthYear(event.expirationMonth, year),
      });
    }
    case 'CustomerActivation':
      return words.CustomerActivation({ brand });
    case 'CreditNote':
      return creditNoteMessage(words, f, brand, event);
    case 'UsageThresholdReached':
      return usageThresholdMessage(words, f, brand, event);
    case 'CustomerSuspend':
      return words.CustomerSuspend({ brand, overdueDays: event.overdueDays });
    case 'SubscriptionChange':
      return subscriptionChangeMessage(words, f, brand, event);
  }
}

function invoiceTable(words: EmailWords, language: CustomerLanguage, invoice: InvoiceLines): Composed['table'] {
  const f = emailFormats(language);
  const money = (amount: string) => f.money(amount, invoice.currency);
  const rows: Composed['table'] = invoice.lines.map((line) => ({
    label: decimal(line.quantity).equals(1) ? line.name : `${line.name} × ${f.quantity(line.quantity)}`,
    amount: money(line.amount),
  }));
  const discounted = !decimal(invoice.totalDiscount).isZero();
  if (discounted || invoice.taxes.length > 0) rows.push({ label: words.invoiceTable.subtotal, amount: money(invoice.subtotal) });
  if (discounted) rows.push({ label: words.invoiceTable.discount, amount: money(decimal(invoice.totalDiscount).negated().toString()) });
  for (const tax of invoice.taxes) rows.push({ label: `${tax.name} (${f.percent(tax.rate)})`, amount: money(tax.amount) });
  rows.push({ label: words.invoiceTable.total, amount: money(invoice.total), strong: true });
  return rows;
}

function compose(input: EmailToRender): Composed {
  const words = EMAIL_WORDS[input.language];
  const brand = input.branding.name;
  const { subject, paragraphs } = message(words, input.language, brand, input.event);
  const event = input.event;
  const flow = isRequestedEmail(event) ? undefined : ACTION_FLOWS[event.type];
  const action = isRequestedEmail(event)
    ? { label: event.type === 'PortalSignIn' ? words.signInButton : words.confirmEmailButton, url: event.url }
    : flow && input.actionUrl
      ? { label: words.buttons[flow], url: input.actionUrl }
      : null;
  return {
    subject,
    greeting: words.hello(input.customerName),
    paragraphs,
    table: input.event.type === 'InvoicePost' && input.invoice ? invoiceTable(words, input.language, input.invoice) : [],
    action,
    footer: words.footer(brand),
  };
}

function plainText(e: Composed, brand: string, words: EmailWords): string {
  const width = Math.max(0, ...e.table.map((row) => row.label.length));
  const amountWidth = Math.max(0, ...e.table.map((row) => row.amount.length));
  const blocks = [
    e.greeting,
    ...e.paragraphs,
    ...(e.table.length > 0 ? [e.table.map((row) => `  ${row.label.padEnd(width)}  ${row.amount.padStart(amountWidth)}`).join('\n')] : []),
    ...(e.action ? [words.linkLine(e.action.label, e.action.url)] : []),
    `— ${brand}`,
    e.footer,
  ];
  return blocks.join('\n\n');
}

const escapeHtml = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Black or white, whichever reads better on the brand colour (WCAG relative luminance). */
function textColourOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#111111';
}

// The fonts are the reader's own (a web font such as Roboto would make MJML link Google Fonts: a request that tells Google the e-mail was opened).
function mjmlOf(e: Composed, branding: EmailBranding, language: CustomerLanguage): string {
  const colour = branding.color;
  const header = branding.logoUrl
    ? `<mj-image src="${escapeHtml(branding.logoUrl)}" alt="${escapeHtml(branding.name)}" width="160px" align="left" padding="0" />`
    : `<mj-text font-size="20px" font-weight="700" color="${colour}" padding="0">${escapeHtml(branding.name)}</mj-text>`;
  const table = e.table.length
    ? `<mj-table padding="8px 0 16px" cellpadding="6px" font-size="15px" color="#1f2933">${e.table
        .map((row) => {
          const style = row.strong ? 'font-weight:700;border-top:1px solid #d8dce3;' : 'border-top:1px solid #eef0f3;';
          return `<tr><td style="${style}">${escapeHtml(row.label)}</td><td style="${style}text-align:right;white-space:nowrap;">${escapeHtml(row.amount)}</td></tr>`;
        })
        .join('')}</mj-table>`
    : '';
  const button = e.action
    ? `<mj-button href="${escapeHtml(e.action.url)}" background-color="${colour}" color="${textColourOn(colour)}" font-size="16px" font-weight="600" inner-padding="14px 28px" border-radius="6px" align="left" padding="8px 0 16px">${escapeHtml(e.action.label)}</mj-button>`
    : '';
  return `<mjml lang="${language}">
  <mj-head>
    <mj-title>${escapeHtml(e.subject)}</mj-title>
    <mj-preview>${escapeHtml(e.paragraphs[0] ?? e.subject)}</mj-preview>
    <mj-attributes>
      <mj-all font-family="-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif" />
      <mj-text font-size="16px" line-height="1.5" color="#1f2933" padding="0 0 12px" />
    </mj-attributes>
  </mj-head>
  <mj-body background-color="#f3f4f6" width="600px">
    <mj-section padding="24px 24px 12px"><mj-column>${header}</mj-column></mj-section>
    <mj-section background-color="#ffffff" border-top="4px solid ${colour}" padding="28px 24px 16px">
      <mj-column>
        <mj-text>${escapeHtml(e.greeting)}</mj-text>
        ${e.paragraphs.map((p) => `<mj-text>${escapeHtml(p)}</mj-text>`).join('\n        ')}
        ${table}
        ${button}
        <mj-text padding="12px 0 0">— ${escapeHtml(branding.name)}</mj-text>
      </mj-column>
    </mj-section>
    <mj-section padding="16px 24px 32px"><mj-column><mj-text font-size="12px" color="#5f6b7a" padding="0">${escapeHtml(e.footer)}</mj-text></mj-column></mj-section>
  </mj-body>
</mjml>`;
}

/** An e-mail to a customer in its language, as plain text and as HTML (MJML). */
export async function renderEmail(input: EmailToRender): Promise<RenderedEmail> {
  const composed = compose(input);
  // Loaded on the first e-mail: MJML and its HTML/CSS tooling are large, and most processes never write one.
  const { default: mjml2html } = await import('mjml');
  const { html, errors } = await mjml2html(mjmlOf(composed, input.branding, input.language), { validationLevel: 'soft' });
  return {
    subject: composed.subject,
    text: plainText(composed, input.branding.name, EMAIL_WORDS[input.language]),
    html,
    mjmlErrors: errors.map((e) => e.formattedMessage),
  };
}
