import { Refusal } from '../../refusals/refusal.js';
import type { AppContext } from '../../app-context.js';
import { findAddressOfType, type AddressRow } from '../../addresses/repository.js';
import { findBillingSetting } from '../../billing-settings/repository.js';
import { merchantBranding } from '../../catalog/branding.js';
import { CUSTOMER_LANGUAGES, type Catalog, type CustomerLanguage } from '../../catalog/schema.js';
import { findCustomerRow } from '../../customers/repository.js';
import type { Queryable } from '../../db/database.js';
import { countryById, stateById } from '../../geo/countries.js';
import { minorUnits } from '../../money/money.js';
import { findInvoice, findInvoiceLines } from '../repository.js';
import { invoiceStatus } from '../service.js';
import type { InvoicePdfView } from './invoice-pdf-layout.js';
import { PdfCache } from './pdf-cache.js';
import { countryName } from './pdf-formats.js';
import { PDF_WORDS } from './pdf-words.js';
import { pdfRenderPool } from './pdf-render-pool.js';

export interface InvoicePdfFile {
  filename: string;
  content: Buffer;
}

/**
 * The most lines one PDF shows (about 70 pages): the bound on the work one request can ask for.
 * A longer invoice is read through the API (GET /v1/Invoices/{id}) instead.
 */
export const MAX_PDF_LINES = 1_000;

/** At most this many bytes of rendered PDFs are kept (a 1,000-line invoice is about 300 kB). */
const cache = new PdfCache(64 * 1024 * 1024);

/**
 * The invoice's PDF, or undefined when the account has no such invoice: the one made before while
 * nothing it shows has changed, else rendered on the PDF threads, in the account's turn.
 */
export async function invoicePdf(
  ctx: Pick<AppContext, 'db' | 'catalog'>,
  accountId: number,
  invoiceId: number,
): Promise<InvoicePdfFile | undefined> {
  const view = await invoicePdfView(ctx.db, ctx.catalog, accountId, invoiceId);
  if (!view) return undefined;
  const filename = `invoice-${view.invoiceNumber}.pdf`;
  if (view.lines.length > MAX_PDF_LINES) {
    throw Refusal.conflict(
      `invoice ${invoiceId} has ${view.lines.length} lines, more than a PDF shows (${MAX_PDF_LINES}): read it as JSON instead`,
      'invoiceId',
      'state_conflict',
    );
  }
  const version = PdfCache.version(view);
  const cached = cache.get(invoiceId, version);
  if (cached) return { filename, content: cached };
  const content = await pdfRenderPool.render(accountId, view);
  cache.set(invoiceId, version, content);
  return { filename, content };
}

/** What the PDF shows, read from the database: the invoice with its lines and taxes, what is paid, the customer and its billing address, the account. */
export async function invoicePdfView(
  db: Queryable,
  catalog: Catalog,
  accountId: number,
  invoiceId: number,
): Promise<InvoicePdfView | undefined> {
  const invoice = await findInvoice(db, accountId, invoiceId);
  if (!invoice) return undefined;
  const [{ charges, taxes }, customer, address, settings] = await Promise.all([
    findInvoiceLines(db, [invoice.id]),
    findCustomerRow(db, accountId, invoice.customerId),
    findAddressOfType(db, invoice.customerId, 'Billing'),
    findBillingSetting(db, invoice.customerId),
  ]);
  const language = customerLanguage(customer?.language, catalog.emails.defaultLanguage);
  const person = [customer?.title, customer?.firstName, customer?.middleName, customer?.lastName, customer?.suffix]
    .filter(Boolean)
    .join(' ');
  const company = customer?.companyName ?? null;
  // The brand as the e-mails show it (catalogue emails.brandName, else account.name), the legal details from `seller`.
  const seller = catalog.seller;
  const vat = settings?.vatIdentificationNumber;
  return {
    language,
    seller: {
      name: merchantBranding(catalog).name,
      legalName: seller?.legalName ?? null,
      addressLines: addressLines({ ...(seller?.address ?? catalog.account.address) }),
      email: catalog.account.email ?? null,
      taxId: seller?.taxId ?? null,
    },
    billTo: {
      name: person || company || PDF_WORDS[language].customer(invoice.customerId),
      addressLines: [...(person && company ? [company] : []), ...billingAddressLines(address, company, language)],
      taxId: vat === null || vat === undefined ? null : String(vat),
    },
    invoiceNumber: invoice.invoiceNumber,
    status: invoiceStatus(invoice),
    postedDate: invoice.postedAt ? invoice.postedAt.toISOString().slice(0, 10) : null,
    effectiveDate: invoice.effectiveAt.toISOString().slice(0, 10),
    dueDate: invoice.dueAt.toISOString().slice(0, 10),
    terms: invoice.terms,
    poNumber: invoice.poNumber,
    currency: invoice.currency,
    decimals: minorUnits(invoice.currency),
    lines: charges.map((c) => ({
      name: c.name,
      description: c.description,
      startServiceDate: c.startServiceDate,
      endServiceDate: c.endServiceDate,
      quantity: c.quantity,
      // a usage line's unit price is an average of its tiers (finer than the minor unit): its description prices it
      unitPrice: c.kind === 'Usage' ? '' : c.unitPrice,
      amount: c.amount,
      discounts: c.discounts,
    })),
    subtotal: invoice.subtotal,
    totalDiscount: invoice.totalDiscount,
    taxes: taxes.map((t) => ({ name: t.name, rate: t.rate, amount: t.amount })),
    totalTaxes: invoice.totalTaxes,
    total: invoice.total,
    paid: invoice.totalPayments,
    outstanding: invoice.outstandingBalance,
  };
}

/** The customer's stored language when it is one the PDF speaks, else the account's default. */
function customerLanguage(stored: string | null | undefined, fallback: CustomerLanguage): CustomerLanguage {
  return (CUSTOMER_LANGUAGES as readonly string[]).includes(stored ?? '') ? (stored as CustomerLanguage) : fallback;
}

function billingAddressLines(address: AddressRow | undefined, company: string | null, language: CustomerLanguage): string[] {
  if (!address) return [];
  const state = address.stateId !== null ? stateById(address.stateId) : undefined;
  const country = address.countryId !== null ? countryById(address.countryId) : undefined;
  return addressLines({
    company: address.companyName && address.companyName !== company ? address.companyName : undefined,
    line1: address.line1,
    line2: address.line2,
    city: address.city,
    state: state?.name,
    postalZip: address.postalZip,
    country: country ? countryName(country.iso, country.name, language) : undefined,
  });
}

/** An address as printed: street lines, "city, state postal code", country; empty parts left out. */
function addressLines(parts: {
  company?: string | null;
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  postalZip?: string | null;
  country?: string | null;
}): string[] {
  const place = [[parts.city, parts.state].filter(Boolean).join(', '), parts.postalZip].filter(Boolean).join(' ');
  return [parts.company, parts.line1, parts.line2, place, parts.country].filter((line): line is string => Boolean(line));
}
