// What the research use cases share (issue 31, part 3): their dependencies, the workspace's terms (the strategy's
// pillars and their keywords, the newsjacking keywords), a paid X read (credits reserved before X is asked,
// charged after for what it returned, released when it fails) and the failures that become warnings.
import type { Kysely } from 'kysely';
import { PaymentRequired, AppError } from '../../domain/shared/errors.js';
import type { Caller } from '../../domain/shared/caller.js';
import { uniqueTerms } from '../../domain/research/sources.js';
import type { FeedReaderDeps } from '../../infra/research/feed-reader.js';
import {
  ConnectorError,
  type AccountRef,
  type CallContext,
  type ConnectorRegistry,
} from '../../infra/connectors/port.js';
import type { CreditsService } from '../billing/credits.js';
import type { CommandDeps } from '../shared/command-handler.js';
import { newId } from '../shared/ids.js';
import type { WriteDeps, WriteRequest } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';
import { strategyGroundingOf } from '../strategy/strategy-use-cases.js';
import { noMedia } from '../engagement/inbox.js';
import { newsjackingSettingsOf } from './newsjacking-settings.js';

export interface ResearchDeps extends WriteDeps {
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
  credits: Pick<CreditsService, 'withCredits'>;
  /** Credits per X post returned (`x_post_read`). */
  xPostCost: number;
  /** Credits per X trends read (`x_trends_read`). */
  xTrendsCost: number;
  /** The slice's own tables (research_trends, research_feed_reads). */
  db: Kysely<unknown>;
  feeds: FeedReaderDeps;
}

/** The credit cost keys (config/billing.json). */
export const X_TRENDS_READ = 'x_trends_read';

/** The workspace's terms: pillar names and keywords of the shown strategy, then the newsjacking keywords. */
export async function workspaceTerms(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  now: string,
): Promise<{ pillars: string[]; terms: string[] }> {
  const [grounding, settings] = await Promise.all([
    strategyGroundingOf(deps, orgId, now),
    newsjackingSettingsOf(deps, orgId),
  ]);
  const pillars = uniqueTerms(grounding.pillars.map((p) => p.name));
  return {
    pillars,
    terms: uniqueTerms([
      ...pillars,
      ...grounding.pillars.flatMap((p) => p.keywords),
      ...settings.settings.keywords,
    ]),
  };
}

/** The workspace's X account, or why there is none (the answer then comes from the curated set). */
export async function xAccountOf(
  deps: Pick<ResearchDeps, 'accounts'>,
  orgId: string,
): Promise<{ ok: true; account: AccountRef } | { ok: false; message: string }> {
  const resolved = await deps.accounts.resolve({ orgId, platform: 'x', socialAccountId: null });
  return resolved.ok ? resolved : { ok: false, message: resolved.message };
}

/** Calls X with the account's tokens (refreshed when due). */
export function onX<T>(
  deps: Pick<ResearchDeps, 'accounts'>,
  account: AccountRef,
  call: (context: CallContext) => Promise<T>,
): Promise<T> {
  return deps.accounts.withTokens(account, (tokens) => call({ account, tokens, fetchMedia: noMedia }));
}

/**
 * A paid X read: `most` units of `actionKey` reserved before the call, `used(result)` units charged after it,
 * nothing when it throws. Idempotent by the request's Idempotency-Key: a retry is charged once.
 */
export async function paidXRead<T>(
  deps: Pick<ResearchDeps, 'credits'>,
  caller: Caller,
  request: WriteRequest,
  options: {
    orgId: string;
    seed: string | undefined;
    label: string;
    actionKey: string;
    unitCost: number;
    most: number;
    feature: string;
    metadata: Record<string, unknown>;
    used: (result: T) => number;
  },
  read: () => Promise<T>,
): Promise<{ result: T; creditsUsed: number }> {
  const { result, charge } = await deps.credits.withCredits(
    {
      orgId: options.orgId,
      key: `${options.label}:${newId(options.seed ? [options.seed, request.idempotency?.requestHash ?? '', options.label] : undefined)}`,
      actionKey: options.actionKey,
      quantity: options.most,
      feature: options.feature,
      provider: 'x',
      metadata: options.metadata,
    },
    read,
    {
      actual: (r) => {
        const n = options.used(r);
        return { credits: n * options.unitCost, quantity: n, metadata: { ...options.metadata, returned: n } };
      },
      context: {
        actor: caller.kind === 'assistant' ? `assistant:${caller.clientId}` : caller.userId,
        userId: caller.userId,
        correlationId: request.correlationId,
      },
    },
  );
  return { result, creditsUsed: charge.replayed ? 0 : charge.creditsUsed };
}

/**
 * A failed X read as the warning the answer gives (the read charged nothing); credits that ran out are not a
 * warning but the answer (402).
 */
export function xWarning(label: string, error: unknown): string {
  if (error instanceof PaymentRequired) throw error;
  if (error instanceof ConnectorError) {
    if (error.kind === 'rate_limited')
      return `${label}: rate limited by X${
        error.details.retryAfterMs ? `; try again in ${Math.ceil(error.details.retryAfterMs / 1000)} s` : ''
      }; nothing was charged`;
    if (error.kind === 'auth') return `${label}: the X account needs reconnecting; nothing was charged`;
    return `${label}: ${error.message}; nothing was charged`;
  }
  if (error instanceof AppError) return `${label}: ${error.message}; nothing was charged`;
  throw error;
}

export const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** A search term in X's syntax: a phrase in quotes. */
export const quotedTerm = (term: string) => (/\s/.test(term) ? `"${term.replace(/"/g, '')}"` : term);
