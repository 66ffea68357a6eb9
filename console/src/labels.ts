import { ApiError, type ApiErrorItem } from './api.js';
import { language, t } from './i18n.js';
import { en, type MessageKey } from './messages-en.js';

/**
 * The API's words in the operator's language: the statuses of every enum the console shows, payment methods, decline
 * codes, dispute reasons, e-mail types, and the refusals (by their `Code`). A value this table does not know yet is
 * shown as the API sent it, so a new status is never hidden.
 */

/** Whose status: the same word (Active, Failed) is told apart per kind, as other languages agree it in gender. */
export type StatusKind =
  | 'customer'
  | 'account'
  | 'subscription'
  | 'invoice'
  | 'purchase'
  | 'payment'
  | 'dispute'
  | 'bulkJob'
  | 'bulkRecord'
  | 'delivery'
  | 'endpoint'
  | 'email';

const isKey = (key: string): key is MessageKey => key in en;

function word(prefix: string, value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  const key = `${prefix}.${value}`;
  return isKey(key) ? t(key) : value;
}

export const statusText = (kind: StatusKind, value: string | null | undefined) => word(`status.${kind}`, value);
export const methodText = (value: string | null | undefined) => word('method', value);
export const serviceStartText = (value: string) => word('serviceStart', value);
export const disputeReasonText = (value: string | null | undefined) => word('disputeReason', value);
export const emailTypeText = (value: string | null | undefined) => word('emailType', value);

/** A gateway decline code in words; the gateway's own (English) message only for a code this table does not know. */
export function declineText(code: string | null | undefined, message?: string | null): string {
  if (!code) return message ?? '';
  const key = `decline.${code}`;
  return isKey(key) ? t(key) : (message ?? code);
}

/** A language code (en, fr…) as the operator's language names it. */
export function languageText(code: string | null | undefined): string {
  if (!code) return t('languageUnknown');
  try {
    return new Intl.DisplayNames([language()], { type: 'language' }).of(code) ?? code;
  } catch {
    return code;
  }
}

/** The API's field names (an error item's Key) as the console's forms label them. */
const FIELD_LABELS: Record<string, MessageKey> = {
  amount: 'colAmount',
  email: 'email',
  password: 'password',
  name: 'colName',
  role: 'role',
  note: 'noteText',
  code: 'totpCode',
  totpCode: 'totpCode',
  reference: 'reference',
  reason: 'refundReason',
};

function fieldName(key: string): string {
  if (!key || key === 'Api Error') return t('refusalWhole');
  const label = FIELD_LABELS[key];
  return label ? t(label) : key;
}

/** One error item in words: by its Code; the server's English Value only when the Code is unknown here. */
function itemText(item: ApiErrorItem, items: ApiErrorItem[]): string {
  const key = `refusal.${item.Code ?? ''}`;
  if (!item.Code || !isKey(key)) return item.message;
  if (item.Code === 'refund_declined') {
    const decline = items.find((other) => other.key === 'declineCode')?.message;
    return decline ? `${t(key)} ${declineText(decline)}` : t(key);
  }
  return t(key, { field: fieldName(item.key) });
}

/**
 * What a person reads when a call fails: each refusal of the body in their language (once per code and field, since
 * one refusal may carry several items), else a generic line with the status; a call that never reached the server
 * (fetch's TypeError) says so.
 */
export function refusalText(error: unknown): string {
  if (error instanceof ApiError) {
    const seen = new Set<string>();
    const texts: string[] = [];
    for (const item of error.items) {
      const text = itemText(item, error.items);
      const id = item.Code === 'refund_declined' ? item.Code : `${item.Code ?? ''}|${text}`;
      if (!text || seen.has(id)) continue;
      seen.add(id);
      texts.push(text);
    }
    return texts.length ? texts.join(' ') : t('errorGeneric', { status: error.status });
  }
  if (error instanceof TypeError) return t('refusal.network_error');
  return t('errorGeneric', { status: 0 });
}
