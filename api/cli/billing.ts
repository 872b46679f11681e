// `billing simulate <paid|payment-failed|past-due|recovered|period-end> --workspace <slug>`: the sandbox payment
// provider's payments, driven by an operator. Each move is the webhooks the sandbox would send (a transaction, a
// subscription snapshot), signed and taken by the same path as POST /v1/billing/webhooks/sandbox. `paid` is a
// checkout as the web app opens it: its custom data carries the workspace id and a checkout token issued as
// GET ORG/billing/checkout-data issues it (without one, a workspace not subscribed yet would not be bound).
import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import {
  endPeriod,
  ensureStarted,
  loadSubscription,
  restrictAccess,
  systemMetadata,
  type SubscriptionCommandDeps,
} from '../../commands/billing/subscription-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { ProviderNotice } from '../../domain/billing/provider-events.js';
import { accessOf, addInterval, type SubscriptionState } from '../../domain/billing/subscription.js';
import { AppError } from '../../domain/shared/errors.js';
import {
  BillingCatalog,
  defaultBillingConfigFile,
  loadBillingConfig,
  type Plan,
} from '../../infra/billing/config.js';
import { CheckoutTokens } from '../../infra/billing/checkout-token.js';
import { paymentProviderFromEnv } from '../../infra/billing/provider-factory.js';
import { SandboxPaymentProvider } from '../../infra/billing/sandbox-provider.js';
import type { BillingEnv } from '../../infra/billing/settings.js';
import type { TokenCipher } from '../../infra/crypto/token-cipher.js';
import type { WorkspacesTable } from '../../projections/read-models.js';
import { receiveWebhook, webhookReceiverOf, type WebhookReceiverDeps } from '../billing/webhook-routes.js';
import { BILLING_USAGE } from './usage.js';
export { BILLING_USAGE } from './usage.js';

const moves = ['paid', 'payment-failed', 'past-due', 'recovered', 'period-end'] as const;
type Move = (typeof moves)[number];

export interface BillingCliDeps {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the service's database (read models, stores)
  db: Kysely<any>;
  commands: CommandDeps;
  env: Pick<
    BillingEnv,
    | 'BILLING_CONFIG_FILE'
    | 'BILLING_PROVIDER'
    | 'PADDLE_API_KEY'
    | 'PADDLE_WEBHOOK_SECRET'
    | 'PADDLE_ENVIRONMENT'
    | 'PADDLE_API_URL'
  >;
  publicBaseUrl: string;
  /** The service's token cipher: checkout tokens are sealed with it (as the server's checkout-data does). */
  tokenCipher: TokenCipher;
  out: (line: string) => void;
  /** The billing clock (tests); the service's is the wall clock. */
  now?: () => Date;
}

interface Simulation {
  sandbox: SandboxPaymentProvider;
  receiver: WebhookReceiverDeps;
  subscriptions: SubscriptionCommandDeps;
  catalog: BillingCatalog;
  orgId: string;
  /** The checkout token of this simulation's checkout (the `paid` move's custom data). */
  checkoutToken: string;
  out: (line: string) => void;
}

const isMove = (value: string | undefined): value is Move =>
  value !== undefined && (moves as readonly string[]).includes(value);

/** The plan the workspace is on (or the trial's), with a price the sandbox can charge. */
function planOf(catalog: BillingCatalog, state: SubscriptionState): Plan {
  const current = catalog.plan(state.planKey ?? catalog.config.trialPlanKey);
  if (current?.providerPriceId) return current;
  const priced = catalog.config.plans.find((plan) => plan.providerPriceId !== null);
  if (!priced) throw new Error('No plan in the billing configuration has a providerPriceId to simulate with');
  return priced;
}

function priceOf(plan: Plan, state: SubscriptionState): { priceId: string; amount: number } {
  const annual = state.billingInterval === 'year' && plan.providerPriceIdAnnual !== null;
  return annual
    ? { priceId: plan.providerPriceIdAnnual!, amount: plan.annualPrice ?? 0 }
    : { priceId: plan.providerPriceId!, amount: plan.monthlyPrice ?? 0 };
}

