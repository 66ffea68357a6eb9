import type { CustomerLanguage } from '../../catalog/schema.js';

/** The invoice PDF's labels in one language; dates and amounts reach them already formatted. */
export interface PdfWords {
  title: string;
  number: (n: number) => string;
  status: Record<'Draft' | 'Posted' | 'PartiallyPaid' | 'Paid' | 'Void' | 'WrittenOff', string>;
  billTo: string;
  customer: (id: number) => string;
  taxId: (id: string) => string;
  invoiceDate: string;
  dueDate: string;
  terms: string;
  /** Net0 … Net90 (days), MFI1 (the 1st of the month after the invoice). */
  termsValue: (term: string) => string;
  currency: string;
  poNumber: string;
  description: string;
  quantity: string;
  unitPrice: string;
  amount: (currency: string) => string;
  servicePeriod: (from: string, to: string) => string;
  discount: (name: string) => string;
  subtotal: string;
  discounts: string;
  total: string;
  paid: string;
  outstanding: string;
  footer: (invoice: number, page: number, pages: number) => string;
  /** A credit note (issue 40) in the invoice's layout: its own title, the invoice it corrects, where its money went. */
  creditNote: {
    title: string;
    forInvoice: (invoice: number) => string;
    date: string;
    reason: string;
    tax: string;
    appliedToInvoice: string;
    customerCredit: string;
    refunded: string;
    footer: (creditNote: number, page: number, pages: number) => string;
  };
}

/** NetN as `days(N)`, MFI1 and anything else as given. */
function terms(net0: string, days: (n: number) => string, mfi1: string) {
  return (term: string) => {
    if (term === 'Net0') return net0;
    if (term === 'MFI1') return mfi1;
    const n = /^Net(\d+)$/.exec(term)?.[1];
    return n ? days(Number(n)) : term;
  };
}

// French typography: a narrow no-break space before « : ».
const nb = '\u202f';

const en: PdfWords = {
  title: 'INVOICE',
  number: (n) => `No. ${n}`,
  status: { Draft: 'Draft', Posted: 'Posted', PartiallyPaid: 'Partly paid', Paid: 'Paid', Void: 'Void', WrittenOff: 'Written off' },
  billTo: 'Bill to',
  customer: (id) => `Customer ${id}`,
  taxId: (id) => `VAT/tax ID: ${id}`,
  invoiceDate: 'Invoice date',
  dueDate: 'Due date',
  terms: 'Terms',
  termsValue: terms('Due on receipt', (n) => `Net ${n} days`, '1st of next month'),
  currency: 'Currency',
  poNumber: 'PO number',
  description: 'Description',
  quantity: 'Qty',
  unitPrice: 'Unit price',
  amount: (currency) => `Amount (${currency})`,
  servicePeriod: (from, to) => `Service period ${from} – ${to}`,
  discount: (name) => `Discount: ${name}`,
  subtotal: 'Subtotal',
  discounts: 'Discounts',
  total: 'Total',
  paid: 'Paid',
  outstanding: 'Outstanding',
  footer: (invoice, page, pages) => `Invoice ${invoice} · page ${page} of ${pages}`,
  creditNote: {
    title: 'CREDIT NOTE',
    forInvoice: (invoice) => `For invoice No. ${invoice}`,
    date: 'Credit note date',
    reason: 'Reason',
    tax: 'Tax',
    appliedToInvoice: 'Applied to the invoice',
    customerCredit: 'Credit to your account',
    refunded: 'Refunded',
    footer: (n, page, pages) => `Credit note ${n} · page ${page} of ${pages}`,
  },
};

const fr: PdfWords = {
  title: 'FACTURE',
  number: (n) => `N° ${n}`,
  status: {
    Draft: 'Brouillon',
    Posted: 'À payer',
    PartiallyPaid: 'Payée en partie',
    Paid: 'Payée',
    Void: 'Annulée',
    WrittenOff: 'Passée en perte',
  },
  billTo: 'Facturé à',
  customer: (id) => `Client ${id}`,
  taxId: (id) => `N° de TVA${nb}: ${id}`,
  invoiceDate: 'Date de facture',
  dueDate: 'Échéance',
  terms: 'Conditions',
  termsValue: terms('À réception', (n) => `${n} jours net`, 'Le 1er du mois suivant'),
  currency: 'Devise',
  poNumber: 'N° de commande',
  description: 'Désignation',
  quantity: 'Qté',
  unitPrice: 'Prix unitaire',
  amount: (currency) => `Montant (${currency})`,
  servicePeriod: (from, to) => `Période du ${from} au ${to}`,
  discount: (name) => `Remise${nb}: ${name}`,
  subtotal: 'Sous-total',
  discounts: 'Remises',
  total: 'Total',
  paid: 'Réglé',
  outstanding: 'Reste à payer',
  footer: (invoice, page, pages) => `Facture ${invoice} · page ${page} sur ${pages}`,
  creditNote: {
    title: 'AVOIR',
    forInvoice: (invoice) => `Sur la facture n° ${invoice}`,
    date: "Date de l'avoir",
    reason: 'Motif',
    tax: 'Taxes',
    appliedToInvoice: 'Imputé sur la facture',
    customerCredit: 'Crédit sur votre compte',
    refunded: 'Remboursé',
    footer: (n, page, pages) => `Avoir ${n} · page ${page} sur ${pages}`,
  },
};

