import PDFDocument from 'pdfkit';
import type { CustomerLanguage } from '../../catalog/schema.js';
import { money } from '../../money/money.js';
import type { FontFace } from './fonts.js';
import { PdfText } from './pdf-text.js';
import { formatAmount, formatDate, formatMoney, formatQuantity, formatRate } from './pdf-formats.js';
import { PDF_WORDS, type PdfWords } from './pdf-words.js';

/**
 * An invoice as its PDF shows it: plain values, no database. Amounts are decimal strings,
 * printed with exactly the currency's minor units (`decimals`: USD 2, JPY 0, BHD 3).
 */
export interface InvoicePdfView {
  /** The customer's: the labels' language and how dates and amounts are written. */
  language: CustomerLanguage;
  /** `name`: the brand the e-mails use; `legalName` and `taxId` from the catalogue's `seller`. */
  seller: { name: string; legalName: string | null; addressLines: string[]; email: string | null; taxId: string | null };
  billTo: { name: string; addressLines: string[]; taxId: string | null };
  invoiceNumber: number;
  /** Posted, PartiallyPaid, Paid, … as the API says. */
  status: keyof PdfWords['status'];
  /** Dates as YYYY-MM-DD. */
  postedDate: string | null;
  effectiveDate: string;
  dueDate: string;
  terms: string;
  poNumber: string | null;
  currency: string;
  decimals: number;
  lines: Array<{
    name: string;
    description: string | null;
    startServiceDate: string;
    endServiceDate: string;
    quantity: string;
    unitPrice: string;
    /** Before discounts. */
    amount: string;
    discounts: Array<{ name: string; amount: string }>;
  }>;
  subtotal: string;
  totalDiscount: string;
  /** `rate` as a fraction: 0.13 is 13 %. */
  taxes: Array<{ name: string; rate: string; amount: string }>;
  totalTaxes: string;
  total: string;
  paid: string;
  outstanding: string;
  /**
   * Set for a credit note (issue 40) printed in the invoice's layout: its number, the invoice it corrects, the reason
   * and where its total went. Its `lines` are the credited lines (quantity and unit price empty when credited by
   * amount), its `taxes` one row of the tax credited.
   */
  creditNote?: { number: number; invoiceNumber: number; reason: string; applied: string; credited: string; refunded: string };
}

const PAGE = { width: 595.28, height: 841.89 }; // A4
const MARGIN = 50;
const RIGHT = PAGE.width - MARGIN;
const BOTTOM = PAGE.height - MARGIN - 20; // room for the footer
const GREY = '#555555';
const RULE = '#bbbbbb';
/** The line table: description, quantity, unit price, amount. */
const COLUMNS = {
  description: { x: MARGIN, width: 265 },
  quantity: { x: 320, width: 45 },
  unitPrice: { x: 370, width: 85 },
  amount: { x: 460, width: RIGHT - 460 },
};

/** Renders the invoice as an A4 PDF: header, parties, dates, lines (paginated, the table header repeated), totals, page numbers. */
export async function renderInvoicePdf(view: InvoicePdfView): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    lang: view.language,
    info: {
      Title: view.creditNote
        ? `${PDF_WORDS[view.language].creditNote.title} ${view.creditNote.number}`
        : `${PDF_WORDS[view.language].title} ${view.invoiceNumber}`,
      Author: view.seller.legalName ?? view.seller.name,
      CreationDate: new Date(`${view.postedDate ?? view.effectiveDate}T00:00:00Z`),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  new InvoiceLayout(doc, view).draw();
  doc.end();
  return done;
}

class InvoiceLayout extends PdfText {
  private y = MARGIN;
  private readonly words: PdfWords;

  constructor(
    doc: PDFKit.PDFDocument,
    private readonly view: InvoicePdfView,
  ) {
    super(doc);
    this.words = PDF_WORDS[view.language];
  }

  private amount(value: string) {
    return formatAmount(value, this.view.decimals, this.view.language);
  }

  private date(isoDate: string) {
    return formatDate(isoDate, this.view.language);
  }

  draw() {
    this.header();
    this.parties();
    this.lineTable();
    this.totals();
    this.footers();
  }