/** Sends one notice as a signed sandbox webhook through the receiving path; prints what became of it. */
async function deliver(sim: Simulation, notice: ProviderNotice): Promise<void> {
  const receipt = await receiveWebhook(sim.receiver, 'sandbox', await sim.sandbox.webhookFor(notice));
  const what =
    notice.kind === 'transaction'
      ? `transaction ${notice.transactionId} (${notice.type}, ${notice.status}, ${notice.amount} ${notice.currency})`
      : `subscription snapshot (${notice.status})`;
  const outcome = receipt.duplicate
    ? 'duplicate, nothing applied'
    : receipt.ignored
      ? 'ignored (not bound to this workspace), nothing applied'
      : 'applied';
  sim.out(`  ${what}: ${outcome}`);
  if (notice.kind === 'transaction' && notice.invoiceUrl) sim.out(`  invoice: ${notice.invoiceUrl}`);
}

async function transaction(
  sim: Simulation,
  state: SubscriptionState,
  type: 'subscription' | 'renewal',
  status: 'completed' | 'failed',
  checkoutToken?: string,
): Promise<void> {
  const plan = planOf(sim.catalog, state);
  const { priceId, amount } = priceOf(plan, state);
  await deliver(
    sim,
    await sim.sandbox.transactionNotice({
      orgId: sim.orgId,
      type,
      status,
      amount,
      currency: sim.catalog.config.currency,
      priceId,
      description: `${plan.name} (${state.billingInterval === 'year' ? 'annual' : 'monthly'})`,
      ...(checkoutToken ? { checkoutToken } : {}),
    }),
  );
}

async function snapshot(
  sim: Simulation,
  state: SubscriptionState,
  status: 'active' | 'past_due',
  period: { start: string; end: string },
  checkoutToken?: string,
): Promise<void> {
  const { priceId } = priceOf(planOf(sim.catalog, state), state);
  await deliver(
    sim,
    sim.sandbox.subscriptionNotice({
      orgId: sim.orgId,
      status,
      priceId,
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      ...(checkoutToken ? { checkoutToken } : {}),
    }),
  );
}

const load = async (sim: Simulation) => (await loadSubscription(sim.subscriptions, sim.orgId)).state;

const isPaid = (state: SubscriptionState) =>
  state.status === 'active' || state.status === 'pausing' || state.status === 'past_due';

function currentPeriod(state: SubscriptionState, now: Date): { start: string; end: string } {
  const start = state.currentPeriodStart ?? now.toISOString();
  return { start, end: state.currentPeriodEnd ?? addInterval(start, state.billingInterval) };
}

async function paymentFailed(sim: Simulation, state: SubscriptionState, now: Date): Promise<boolean> {
  if (!isPaid(state)) {
    sim.out(
      `  the subscription is ${state.status}: a payment can fail only on a paid one (simulate paid first)`,
    );
    return false;
  }
  await transaction(sim, state, 'renewal', 'failed');
  await snapshot(sim, await load(sim), 'past_due', currentPeriod(state, now));
  return true;
}

async function simulate(sim: Simulation, move: Move, now: Date): Promise<boolean> {
  const state = await load(sim);
  switch (move) {
    case 'paid': {
      // A checkout completed: the first payment, then the provider's subscription with a new period, both
      // carrying the checkout's custom data (the workspace id and its checkout token).
      const start = now.toISOString();
      const interval = state.billingInterval;
      await transaction(sim, state, 'subscription', 'completed', sim.checkoutToken);
      await snapshot(
        sim,
        await load(sim),
        'active',
        { start, end: addInterval(start, interval) },
        sim.checkoutToken,
      );
      return true;
    }
    case 'payment-failed':
      return paymentFailed(sim, state, now);
    case 'past-due': {
      if (state.status !== 'past_due' && !(await paymentFailed(sim, state, now))) return false;
      // The grace period is over (at once, rather than at graceEndsAt): the workspace becomes read-only.
      const outcome = await restrictAccess(sim.subscriptions, sim.orgId, { force: true });
      sim.out(
        `  grace period over: ${outcome.events.length > 0 ? 'access restricted' : 'already restricted'}`,
      );
      return true;
    }
    case 'recovered': {
      if (state.status !== 'past_due') {
        sim.out(`  the subscription is ${state.status}, not past due: nothing to recover`);
        return false;
      }
      await transaction(sim, state, 'renewal', 'completed');
      await snapshot(sim, await load(sim), 'active', currentPeriod(state, now));
      return true;
    }
    case 'period-end': {
      const outcome = await endPeriod(sim.subscriptions, sim.orgId, systemMetadata(sim.orgId, now));
      const types = outcome.events.map((event) => event.type);
      sim.out(`  period end: ${types.length > 0 ? types.join(', ') : 'nothing to do'}`);
      if (types.includes('SubscriptionRenewed'))
        await transaction(sim, outcome.state, 'renewal', 'completed');
      return true;
    }
  }
}

