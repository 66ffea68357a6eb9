import PDFDocument from 'pdfkit';
import { money } from '../../money/money.js';
import { fontRuns, loadFont, type FontFace, type FontFamily } from './fonts.js';

/**
 * An invoice as its PDF shows it: plain values, no database. Amounts are decimal strings,
 * printed with exactly the currency's minor units (`decimals`: USD 2, JPY 0, BHD 3).
 */
export interface InvoicePdfView {
  seller: { name: string; addressLines: string[]; email: string | null };
  billTo: { name: string; addressLines: string[] };
  invoiceNumber: number;
  /** Posted, PartiallyPaid, Paid, … as the API says. */
  status: string;
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

/** An amount with exactly `decimals` places (more if the value has them: a unit price of 0.0125) and thousands separators. */
export function formatAmount(value: string, decimals: number, sign = ''): string {
  const amount = money(value);
  const places = Math.max(decimals, amount.decimalPlaces());
  const [whole = '', fraction] = amount.abs().toFixed(places).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const negative = amount.isNegative() && !amount.isZero() ? '−' : sign;
  return `${negative}${grouped}${fraction ? `.${fraction}` : ''}`;
}

/** A rate as a percentage: 0.13 → "13 %", 0.0975 → "9.75 %". */
export function formatRate(rate: string): string {
  return `${money(rate).times(100).toString()} %`;
}

/** Renders the invoice as an A4 PDF: header, parties, dates, lines (paginated, the table header repeated), totals, page numbers. */
export async function renderInvoicePdf(view: InvoicePdfView): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: {
      Title: `Invoice ${view.invoiceNumber}`,
      Author: view.seller.name,
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

class InvoiceLayout {
  private y = MARGIN;
  private readonly registered = new Set<string>();

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly view: InvoicePdfView,
  ) {}

  draw() {
    this.header();
    this.parties();
    this.lineTable();
    this.totals();
    this.footers();
  }

  private header() {
    const { view } = this;
    const top = this.y;
    this.text(view.seller.name, MARGIN, top, { size: 16, face: 'bold', width: 300 });
    let left = top + 24;
    for (const line of [...view.seller.addressLines, ...(view.seller.email ? [view.seller.email] : [])]) {
      this.text(line, MARGIN, left, { size: 9, color: GREY, width: 300 });
      left += 12;
    }
    this.text('INVOICE', MARGIN, top, { size: 20, face: 'bold', width: RIGHT - MARGIN, align: 'right' });
    this.text(`No. ${view.invoiceNumber}`, MARGIN, top + 26, { size: 11, width: RIGHT - MARGIN, align: 'right' });
    this.text(view.status, MARGIN, top + 41, { size: 9, color: GREY, width: RIGHT - MARGIN, align: 'right' });
    this.y = Math.max(left, top + 56) + 18;
  }

  private parties() {
    const { view } = this;
    const top = this.y;
    this.text('Bill to', MARGIN, top, { size: 9, face: 'bold', color: GREY });
    let left = top + 14;
    for (const line of this.wrap(view.billTo.name, 260, 11, 'bold')) {
      this.text(line, MARGIN, left, { size: 11, face: 'bold' });
      left += 15;
    }
    for (const address of view.billTo.addressLines) {
      for (const line of this.wrap(address, 260, 9.5)) {
        this.text(line, MARGIN, left, { size: 9.5 });
        left += 13;
      }
    }
    const facts: Array<[string, string]> = [
      ['Invoice date', view.postedDate ?? view.effectiveDate],
      ['Due date', view.dueDate],
      ['Terms', view.terms],
      ['Currency', view.currency],
      ...(view.poNumber ? ([['PO number', view.poNumber]] as Array<[string, string]>) : []),
    ];
    let right = top;
    for (const [label, value] of facts) {
      this.text(label, 340, right, { size: 9, color: GREY, width: 90 });
      this.text(value, 430, right, { size: 9.5, width: RIGHT - 430, align: 'right' });
      right += 14;
    }
    this.y = Math.max(left, right) + 20;
  }

  private tableHeader() {
    const y = this.y;
    const head = { size: 8.5, face: 'bold' as FontFace, color: GREY };
    this.text('Description', COLUMNS.description.x, y, { ...head, width: COLUMNS.description.width });
    this.text('Qty', COLUMNS.quantity.x, y, { ...head, width: COLUMNS.quantity.width, align: 'right' });
    this.text('Unit price', COLUMNS.unitPrice.x, y, { ...head, width: COLUMNS.unitPrice.width, align: 'right' });
    this.text(`Amount (${this.view.currency})`, COLUMNS.amount.x, y, { ...head, width: COLUMNS.amount.width, align: 'right' });
    this.rule(y + 13);
    this.y = y + 19;
  }

  private lineTable() {
    const { view } = this;
    this.tableHeader();
    for (const line of view.lines) {
      const name = this.wrap(line.name, COLUMNS.description.width, 9.5, 'bold');
      const details = [
        ...(line.description ? this.wrap(line.description, COLUMNS.description.width, 8) : []),
        `Service period ${line.startServiceDate} – ${line.endServiceDate}`,
      ];
      const discounts = line.discounts.map((d) => ({
        label: this.wrap(`Discount: ${d.name}`, COLUMNS.description.width, 8),
        amount: d.amount,
      }));
      const height = name.length * 13 + details.length * 11 + discounts.reduce((h, d) => h + d.label.length * 11, 0) + 8;
      this.room(height, () => this.tableHeader());
      const top = this.y;
      for (const [i, text] of name.entries()) this.text(text, COLUMNS.description.x, top + i * 13, { size: 9.5, face: 'bold' });
      this.text(money(line.quantity).toString(), COLUMNS.quantity.x, top, { size: 9.5, width: COLUMNS.quantity.width, align: 'right' });
      this.text(formatAmount(line.unitPrice, view.decimals), COLUMNS.unitPrice.x, top, {
        size: 9.5,
        width: COLUMNS.unitPrice.width,
        align: 'right',
      });
      this.text(formatAmount(line.amount, view.decimals), COLUMNS.amount.x, top, {
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
        this.text(formatAmount(money(discount.amount).negated().toString(), view.decimals), COLUMNS.amount.x, y, {
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
    const { view } = this;
    const rows: Array<{ label: string; amount: string; strong?: boolean }> = [
      { label: 'Subtotal', amount: view.subtotal },
      ...(money(view.totalDiscount).isZero() ? [] : [{ label: 'Discounts', amount: money(view.totalDiscount).negated().toString() }]),
      ...view.taxes.map((t) => ({ label: `${t.name} ${formatRate(t.rate)}`, amount: t.amount })),
      { label: 'Total', amount: view.total, strong: true },
      { label: 'Paid', amount: view.paid },
      { label: 'Outstanding', amount: view.outstanding, strong: true },
    ];
    this.room(rows.length * 16 + 10);
    let y = this.y + 6;
    for (const row of rows) {
      const face: FontFace = row.strong ? 'bold' : 'regular';
      if (row.label === 'Total' || row.label === 'Outstanding') {
        this.rule(y - 4, 320);
      }
      this.text(row.label, 320, y, { size: 9.5, face, width: 140 });
      this.text(`${formatAmount(row.amount, view.decimals)} ${view.currency}`, 440, y, {
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
      this.text(`Invoice ${this.view.invoiceNumber} · page ${i + 1} of ${range.count}`, MARGIN, PAGE.height - MARGIN - 6, {
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

  private font(family: FontFamily, face: FontFace): string {
    const name = `${family}-${face}`;
    if (!this.registered.has(name)) {
      this.doc.registerFont(name, loadFont(family, face) as unknown as Buffer); // pdfkit embeds a parsed fontkit font as it is
      this.registered.add(name);
    }
    return name;
  }

  private widthOf(text: string, size: number, face: FontFace): number {
    let width = 0;
    for (const run of fontRuns(text)) width += this.doc.font(this.font(run.family, face)).fontSize(size).widthOfString(run.text);
    return width;
  }

  /**
   * One line of text at (x, y), each script in its font; `align: 'right'` ends it at x + width.
   * Text wider than `width` is cut with an ellipsis (callers wrap what may be long).
   */
  private text(
    text: string,
    x: number,
    y: number,
    options: { size: number; face?: FontFace; color?: string; width?: number; align?: 'left' | 'right' | 'center' },
  ) {
    const face = options.face ?? 'regular';
    let shown = text;
    let width = this.widthOf(shown, options.size, face);
    if (options.width !== undefined && width > options.width) {
      while (shown.length > 1 && this.widthOf(`${shown}…`, options.size, face) > options.width) shown = [...shown].slice(0, -1).join('');
      shown = `${shown}…`;
      width = this.widthOf(shown, options.size, face);
    }
    let cursor = x;
    if (options.width !== undefined && options.align === 'right') cursor = x + options.width - width;
    if (options.width !== undefined && options.align === 'center') cursor = x + (options.width - width) / 2;
    this.doc.fillColor(options.color ?? '#000000');
    for (const run of fontRuns(shown)) {
      this.doc.font(this.font(run.family, face)).fontSize(options.size).text(run.text, cursor, y, { lineBreak: false });
      cursor += this.doc.widthOfString(run.text);
    }
  }

  /** The text broken into lines of at most `width` points: at spaces, between CJK characters, and inside a word only when it alone is too wide. */
  private wrap(text: string, width: number, size: number, face: FontFace = 'regular'): string[] {
    const tokens = text.split(/(\s+)/).flatMap((token) => (fontRuns(token).some((r) => r.family === 'cjk') ? [...token] : [token]));
    const lines: string[] = [];
    let current = '';
    const push = () => {
      if (current.trim()) lines.push(current.trim());
      current = '';
    };
    for (const token of tokens) {
      if (this.widthOf(current + token, size, face) <= width) {
        current += token;
        continue;
      }
      push();
      if (/^\s+$/.test(token)) continue;
      let rest = token;
      while (this.widthOf(rest, size, face) > width) {
        let cut = [...rest];
        while (cut.length > 1 && this.widthOf(cut.join(''), size, face) > width) cut = cut.slice(0, -1);
        lines.push(cut.join(''));
        rest = [...rest].slice(cut.length).join('');
      }
      current = rest;
    }
    push();
    return lines.length > 0 ? lines : [''];
  }
}
