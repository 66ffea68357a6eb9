import { html, nothing } from 'lit';
import type { OrderSummary } from '../checkout-contract.js';
import { formatDate, formatMoney, periodLabel, t } from './i18n/localization.js';

/**
 * What happens after today's payment, stated before the shopper pays (many jurisdictions
 * require it for an automatically renewing charge): the recurring amount and its interval,
 * the date of the next charge, and that they can cancel. Every figure is the billing API's.
 */
export function renewalTerms(summary: OrderSummary) {
  const r = summary.renewal;
  const amount = formatMoney(r.amount, summary.currency);
  return html`<p class="renewal" part="renewal" data-renewal>
    ${t('renewal.terms', r.plusTax ? t('renewal.plusTax', amount) : amount, periodLabel(r), formatDate(r.nextChargeDate))}
    ${r.discountContinues ? t('renewal.discount') : nothing}
  </p>`;
}
