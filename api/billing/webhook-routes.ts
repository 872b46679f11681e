// Payment provider webhooks: `POST /v1/billing/webhooks/{provider}` (no bearer; the provider's signature over the
// raw body is the authentication), and `receiveWebhook`, the one path a webhook takes (the route's and the
// `billing simulate` CLI's): verify, skip a redelivery, apply each notice, record the delivery.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import type { Kysely } from 'kysely';
import { HTTPException } from 'hono/http-exception';
import { applyNotice, loadSubscription } from '../../commands/billing/subscription-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { ProviderNotice } from '../../domain/billing/provider-events.js';
import { ForeignProviderNotice } from '../../domain/billing/subscription.js';
import { NotFound, ValidationError } from '../../domain/shared/errors.js';
import type { CheckoutTokens } from '../../infra/billing/checkout-token.js';
import {
  WebhookSignatureError,
  type IncomingWebhook,
  type PaymentProvider,
} from '../../infra/billing/provider.js';
import type { BillingCatalog } from '../../infra/billing/config.js';
import { SandboxPaymentProvider } from '../../infra/billing/sandbox-provider.js';
import { WebhookStore } from '../../infra/billing/webhook-store.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { WorkspacesTable } from '../../projections/read-models.js';
import type { RouteInstaller } from '../platform/app-env.js';
import type { AppEnv } from '../platform/app-env.js';
import { errorResponses } from '../platform/errors.js';
import { dataOf, jsonResponse } from '../platform/responses.js';
import { sandboxRoutes } from './sandbox-routes.js';

/** Paddle's notifications are a few kilobytes; anything far larger is not one. */
export const WEBHOOK_BODY_LIMIT_BYTES = 256 * 1024;

export interface WebhookReceiverDeps {
  store: WebhookStore;
  /** The providers whose webhooks this service takes (the configured one), by name. */
  providers: ReadonlyMap<string, PaymentProvider>;
  /** Applies one notice to the workspace's subscription (idempotent by the notice's event id). */
  applyNotice: (notice: ProviderNotice) => Promise<void>;
  logger?: Logger;
}

export interface WebhookReceipt {
  received: true;
  /** The event was applied by an earlier delivery; nothing was applied this time. */
  duplicate: boolean;
  /**
   * Its notices name a workspace bound to another provider subscription or customer, a workspace not bound yet
   * without a valid checkout token, or no workspace of this service: nothing was applied, the delivery is
   * recorded refused and answered 200 so the provider does not redeliver it.
   */
  ignored: boolean;
  eventId: string;
  eventType: string;
  /** The notices applied (0 for an event type the service does not act on, or a duplicate). */
  notices: number;
}

/** The provider's event id in a body, read without trusting it, for the record of a refused delivery. */
function claimedEvent(rawBody: string): { eventId: string | null; eventType: string | null } {
  try {
    const body = JSON.parse(rawBody) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : null);
    return { eventId: text(body.event_id), eventType: text(body.event_type) };
  } catch {
    return { eventId: null, eventType: null };
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 2000);

/**
 * Takes one webhook delivery: a bad signature is refused (400 `invalid_signature`, recorded, nothing applied);
 * an event applied before is a duplicate (recorded, nothing applied); otherwise each notice is applied, then the
 * delivery recorded as applied. A crash between applying and recording is safe: the redelivery applies the
 * notices again and the subscription ignores event ids it has applied. A notice that fails to apply records the
 * delivery as failed and answers the error, so the provider delivers it again.
 */
