import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { InvoicePdfFile } from './invoice-pdf.js';

/** The OpenAPI side of a route answering a PDF (an invoice's, a credit note's). */
export const PDF_ROUTE_SCHEMA = {
  produces: ['application/pdf'],
  response: { 200: z.any().describe('the PDF document (application/pdf)') },
};

/** Answers the PDF, shown in the browser (`inline`) under its file name. */
export function sendPdf(reply: FastifyReply, file: InvoicePdfFile) {
  return reply.type('application/pdf').header('content-disposition', `inline; filename="${file.filename}"`).send(file.content);
}
