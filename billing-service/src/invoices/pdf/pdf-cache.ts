import { createHash } from 'node:crypto';
import type { InvoicePdfView } from './invoice-pdf-layout.js';

/**
 * Rendered invoice PDFs, one per invoice, kept while what the PDF shows is unchanged: the key holds a
 * hash of the whole view (amounts, status, lines, the customer's name and address, the seller), so
 * any change to the invoice or to what it prints makes a new PDF. Least recently used ones are
 * dropped beyond `maxBytes`.
 */
export class PdfCache {
  private readonly entries = new Map<string, { version: string; pdf: Buffer }>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  static version(view: InvoicePdfView): string {
    return createHash('sha256').update(JSON.stringify(view)).digest('base64url');
  }

  get(invoiceId: number, version: string): Buffer | undefined {
    const key = String(invoiceId);
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    // Map order is the recency order: the entry goes to the end again.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.pdf;
  }

  set(invoiceId: number, version: string, pdf: Buffer) {
    const key = String(invoiceId);
    this.drop(key);
    if (pdf.byteLength > this.maxBytes) return;
    this.entries.set(key, { version, pdf });
    this.bytes += pdf.byteLength;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  private drop(key: string) {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.pdf.byteLength;
  }
}
