// The sandbox payment provider's pages: an invoice per completed sandbox transaction and the payment-method
// update page, at the local URLs the sandbox hands out. Each URL carries a token (HMAC with the sandbox secret),
// so a transaction id alone does not open it. Served only when the sandbox is the configured provider.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { NotFound } from '../../domain/shared/errors.js';
import { SANDBOX_PAGES_PATH, type SandboxPaymentProvider } from '../../infra/billing/sandbox-provider.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { escapeHtml, pageContentSecurityPolicy, renderPage } from '../shared/html-page.js';

const pageParams = {
  params: z.object({
    transactionId: z
      .string()
      .regex(/^txn_sbx_[a-z0-9]+$/)
      .openapi({ param: { name: 'transactionId', in: 'path' } }),
  }),
  query: z.object({ token: z.string().max(100).optional() }),
};
const htmlPage = { description: 'HTML page', content: { 'text/html': { schema: z.string() } } };

// Raw routes, not operations: public pages (the token is in the URL) that answer HTML, not `{ data }` JSON.
const invoicePage = createRoute({
  method: 'get',
  path: `${SANDBOX_PAGES_PATH}/invoices/{transactionId}`,
  operationId: 'sandboxInvoicePage',
  tags: ['billing'],
  summary: 'Sandbox provider: the invoice of a completed sandbox transaction (the link its invoices carry)',
  security: [],
  request: pageParams,
  responses: { 200: htmlPage, ...errorResponses(400, 404) },
});

const paymentMethodPage = createRoute({
  method: 'get',
  path: `${SANDBOX_PAGES_PATH}/payment-method/{transactionId}`,
  operationId: 'sandboxPaymentMethodPage',
  tags: ['billing'],
  summary: 'Sandbox provider: the payment-method update page (update-payment answers its link)',
  security: [],
  request: pageParams,
  responses: { 200: htmlPage, ...errorResponses(400, 404) },
});

function money(amount: number, currency: string): string {
  return `${(amount / 100).toFixed(2)} ${currency}`;
}

export function sandboxRoutes(sandbox: SandboxPaymentProvider) {
  return (app: OpenAPIHono<AppEnv>) => {
    app.openapi(invoicePage, async (c) => {
      const { transactionId } = c.req.valid('param');
      const { token } = c.req.valid('query');
      const row = await sandbox.transaction(transactionId);
      if (
        !row ||
        row.status !== 'completed' ||
        !(await sandbox.pageTokenValid('invoices', transactionId, token))
      )
        throw new NotFound('No such invoice');
      const amount = Number(row.amount);
      const body = `<h1>Invoice ${escapeHtml(row.invoice_number ?? transactionId)}</h1>
<p class="hint">Sandbox payment provider: no money was taken.</p>
<dl>
<dt>Transaction</dt><dd><code>${escapeHtml(row.transaction_id)}</code></dd>
<dt>Workspace</dt><dd><code>${escapeHtml(row.org_id)}</code></dd>
<dt>Item</dt><dd>${escapeHtml(row.description)}</dd>
<dt>Total</dt><dd>${escapeHtml(money(amount, row.currency))}</dd>
<dt>Paid</dt><dd>${escapeHtml(row.paid_at ?? '')}</dd>
</dl>`;
      c.header('Content-Security-Policy', pageContentSecurityPolicy());
      return c.html(renderPage({ title: `Invoice ${row.invoice_number ?? transactionId}`, body }), 200);
    });
    app.openapi(paymentMethodPage, async (c) => {
      const { transactionId } = c.req.valid('param');
      const { token } = c.req.valid('query');
      const row = await sandbox.transaction(transactionId);
      if (
        !row ||
        row.type !== 'payment_method_update' ||
        !(await sandbox.pageTokenValid('payment-method', transactionId, token))
      )
        throw new NotFound('No such payment-method update');
      const body = `<h1>Update payment method</h1>
<p>Sandbox payment provider: there is no card to enter. The sandbox's card on file always pays; use
<code>npm run cli -- billing simulate recovered --workspace &lt;slug&gt;</code> to settle an overdue workspace.</p>
<p class="hint">Transaction <code>${escapeHtml(transactionId)}</code></p>`;
      c.header('Content-Security-Policy', pageContentSecurityPolicy());
      return c.html(renderPage({ title: 'Update payment method', body }), 200);
    });
  };
}
