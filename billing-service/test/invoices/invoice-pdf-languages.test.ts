import { inflateSync } from 'node:zlib';
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCatalog } from '../../src/catalog/load-catalog.js';
import { PDF_WORDS } from '../../src/invoices/pdf/pdf-words.js';
import { ACTIVATION_FLAGS, activate, newCustomer, newSubscription } from '../helpers/api-fixtures.js';
import { startTestApp, testCatalog, type TestApp } from '../helpers/test-app.js';

/**
 * The invoice PDF in the customer's language (issue 38): labels, dates and amounts as the customer's
 * locale writes them, and the seller's legal details from the catalogue (`seller`).
 */

const PLAN_FREQUENCY = 9011;

let t: TestApp;
let plain: TestApp;
beforeAll(async () => {
  const demo = testCatalog();
  const euro = {
    currencies: { default: 'EUR', allowed: ['EUR'] },
    taxRates: [],
    coupons: [],
    planChanges: { allowed: [] },
    plans: [
      {
        id: 901,
        code: 'ATELIER',
        name: 'Atelier',
        products: [{ code: 'LICENCE', name: 'Licence' }],
        frequencies: [
          { id: PLAN_FREQUENCY, interval: 'Monthly', prices: [{ product: 'LICENCE', charges: [{ currency: 'EUR', amount: '1234.56' }] }] },
        ],
      },
    ],
  };
  t = await startTestApp({
    catalog: parseCatalog({
      ...demo,
      ...euro,
      account: { name: 'Inkwell', email: 'billing@inkwell.test' },
      emails: { brandName: 'Inkwell' },
      seller: {
        legalName: 'Inkwell Papeterie SAS',
        address: { line1: '12 rue des Plumes', city: 'Lyon', postalZip: '69002', country: 'France' },
        taxId: 'FR 12 345678901',
      },
    }),
  });
  // Without `seller`: the brand as the e-mails name it, as before.
  plain = await startTestApp({
    catalog: parseCatalog({ ...demo, ...euro, seller: undefined, account: { name: 'Inkwell' }, emails: { brandName: 'Inkwell Shop' } }),
  });
});
afterAll(async () => {
  await t?.close();
  await plain?.close();
});

/** The PDF's text as extracted, pages joined, whitespace runs as one space (pdf.js reads a no-break space as a space). */
async function pdfText(pdf: Buffer): Promise<string> {
  const document = await getDocumentProxy(new Uint8Array(pdf));
  const { text } = await extractText(document, { mergePages: true });
  return text.replace(/\s+/g, ' ');
}

/**
 * The characters the PDF's fonts say their glyphs stand for (the ToUnicode maps, inflated from the raw
 * file): what a reader copies. pdf.js's extraction shows every space alike, these tell them apart.
 */
function mappedCharacters(pdf: Buffer): Set<string> {
  const raw = pdf.toString('latin1');
  const characters = new Set<string>();
  for (const match of raw.matchAll(/stream\r?\n/g)) {
    const start = match.index + match[0].length;
    const end = raw.indexOf('endstream', start);
    let body: string;
    try {
      body = inflateSync(pdf.subarray(start, end)).toString('latin1');
    } catch {
      continue; // not a Flate stream (a font file's own compression)
    }
    if (!body.includes('begincmap')) continue;
    for (const hex of body.matchAll(/<([0-9a-f]{4})>/gi)) characters.add(String.fromCodePoint(Number.parseInt(hex[1]!, 16)));
  }
  return characters;
}

async function invoicePdfOf(app: TestApp, body: Record<string, unknown>) {
  const customerId = await newCustomer(app, { currency: 'EUR', ...body });
  await newSubscription(app, customerId, PLAN_FREQUENCY);
  const activated = await activate(app, customerId, ACTIVATION_FLAGS, '?view=sideeffects');
  expect(activated.statusCode, activated.body).toBe(200);
  const invoice = activated.json().invoices[0] as { id: number; invoiceNumber: number; dueTimestamp: string };
  const res = await app.app.inject({
    method: 'GET',
    url: `/v1/Invoices/pdf/${invoice.id}`,
    headers: { authorization: `Basic ${app.account.apiKey}` },
  });
  expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
  expect(res.headers['content-type']).toBe('application/pdf');
  return { invoice, text: await pdfText(res.rawPayload), characters: mappedCharacters(res.rawPayload) };
}

const { title, billTo, invoiceDate, dueDate: due, terms, unitPrice, subtotal, outstanding, paid } = PDF_WORDS.en;
const ENGLISH_LABELS = [
  title,
  billTo,
  invoiceDate,
  due,
  terms,
  unitPrice,
  subtotal,
  outstanding,
  paid,
  'Service period',
  'Due on receipt',
  ' of 1',
];

