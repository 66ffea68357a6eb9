/**
 * Figures 5a/5b: the activation preview of a Draft customer with 3 Draft
 * subscriptions, one request at a time, beside the GET of the same customers
 * measured the same way right after.
 */
import type { BenchAccount } from '../fixtures.js';
import { SETTINGS, expectOk, latencyRow, rotation, sequentialHttp } from '../harness.js';
import type { SequentialHttpResult } from '../load.js';
import { integer } from '../report.js';
import type { RunningServer } from '../server-process.js';

export interface PreviewFigures {
  preview: SequentialHttpResult;
  /** The baseline: GET /v1/customers/{id} of the same customers, one at a time. */
  previewGet: SequentialHttpResult;
  /** What the first preview computed (invoices, first total). */
  previewShape: string;
}

export async function benchActivationPreview(
  db: string,
  app: RunningServer,
  account: BenchAccount,
  customers: number[],
  postgresDatabase?: string,
): Promise<PreviewFigures> {
  const headers = { authorization: account.authorization, 'content-type': 'application/json' };
  const previewPath = '/v1/customeractivation?preview=true';
  const first = await expectOk(app, 'POST', previewPath, headers, JSON.stringify({ customerId: customers[0] }));
  type Preview = { total?: number; draftCharges?: unknown[] };
  const shape = JSON.parse(first.body) as { status?: string; invoicePreview?: Preview | null; additionalInvoicesForPreview?: Preview[] };
  const invoices = [...(shape.invoicePreview ? [shape.invoicePreview] : []), ...(shape.additionalInvoicesForPreview ?? [])];
  const charges = invoices.reduce((n, invoice) => n + (invoice.draftCharges?.length ?? 0), 0);
  const previewShape = `${invoices.length} invoice${invoices.length === 1 ? '' : 's'} (${charges} charges) previewed, first total ${shape.invoicePreview?.total ?? 'n/a'}; customer still ${shape.status ?? '?'}`;

  const nextPreview = rotation(customers);
  const preview = await sequentialHttp(
    `${db} activation preview (3 Draft subscriptions)`,
    app,
    SETTINGS.previewSeconds,
    { method: 'POST', path: previewPath, body: () => JSON.stringify({ customerId: nextPreview() }), headers },
    postgresDatabase,
  );
  latencyRow(
    `${db} activation preview (3 Draft subscriptions), HTTP`,
    preview,
    `${customers.length} customers in rotation; ${previewShape}; non-2xx ${integer(preview.non2xx)}`,
  );

  const nextGet = rotation(customers);
  const previewGet = await sequentialHttp(
    `${db} GET /v1/customers/{id}, one at a time`,
    app,
    SETTINGS.previewSeconds,
    { method: 'GET', path: () => `/v1/customers/${nextGet()}`, headers: { authorization: account.authorization } },
    postgresDatabase,
  );
  latencyRow(
    `${db} GET /v1/customers/{id}, one at a time (preview baseline)`,
    previewGet,
    `the same ${customers.length} customers; non-2xx ${integer(previewGet.non2xx)}`,
  );
  return { preview, previewGet, previewShape };
}