export async function billingCommand(args: string[], deps: BillingCliDeps): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { workspace: { type: 'string' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    deps.out(`${error instanceof Error ? error.message : String(error)}\nusage: ${BILLING_USAGE}`);
    return 2;
  }
  const [sub, move, ...extra] = parsed.positionals;
  const slug = parsed.values.workspace?.trim();
  if (sub !== 'simulate' || !isMove(move) || extra.length > 0 || !slug) {
    deps.out(`usage: ${BILLING_USAGE}`);
    return 2;
  }
  const catalog = new BillingCatalog(
    loadBillingConfig(deps.env.BILLING_CONFIG_FILE ?? defaultBillingConfigFile),
  );
  const now = deps.now ?? (() => new Date());
  const provider = paymentProviderFromEnv(deps.env, {
    db: deps.db,
    publicBaseUrl: deps.publicBaseUrl,
    catalog,
    now,
  });
  if (!(provider instanceof SandboxPaymentProvider)) {
    deps.out(`billing simulate drives the sandbox provider; BILLING_PROVIDER is ${provider.name}`);
    return 2;
  }
  let workspace: Pick<WorkspacesTable, 'id' | 'slug' | 'status'> | undefined;
  try {
    workspace = await (deps.db as Kysely<{ workspaces: WorkspacesTable }>)
      .selectFrom('workspaces')
      .select(['id', 'slug', 'status'])
      .where('slug', '=', slug.toLowerCase())
      .executeTakeFirst();
  } catch (error) {
    // 42P01: the read models have not been built on this database (the service has never run on it).
    if ((error as { code?: string }).code !== '42P01') throw error;
    deps.out('the workspaces read model does not exist yet: start the service once on this database');
    return 2;
  }
  if (!workspace || workspace.status === 'deleted') {
    deps.out(`no workspace with slug "${slug}"`);
    return 2;
  }
  const subscriptions = { commands: deps.commands, catalog, now };
  const checkoutTokens = new CheckoutTokens(deps.tokenCipher);
  const sim: Simulation = {
    sandbox: provider,
    receiver: webhookReceiverOf({
      db: deps.db,
      commands: deps.commands,
      catalog,
      now,
      provider,
      checkoutTokens,
    }),
    subscriptions,
    catalog,
    orgId: workspace.id,
    checkoutToken: checkoutTokens.issue(workspace.id, now()).token,
    out: deps.out,
  };
  deps.out(`workspace ${workspace.slug} (${workspace.id}): simulate ${move}`);
  try {
    await ensureStarted(subscriptions, workspace.id);
    const done = await simulate(sim, move, now());
    const state = await load(sim);
    const access = accessOf(state, now());
    deps.out(
      `status: ${state.status}, access: ${access.accessState}${access.usable ? '' : ' (paid actions refused)'}, plan: ${state.planKey ?? '-'}`,
    );
    if (state.currentPeriodStart && state.currentPeriodEnd)
      deps.out(`period: ${state.currentPeriodStart} → ${state.currentPeriodEnd}`);
    if (state.graceEndsAt && state.status === 'past_due') deps.out(`grace ends: ${state.graceEndsAt}`);
    return done ? 0 : 1;
  } catch (error) {
    if (error instanceof AppError) {
      deps.out(`refused: ${error.status}${error.code ? ` ${error.code}` : ''} ${error.message}`);
      return 1;
    }
    throw error;
  }
}