  private header() {
    const { view, words } = this;
    const { seller } = view;
    const top = this.y;
    this.text(seller.name, MARGIN, top, { size: 16, face: 'bold', width: 300 });
    let left = top + 24;
    const lines = [
      ...(seller.legalName && seller.legalName !== seller.name ? [seller.legalName] : []),
      ...seller.addressLines,
      ...(seller.email ? [seller.email] : []),
      ...(seller.taxId ? [words.taxId(seller.taxId)] : []),
    ];
    for (const line of lines) {
      this.text(line, MARGIN, left, { size: 9, color: GREY, width: 300 });
      left += 12;
    }
    const note = view.creditNote;
    this.text(note ? words.creditNote.title : words.title, MARGIN, top, { size: 20, face: 'bold', width: RIGHT - MARGIN, align: 'right' });
    this.text(words.number(note ? note.number : view.invoiceNumber), MARGIN, top + 26, { size: 11, width: RIGHT - MARGIN, align: 'right' });
    const under = note ? words.creditNote.forInvoice(note.invoiceNumber) : (words.status[view.status] ?? view.status);
    this.text(under, MARGIN, top + 41, { size: 9, color: GREY, width: RIGHT - MARGIN, align: 'right' });
    this.y = Math.max(left, top + 56) + 18;
  }

  private parties() {
    const { view, words } = this;
    const top = this.y;
    this.text(words.billTo, MARGIN, top, { size: 9, face: 'bold', color: GREY });
    let left = top + 14;
    for (const line of this.wrap(view.billTo.name, 260, 11, 'bold')) {
      this.text(line, MARGIN, left, { size: 11, face: 'bold' });
      left += 15;
    }
    const taxId = view.billTo.taxId ? [words.taxId(view.billTo.taxId)] : [];
    for (const address of [...view.billTo.addressLines, ...taxId]) {
      for (const line of this.wrap(address, 260, 9.5)) {
        this.text(line, MARGIN, left, { size: 9.5 });
        left += 13;
      }
    }
    const facts: Array<[string, string]> = view.creditNote
      ? [
          [words.creditNote.date, this.date(view.effectiveDate)],
          [words.currency, view.currency],
        ]
      : [
          [words.invoiceDate, this.date(view.postedDate ?? view.effectiveDate)],
          [words.dueDate, this.date(view.dueDate)],
          [words.terms, words.termsValue(view.terms)],
          [words.currency, view.currency],
          ...(view.poNumber ? ([[words.poNumber, view.poNumber]] as Array<[string, string]>) : []),
        ];
    let right = top;
    for (const [label, value] of facts) {
      this.text(label, 340, right, { size: 9, color: GREY, width: 90 });
      this.text(value, 430, right, { size: 9.5, width: RIGHT - 430, align: 'right' });
      right += 14;
    }
    this.y = Math.max(left, right) + 20;
    if (view.creditNote) this.reason(view.creditNote.reason);
  }

  /** A credit note's reason, under the parties. */
  private reason(reason: string) {
    this.text(this.words.creditNote.reason, MARGIN, this.y, { size: 9, face: 'bold', color: GREY });
    let y = this.y + 14;
    for (const line of this.wrap(reason, RIGHT - MARGIN, 9.5)) {
      this.text(line, MARGIN, y, { size: 9.5 });
      y += 13;
    }
    this.y = y + 12;
  }

  private tableHeader() {
    const y = this.y;
    const head = { size: 8.5, face: 'bold' as FontFace, color: GREY };
    const { words } = this;
    this.text(words.description, COLUMNS.description.x, y, { ...head, width: COLUMNS.description.width });
    this.text(words.quantity, COLUMNS.quantity.x, y, { ...head, width: COLUMNS.quantity.width, align: 'right' });
    this.text(words.unitPrice, COLUMNS.unitPrice.x, y, { ...head, width: COLUMNS.unitPrice.width, align: 'right' });
    this.text(words.amount(this.view.currency), COLUMNS.amount.x, y, { ...head, width: COLUMNS.amount.width, align: 'right' });
    this.rule(y + 13);
    this.y = y + 19;
  }