/** How Intl writes the invoice's due date in the language (the date the test clock gave it). */
const dueDate = (iso: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${iso.slice(0, 10)}T00:00:00Z`));

/** Which of `expected` the text lacks (an empty list when it has them all). */
const missing = (text: string, expected: string[]) => expected.filter((e) => !text.includes(e));

/** Every label of the language's table that a one-line, unpaid invoice prints. */
function labelsOf(language: 'fr' | 'de', invoiceNumber: number): string[] {
  const w = PDF_WORDS[language];
  const { title, billTo, invoiceDate, dueDate, terms, currency, description, quantity, unitPrice, subtotal, total, paid, outstanding } = w;
  const fixed = [
    title,
    billTo,
    invoiceDate,
    dueDate,
    terms,
    currency,
    description,
    quantity,
    unitPrice,
    subtotal,
    total,
    paid,
    outstanding,
  ];
  return [...fixed, w.number(invoiceNumber), w.status.Posted, w.termsValue('Net0'), w.footer(invoiceNumber, 1, 1)];
}

describe('the invoice PDF in the customer’s language', () => {
  it('speaks French to a French customer: labels, 1 234,56 €, the date, the seller’s legal name, address and VAT number', async () => {
    const { invoice, text, characters } = await invoicePdfOf(t, {
      firstName: 'Amélie',
      lastName: 'Poulain',
      language: 'fr',
      billing: { line1: '3 rue Lepic', city: 'Paris', postalZip: '75018', country: 'DE' },
      billingSetting: { vatIdentificationNumber: 123456789 },
    });
    const written = [
      'FACTURE',
      'Facturé à',
      'Échéance',
      'À réception',
      'Reste à payer 1 234,56 €',
      `Facture ${invoice.invoiceNumber} · page 1 sur 1`,
    ];
    expect(missing(text, [...written, ...labelsOf('fr', invoice.invoiceNumber), dueDate(invoice.dueTimestamp, 'fr')])).toEqual([]);
    const seller = ['Inkwell Papeterie SAS', '12 rue des Plumes', 'N° de TVA : FR 12 345678901', 'N° de TVA : 123456789', 'Allemagne'];
    expect(missing(text, seller)).toEqual([]);
    expect(text).toMatch(/^Inkwell /); // the brand first, as in the e-mails
    // Intl's French: a narrow no-break space groups thousands, a no-break space before the euro sign; the PDF keeps both.
    expect(new Intl.NumberFormat('fr', { style: 'currency', currency: 'EUR' }).format(1234.56)).toBe('1\u202f234,56\u00a0€');
    expect(characters.has('\u202f') && characters.has('\u00a0') && characters.has('€')).toBe(true);
    expect(ENGLISH_LABELS.filter((label) => text.includes(label))).toEqual([]);
  });

  it('speaks German to a German customer: Rechnung, 1.234,56 €, the date in German', async () => {
    const { invoice, text } = await invoicePdfOf(t, { lastName: 'Müller', language: 'de', billing: { city: 'Köln', country: 'FR' } });
    const written = [
      'RECHNUNG',
      'Rechnungsempfänger',
      'Fällig am',
      'Offener Betrag 1.234,56 €',
      `Rechnung ${invoice.invoiceNumber} · Seite 1 von 1`,
    ];
    expect(missing(text, [...written, ...labelsOf('de', invoice.invoiceNumber), dueDate(invoice.dueTimestamp, 'de')])).toEqual([]);
    expect(missing(text, ['Inkwell Papeterie SAS', 'USt-IdNr.: FR 12 345678901', 'Frankreich'])).toEqual([]);
    expect(dueDate(invoice.dueTimestamp, 'de')).toMatch(/^\d{1,2}\. \p{L}+ \d{4}$/u);
    expect(ENGLISH_LABELS.filter((label) => text.includes(label))).toEqual([]);
  });

  it('speaks the account’s default language to a customer without one, and Spanish to a Spanish one', async () => {
    const english = await invoicePdfOf(t, { lastName: 'Smith' });
    expect(english.text).toContain('INVOICE');
    expect(english.text).toContain('Outstanding €1,234.56');
    expect(english.characters.has('\u202f')).toBe(false); // the check above can fail: English has no narrow space
    const spanish = await invoicePdfOf(t, { lastName: 'García', language: 'es' });
    expect(spanish.text).toContain('FACTURA');
    expect(spanish.text).toContain('Pendiente 1234,56 €');
    expect(spanish.text).toContain('NIF-IVA: FR 12 345678901');
  });

  it('shows the brand alone, no legal name or tax ID, when the catalogue has no seller', async () => {
    const { text } = await invoicePdfOf(plain, { lastName: 'Dupont', language: 'fr' });
    expect(text).toMatch(/^Inkwell Shop FACTURE/);
    expect(text).not.toContain('TVA');
  });
});

describe('the catalogue’s seller', () => {
  it('is validated: an unknown field or an empty legal name stops the service with the problem named', () => {
    const demo = testCatalog();
    expect(() => parseCatalog({ ...demo, seller: { legalName: '' } })).toThrow(/seller\.legalName/);
    expect(() => parseCatalog({ ...demo, seller: { vatNumber: 'FR1' } })).toThrow(/seller/);
    expect(() => parseCatalog({ ...demo, seller: { taxId: 'x'.repeat(51) } })).toThrow(/seller\.taxId/);
    expect(parseCatalog({ ...demo, seller: { taxId: ' DE123456789 ' } }).seller).toEqual({ taxId: 'DE123456789' });
  });
});