export async function receiveWebhook(
  deps: WebhookReceiverDeps,
  providerName: string,
  webhook: IncomingWebhook,
): Promise<WebhookReceipt> {
  const provider = deps.providers.get(providerName);
  if (!provider) throw new NotFound(`No payment provider "${providerName}" takes webhooks here`);
  let read: Awaited<ReturnType<PaymentProvider['readWebhook']>>;
  try {
    read = await provider.readWebhook(webhook);
  } catch (error) {
    if (!(error instanceof WebhookSignatureError) && !(error instanceof ValidationError)) throw error;
    const signatureOk = !(error instanceof WebhookSignatureError);
    const claimed = claimedEvent(webhook.rawBody);
    const recorded = await deps.store.recordRefused({
      provider: providerName,
      ...claimed,
      receivedAt: webhook.receivedAt,
      signatureOk,
      outcome: 'refused',
      error: error.message,
    });
    deps.logger?.warn(
      { provider: providerName, eventId: claimed.eventId, reason: error.message, recorded },
      'billing webhook refused',
    );
    throw signatureOk
      ? new ValidationError(error.message, 'invalid_webhook_body')
      : new ValidationError('Webhook signature is missing, wrong or too old', 'invalid_signature');
  }
  const { eventId, eventType, notices } = read;
  const record = {
    provider: providerName,
    eventId,
    eventType,
    receivedAt: webhook.receivedAt,
    signatureOk: true,
  };
  if (await deps.store.wasApplied(providerName, eventId)) {
    await deps.store.recordOther({ ...record, outcome: 'duplicate' });
    return { received: true, duplicate: true, ignored: false, eventId, eventType, notices: 0 };
  }
  const foreign: string[] = [];
  try {
    for (const notice of notices) {
      try {
        await deps.applyNotice(notice);
      } catch (error) {
        if (!(error instanceof ForeignProviderNotice)) throw error;
        foreign.push(error.message);
      }
    }
  } catch (error) {
    await deps.store
      .recordAccepted({ ...record, outcome: 'failed', error: errorText(error), noticeCount: notices.length })
      .catch((recordError: unknown) =>
        deps.logger?.error({ err: recordError }, 'recording a failed billing webhook failed'),
      );
    throw error;
  }
  if (foreign.length > 0 && foreign.length === notices.length) {
    // Not the workspace's own subscription: refused, changing nothing, and not worth a redelivery.
    const recorded = await deps.store.recordRefused({
      ...record,
      outcome: 'refused',
      error: `not bound: ${foreign.join('; ')}`.slice(0, 2000),
      noticeCount: notices.length,
    });
    deps.logger?.warn(
      { provider: providerName, eventId, eventType, reasons: foreign, recorded },
      'billing webhook not bound to the workspace it names; ignored',
    );
    return { received: true, duplicate: false, ignored: true, eventId, eventType, notices: 0 };
  }
  const first = await deps.store.recordAccepted({
    ...record,
    outcome: 'applied',
    noticeCount: notices.length,
  });
  if (!first) {
    // A concurrent delivery of the same event recorded it first; the subscription applied it once.
    await deps.store.recordOther({ ...record, outcome: 'duplicate' });
    return { received: true, duplicate: true, ignored: false, eventId, eventType, notices: 0 };
  }
  return { received: true, duplicate: false, ignored: false, eventId, eventType, notices: notices.length };
}

const WebhookReceived = z
  .object({
    received: z.literal(true),
    duplicate: z.boolean().openapi({ description: 'Applied by an earlier delivery; nothing applied now' }),
    ignored: z.boolean().openapi({
      description:
        'The notice names a workspace bound to another provider subscription or customer, a workspace not ' +
        'bound yet without a valid checkout token, or no workspace of this service: recorded, nothing applied',
    }),
  })
  .openapi('BillingWebhookReceived');

// A raw route, not an operation: public (no bearer token), authenticated by a signature over the raw body.
const receiveWebhookRoute = createRoute({
  method: 'post',
  path: '/v1/billing/webhooks/{provider}',
  operationId: 'receiveBillingWebhook',
  tags: ['billing'],
  summary: 'A payment provider notification (Paddle Billing, or the sandbox)',
  description:
    'Authenticated by the provider signature over the raw body (`Paddle-Signature: ts=…;h1=…`, HMAC-SHA256 of ' +
    '`ts:body`; the sandbox signs alike in `Sandbox-Signature`). Deduplicated by the event id: a redelivery ' +
    'answers `duplicate: true` and applies nothing. A bad signature answers 400 `invalid_signature` and is recorded. ' +
    'A notice naming a workspace bound to another provider subscription or customer, a workspace not bound yet ' +
    "without a valid `checkoutToken` (GET ORG/billing/checkout-data's) in its custom data, or no workspace of " +
    'this service is recorded refused, applies nothing and answers `ignored: true` (200, so the provider does ' +
    'not redeliver it).',
  security: [],
  request: {
    params: z.object({
      provider: z.string().openapi({ param: { name: 'provider', in: 'path' }, example: 'paddle' }),
    }),
  },
  responses: {
    200: jsonResponse(dataOf(WebhookReceived), 'Received (applied now, or a duplicate)'),
    ...errorResponses(400, 404, 413),
  },
});