const de: PdfWords = {
  title: 'RECHNUNG',
  number: (n) => `Nr. ${n}`,
  status: {
    Draft: 'Entwurf',
    Posted: 'Offen',
    PartiallyPaid: 'Teilweise bezahlt',
    Paid: 'Bezahlt',
    Void: 'Storniert',
    WrittenOff: 'Abgeschrieben',
  },
  billTo: 'Rechnungsempfänger',
  customer: (id) => `Kunde ${id}`,
  taxId: (id) => `USt-IdNr.: ${id}`,
  invoiceDate: 'Rechnungsdatum',
  dueDate: 'Fällig am',
  terms: 'Zahlungsziel',
  termsValue: terms('Sofort fällig', (n) => `${n} Tage netto`, 'Zum 1. des Folgemonats'),
  currency: 'Währung',
  poNumber: 'Bestellnummer',
  description: 'Beschreibung',
  quantity: 'Menge',
  unitPrice: 'Einzelpreis',
  amount: (currency) => `Betrag (${currency})`,
  servicePeriod: (from, to) => `Leistungszeitraum ${from} – ${to}`,
  discount: (name) => `Rabatt: ${name}`,
  subtotal: 'Zwischensumme',
  discounts: 'Rabatte',
  total: 'Gesamtbetrag',
  paid: 'Bezahlt',
  outstanding: 'Offener Betrag',
  footer: (invoice, page, pages) => `Rechnung ${invoice} · Seite ${page} von ${pages}`,
  creditNote: {
    title: 'GUTSCHRIFT',
    forInvoice: (invoice) => `Zur Rechnung Nr. ${invoice}`,
    date: 'Gutschriftsdatum',
    reason: 'Grund',
    tax: 'Steuern',
    appliedToInvoice: 'Mit der Rechnung verrechnet',
    customerCredit: 'Guthaben auf Ihrem Konto',
    refunded: 'Erstattet',
    footer: (n, page, pages) => `Gutschrift ${n} · Seite ${page} von ${pages}`,
  },
};

const es: PdfWords = {
  title: 'FACTURA',
  number: (n) => `N.º ${n}`,
  status: {
    Draft: 'Borrador',
    Posted: 'Pendiente de pago',
    PartiallyPaid: 'Pagada en parte',
    Paid: 'Pagada',
    Void: 'Anulada',
    WrittenOff: 'Cancelada como incobrable',
  },
  billTo: 'Facturar a',
  customer: (id) => `Cliente ${id}`,
  taxId: (id) => `NIF-IVA: ${id}`,
  invoiceDate: 'Fecha de factura',
  dueDate: 'Vencimiento',
  terms: 'Condiciones',
  termsValue: terms('Al recibo', (n) => `${n} días netos`, 'El día 1 del mes siguiente'),
  currency: 'Moneda',
  poNumber: 'N.º de pedido',
  description: 'Descripción',
  quantity: 'Cant.',
  unitPrice: 'Precio unitario',
  amount: (currency) => `Importe (${currency})`,
  servicePeriod: (from, to) => `Período del ${from} al ${to}`,
  discount: (name) => `Descuento: ${name}`,
  subtotal: 'Subtotal',
  discounts: 'Descuentos',
  total: 'Total',
  paid: 'Pagado',
  outstanding: 'Pendiente',
  footer: (invoice, page, pages) => `Factura ${invoice} · página ${page} de ${pages}`,
  creditNote: {
    title: 'NOTA DE CRÉDITO',
    forInvoice: (invoice) => `Sobre la factura n.º ${invoice}`,
    date: 'Fecha de la nota',
    reason: 'Motivo',
    tax: 'Impuestos',
    appliedToInvoice: 'Aplicado a la factura',
    customerCredit: 'Saldo a su favor',
    refunded: 'Reembolsado',
    footer: (n, page, pages) => `Nota de crédito ${n} · página ${page} de ${pages}`,
  },
};

/** The PDF's words per language (a language missing here fails the typecheck). */
export const PDF_WORDS: Record<CustomerLanguage, PdfWords> = { en, fr, de, es };