  private lineTable() {
    const { view, words } = this;
    this.tableHeader();
    for (const line of view.lines) {
      const name = this.wrap(line.name, COLUMNS.description.width, 9.5, 'bold');
      const details = [
        ...(line.description ? this.wrap(line.description, COLUMNS.description.width, 8) : []),
        ...this.wrap(words.servicePeriod(this.date(line.startServiceDate), this.date(line.endServiceDate)), COLUMNS.description.width, 8),
      ];
      const discounts = line.discounts.map((d) => ({
        label: this.wrap(words.discount(d.name), COLUMNS.description.width, 8),
        amount: d.amount,
      }));
      const height = name.length * 13 + details.length * 11 + discounts.reduce((h, d) => h + d.label.length * 11, 0) + 8;
      this.room(height, () => this.tableHeader());
      const top = this.y;
      for (const [i, text] of name.entries()) this.text(text, COLUMNS.description.x, top + i * 13, { size: 9.5, face: 'bold' });
      this.text(line.quantity === '' ? '' : formatQuantity(line.quantity, view.language), COLUMNS.quantity.x, top, {
        size: 9.5,
        width: COLUMNS.quantity.width,
        align: 'right',
      });
      this.text(line.unitPrice === '' ? '' : this.amount(line.unitPrice), COLUMNS.unitPrice.x, top, {
        size: 9.5,
        width: COLUMNS.unitPrice.width,
        align: 'right',
      });
      this.text(this.amount(line.amount), COLUMNS.amount.x, top, {
        size: 9.5,
        width: COLUMNS.amount.width,
        align: 'right',
      });
      let y = top + name.length * 13;
      for (const text of details) {
        this.text(text, COLUMNS.description.x, y, { size: 8, color: GREY });
        y += 11;
      }
      for (const discount of discounts) {
        for (const [i, text] of discount.label.entries()) this.text(text, COLUMNS.description.x, y + i * 11, { size: 8, color: GREY });
        this.text(this.amount(money(discount.amount).negated().toString()), COLUMNS.amount.x, y, {
          size: 8,
          color: GREY,
          width: COLUMNS.amount.width,
          align: 'right',
        });
        y += discount.label.length * 11;
      }
      this.rule(y + 3);
      this.y = y + 8;
    }
  }

  private totals() {
    const { view, words } = this;
    const rows: Array<{ label: string; amount: string; strong?: boolean; ruled?: boolean }> = [
      { label: words.subtotal, amount: view.subtotal },
      ...(money(view.totalDiscount).isZero() ? [] : [{ label: words.discounts, amount: money(view.totalDiscount).negated().toString() }]),
      // a credit note's one tax row has no rate ('')
      ...view.taxes.map((t) => ({ label: t.rate === '' ? t.name : `${t.name} ${formatRate(t.rate, view.language)}`, amount: t.amount })),
      { label: words.total, amount: view.total, strong: true, ruled: true },
      ...(view.creditNote
        ? [
            { label: words.creditNote.appliedToInvoice, amount: view.creditNote.applied },
            { label: words.creditNote.customerCredit, amount: view.creditNote.credited },
            { label: words.creditNote.refunded, amount: view.creditNote.refunded },
          ]
        : [
            { label: words.paid, amount: view.paid },
            { label: words.outstanding, amount: view.outstanding, strong: true, ruled: true },
          ]),
    ];
    this.room(rows.length * 16 + 10);
    let y = this.y + 6;
    for (const row of rows) {
      const face: FontFace = row.strong ? 'bold' : 'regular';
      if (row.ruled) this.rule(y - 4, 320);
      this.text(row.label, 320, y, { size: 9.5, face, width: 140 });
      this.text(formatMoney(row.amount, view.currency, view.decimals, view.language), 440, y, {
        size: 9.5,
        face,
        width: RIGHT - 440,
        align: 'right',
      });
      y += 16;
    }
    this.y = y;
  }

  private footers() {
    const range = this.doc.bufferedPageRange();
    for (let i = 0; i < range.count; i++) {
      this.doc.switchToPage(range.start + i);
      const note = this.view.creditNote;
      const footer = note
        ? this.words.creditNote.footer(note.number, i + 1, range.count)
        : this.words.footer(this.view.invoiceNumber, i + 1, range.count);
      this.text(footer, MARGIN, PAGE.height - MARGIN - 6, {
        size: 8,
        color: GREY,
        width: RIGHT - MARGIN,
        align: 'center',
      });
    }
  }

  /** A new page (and whatever starts it, e.g. the table header) unless `height` fits below the current position. */
  private room(height: number, onNewPage?: () => void) {
    if (this.y + height <= BOTTOM) return;
    this.doc.addPage();
    this.y = MARGIN;
    onNewPage?.();
  }

  private rule(y: number, from = MARGIN) {
    this.doc.moveTo(from, y).lineTo(RIGHT, y).lineWidth(0.5).strokeColor(RULE).stroke();
  }
}