export function webhookRoutes(deps: WebhookReceiverDeps) {
  const limit = bodyLimit({
    maxSize: WEBHOOK_BODY_LIMIT_BYTES,
    onError: () => {
      throw new HTTPException(413, { message: `Webhook body exceeds ${WEBHOOK_BODY_LIMIT_BYTES} bytes` });
    },
  });
  return (app: OpenAPIHono<AppEnv>) => {
    app.use('/v1/billing/webhooks/*', limit);
    app.openapi(receiveWebhookRoute, async (c) => {
      const { provider } = c.req.valid('param');
      const headers: Record<string, string> = {};
      c.req.raw.headers.forEach((value, name) => {
        headers[name.toLowerCase()] = value;
      });
      const rawBody = await c.req.text();
      const receipt = await receiveWebhook(deps, provider, { rawBody, headers, receivedAt: new Date() });
      if (!receipt.duplicate && !receipt.ignored)
        c.get('logger').info(
          { provider, eventId: receipt.eventId, eventType: receipt.eventType, notices: receipt.notices },
          'billing webhook applied',
        );
      return c.json(
        { data: { received: true as const, duplicate: receipt.duplicate, ignored: receipt.ignored } },
        200,
      );
    });
  };
}

export interface ProviderServices {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database that has run the migrations
  db: Kysely<any>;
  commands: CommandDeps;
  catalog: BillingCatalog;
  now: () => Date;
  /** The configured provider: the only one whose webhooks are taken (another provider's path answers 404). */
  provider: PaymentProvider;
  /** Checks the checkout token a notice must carry to bind a workspace not bound yet. */
  checkoutTokens: CheckoutTokens;
  logger?: Logger;
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The receiving path of this runtime (the route's, and the CLI's `billing simulate`). A notice is applied only to
 * a workspace of this service, and only when it is the workspace's own (all refused as ForeignProviderNotice:
 * recorded refused, answered 200 ignored, never redelivered):
 * - a notice naming no workspace of this service is refused, so custom data cannot create subscription streams
 *   for arbitrary ids;
 * - a workspace not bound to a provider customer or subscription yet takes a notice only when its custom data
 *   carries a checkout token the service issued for that workspace (GET ORG/billing/checkout-data), unexpired
 *   at the provider's time of the notice: anyone can pay a checkout naming any workspace id, only its billing
 *   managers get its token;
 * - a bound workspace takes only notices naming its ids (the subscription decider).
 * A notice checked here against an unbound workspace cannot race a binding into being: a binding is never undone,
 * and the decider checks the ids again against the state it appends to.
 */
export function webhookReceiverOf(services: ProviderServices): WebhookReceiverDeps {
  const subscriptions = { commands: services.commands, catalog: services.catalog, now: services.now };
  const workspaces = services.db as Kysely<{ workspaces: WorkspacesTable }>;
  return {
    store: new WebhookStore(services.db),
    providers: new Map([[services.provider.name, services.provider]]),
    applyNotice: async (notice) => {
      const known =
        uuid.test(notice.orgId) &&
        (await workspaces
          .selectFrom('workspaces')
          .select('id')
          .where('id', '=', notice.orgId)
          .executeTakeFirst());
      if (!known)
        throw new ForeignProviderNotice(
          `The notice names no workspace of this service (orgId ${JSON.stringify(notice.orgId.slice(0, 64))})`,
        );
      const { state } = await loadSubscription(subscriptions, notice.orgId);
      const unbound = state.providerCustomerId === null && state.providerSubscriptionId === null;
      if (
        unbound &&
        !services.checkoutTokens.valid(notice.checkoutToken, notice.orgId, new Date(notice.occurredAt))
      )
        throw new ForeignProviderNotice(
          `The workspace is not bound to a provider subscription yet and the notice carries no valid checkout ` +
            `token for it (${notice.checkoutToken ? 'invalid, expired or for another workspace' : 'none'})`,
        );
      await applyNotice(subscriptions, notice);
    },
    ...(services.logger ? { logger: services.logger } : {}),
  };
}

/** The webhook route, and the sandbox's pages when the sandbox is the provider. */
export function providerRoutes(services: ProviderServices): RouteInstaller[] {
  return [
    webhookRoutes(webhookReceiverOf(services)),
    ...(services.provider instanceof SandboxPaymentProvider ? [sandboxRoutes(services.provider)] : []),
  ];
}
