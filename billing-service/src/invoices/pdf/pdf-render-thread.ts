import { parentPort } from 'node:worker_threads';
import { renderInvoicePdf, type InvoicePdfView } from './invoice-pdf-layout.js';

/**
 * The body of a PDF worker thread (see pdf-render-pool.ts): renders one invoice at a time and
 * answers with its bytes, so pdfkit's synchronous layout never runs on the event loop that serves requests.
 */
const parent = parentPort;
if (!parent) throw new Error('pdf-render-thread.ts runs only as a worker thread (pdf-render-pool.ts starts it)');
parent.on('message', async (job: { view: InvoicePdfView }) => {
  try {
    const pdf = await renderInvoicePdf(job.view);
    parent.postMessage({ pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) });
  } catch (error) {
    parent.postMessage({ error: (error as Error).message || String(error) });
  }
});
