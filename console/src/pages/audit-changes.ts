import { methodText, statusText, type StatusKind } from '../labels.js';
import { html, type TemplateResult } from 'lit';
import { date, dateTime, money, t } from '../i18n.js';
import type { MessageKey } from '../messages-en.js';

/*
 * An audit entry's `changes` as a person reads them (issue 38): an update is `{field: [before, after]}`
 * ("Auto-collect: off → on"), a creation `{field: value}` ("Amount: $10.50"). The common fields have localized names,
 * the others their name spelled out ("postReadyChargesOnRenew" → "Post ready charges on renew"); booleans read on/off,
 * dates and amounts as the chosen language writes them; anything else is a compact `key: value` list.
 */

const FIELD_NAMES: Record<string, MessageKey> = {
  status: 'status',
  customerAccountStatus: 'accountStatus',
  primaryEmail: 'email',
  primaryPhone: 'phone',
  companyName: 'colCompany',
  reference: 'reference',
  currency: 'currency',
  firstName: 'auditFieldFirstName',
  lastName: 'auditFieldLastName',
  autoCollect: 'auditFieldAutoCollect',
  term: 'auditFieldTerm',
  amount: 'colAmount',
  note: 'notes',
  url: 'colUrl',
  eventTypes: 'colEvents',
  customerGracePeriod: 'settingGracePeriod',
  customerAutoCancel: 'settingAutoCancel',
  autoPostDraftInvoice: 'settingAutoPost',
  standingPoNumber: 'settingPoNumber',
  taxExempt: 'settingTaxExempt',
  language: 'customerLanguage',
};
const MONEY_FIELDS = new Set(['amount', 'total', 'subtotal', 'refundedAmount', 'openAmount', 'arBalance', 'fee', 'acquisitionCost']);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

export function fieldName(field: string): string {
  const key = FIELD_NAMES[field];
  if (key) return t(key);
  const words = field
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.]/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One value as the chosen language writes it; `currency` formats the amount fields. */
export function valueText(field: string, value: unknown, currency: string | undefined): string {
  if (value === null || value === undefined || value === '') return t('auditEmpty');
  if (typeof value === 'boolean') return value ? t('auditOn') : t('auditOff');
  if ((typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))) && MONEY_FIELDS.has(field))
    return money(value, currency);
  if (typeof value === 'string' && DAY.test(value)) return date(value);
  if (typeof value === 'string' && INSTANT.test(value)) return dateTime(value);
  if (Array.isArray(value) && value.length === 0) return t('auditEmpty');
  if (Array.isArray(value)) return value.map((item) => valueText(field, item, currency)).join(', ');
  if (typeof value === 'object') return compact(value as Record<string, unknown>, currency);
  if (typeof value === 'string') return enumText(field, value);
  return String(value);
}

const STATUS_KINDS: StatusKind[] = ['customer', 'subscription', 'invoice', 'payment', 'dispute'];

/** A status or a payment method as the console's labels write it (labels.ts); any other text as it is. */
function enumText(field: string, value: string): string {
  if (/status$/i.test(field)) return STATUS_KINDS.map((kind) => statusText(kind, value)).find((text) => text !== value) ?? value;
  if (/method$/i.test(field)) return methodText(value);
  return value;
}

function compact(value: Record<string, unknown>, currency: string | undefined): string {
  return Object.entries(value)
    .map(([key, item]) => `${fieldName(key)}: ${valueText(key, item, currency)}`)
    .join('; ');
}

/** Fields whose value is itself a list (sent whole, never a [before, after] pair). */
const LIST_FIELDS = new Set(['billingPeriodConfigurations', 'salesTrackingCodes', 'preferences']);
const isMove = (field: string, value: unknown): value is [unknown, unknown] =>
  !LIST_FIELDS.has(field) && Array.isArray(value) && value.length === 2;

/** Each change as one line: "Field: before → after" for an update, "Field: value" otherwise. */
export function changeLines(changes: unknown, action: string, currency?: string): string[] {
  if (changes === null || changes === undefined) return [];
  if (typeof changes !== 'object' || Array.isArray(changes)) return [valueText('', changes, currency)];
  const currencyOfEntry =
    typeof (changes as { currency?: unknown }).currency === 'string' ? (changes as { currency: string }).currency : currency;
  return Object.entries(changes as Record<string, unknown>).map(([field, value]) =>
    action === 'update' && isMove(field, value)
      ? `${fieldName(field)}: ${valueText(field, value[0], currencyOfEntry)} → ${valueText(field, value[1], currencyOfEntry)}`
      : `${fieldName(field)}: ${valueText(field, value, currencyOfEntry)}`,
  );
}

export function auditChanges(changes: unknown, action: string, currency?: string): TemplateResult {
  const lines = changeLines(changes, action, currency);
  return html`<ul class="changes">${lines.map((line) => html`<li>${line}</li>`)}</ul>`;
}
