// Runs one publishing job: looks at the post as its stream has it now, and claims and makes an attempt, checks
// an attempt whose worker vanished, or polls a platform still processing. Jobs are hints; the stream decides.
import type { AccountCalls } from '../../commands/social-accounts/account-access.js';
import { randomUUID } from 'node:crypto';
import {
  publishWork,
  type ActivePostGroup,
  type PostState,
  type PublishFailureReason,
  type PublishOutcomeRecord,
} from '../../domain/post-groups/post-group.js';
import { Conflict, NotFound } from '../../domain/shared/errors.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import { loadPostGroup } from '../../commands/post-groups/post-group-commands.js';
import { recordPublishOutcome, startPublishAttempt } from '../../commands/publishing/publish-commands.js';
import {
  ConnectorError,
  type AccountRef,
  type CallContext,
  type ConnectorRegistry,
  type MediaFetcher,
  type StatusCheck,
  type TokenSet,
} from '../../infra/connectors/port.js';
import { mediaScope } from '../../infra/connectors/media-file.js';
import { approvedMediaFetcher } from './media-fetcher.js';
import type { PublishMetrics } from '../../infra/metrics/metrics.js';
import type { Logger } from '../../infra/logging/logger.js';

/** The social accounts the pipeline publishes with (commands/social-accounts AccountAccess implements it). */
export type PublishingAccounts = AccountCalls;

export interface PublishingSettings {
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  callTimeoutMs: number;
  staleAttemptMs: number;
  pollIntervalMs: number;
  pendingTimeoutMs: number;
}

export interface PublishJob {
  orgId: string;
  groupId: string;
  postId: string;
}

/** A job with the group as it was read for it (the claim appends with that revision). */
type LoadedJob = PublishJob & { group: ActivePostGroup; revision: number };

export type JobResult =
  | 'published'
  | 'awaiting_platform'
  | 'retry_scheduled'
  | 'failed'
  | 'left_open'
  | 'not_due'
  | 'nothing_to_do'
  | 'claimed_elsewhere';

export interface PublisherOptions {
  commands: CommandDeps;
  connectors: ConnectorRegistry;
  accounts: PublishingAccounts;
  fetchMedia: MediaFetcher;
  settings: PublishingSettings;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
  /** Counts each job's outcome per platform (`/metrics`). */
  metrics?: PublishMetrics;
  now?: () => Date;
  random?: () => number;
  /** Test seam: runs right before and right after the platform call (crash tests kill the process there). */
  hooks?: { beforeCall?: (job: PublishJob) => Promise<void>; afterCall?: (job: PublishJob) => Promise<void> };
}

/**
 * Delay before attempt `attempt + 1`: doubling from the base, capped, with "equal jitter" (half fixed, half
 * random), so retries spread out but still grow with every failure.
 */
export function retryDelayMs(
  attempt: number,
  settings: Pick<PublishingSettings, 'retryBaseMs' | 'retryMaxMs'>,
  random: () => number,
): number {
  const ceiling = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export class Publisher {
  private readonly now: () => Date;
  private readonly random: () => number;

  constructor(private readonly options: PublisherOptions) {
    this.now = options.now ?? (() => new Date());
    this.random = options.random ?? Math.random;
  }

  async run(job: PublishJob): Promise<JobResult> {
    let loaded;
    try {
      loaded = await loadPostGroup(this.options.commands, job.orgId, job.groupId);
    } catch (error) {
      if (error instanceof NotFound) return 'nothing_to_do';
      throw error;
    }
    const post = loaded.group.posts.find((p) => p.id === job.postId);
    const work = post ? publishWork(post) : null;
    if (!post || !work) return 'nothing_to_do';
    const now = this.now();
    const due =
      Date.parse(work.dueAt) + (work.action === 'reconcile' ? this.options.settings.staleAttemptMs : 0);
    if (due > now.getTime()) return 'not_due';
    const context: LoadedJob = { ...job, group: loaded.group, revision: loaded.revision };
    const result =
      work.action === 'publish'
        ? await this.attempt(context, post)
        : work.action === 'reconcile'
          ? await this.reconcile(context, post)
          : await this.poll(context, post);
    this.options.metrics?.publishOutcome(post.platform, result);
    // Due: the time it was scheduled for; a post published now (no such time) was due when it was asked for.
    if (result === 'published')
      this.options.metrics?.publishDelay(
        post.platform,
        (this.now().getTime() - Date.parse(post.scheduledForUtc ?? work.dueAt)) / 1000,
      );
    return result;
  }

  /** A platform call, timed by platform and operation (`platform_call_duration_seconds`). */
  private async timed<T>(platform: string, operation: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let outcome: 'ok' | 'error' = 'error';
    try {
      const result = await call();
      outcome = 'ok';
      return result;
    } finally {
      this.options.metrics?.platformCall(platform, operation, outcome, (performance.now() - started) / 1000);
    }
  }

  private async attempt(job: LoadedJob, post: PostState): Promise<JobResult> {
    const { accounts, commands, connectors, settings, logger } = this.options;
    const resolved = await this.accountOf(job, post);
    let claim;
    try {
      claim = await startPublishAttempt(
        commands,
        { ...job, socialAccountId: resolved.ok ? resolved.account.id : post.socialAccountId },
        this.now(),
        undefined,
        { group: job.group, revision: job.revision },
      );
    } catch (error) {
      if (error instanceof Conflict) return 'claimed_elsewhere';
      throw error;
    }
    const attempt = claim.attempt;
    // The outcome is appended on the state the claim left, without reading the stream again.
    const ref = { ...job, attempt, loaded: { group: claim.group, revision: claim.revision } };
    if (!resolved.ok) {
      // Nothing was sent: a post without a usable account fails at once, keeping its approval for later.
      return this.record(ref, failedForGood('account', resolved.message));
    }
    const claimed = claim.group.posts.find((p) => p.id === job.postId)!;
    const attemptStartedAt = claimed.lastAttemptAt!;
    const connector = connectors.get(post.platform);
    await this.options.hooks?.beforeCall?.(job);
    // Media files the call spools are removed once it is over, whatever its outcome.
    const media = mediaScope(this.options.fetchMedia);
    let outcome;
    try {
      // The approved media's bytes are checked against the hashes the approval covers before any call.
      const fetchMedia = await approvedMediaFetcher(media.fetchMedia, claimed.media, resolved.account.orgId);
      outcome = await accounts.withTokens(resolved.account, (tokens) =>
        this.timed(post.platform, 'publish', () =>
          connector.publish(this.context(resolved.account, tokens, fetchMedia), {
            postId: post.id,
            idempotencyKey: claim.idempotencyKey,
            groupTitle: claim.group.title,
            contentText: claimed.contentText,
            media: claimed.media,
            platformPayload: claimed.platformPayload,
            attemptStartedAt,
          }),
        ),
      );
    } catch (error) {
      await this.options.hooks?.afterCall?.(job);
      const failure = asConnectorError(error);
      logger.warn(
        { postId: post.id, attempt, platform: post.platform, kind: failure.kind, error: failure.message },
        'publish attempt failed',
      );
      if (failure.kind === 'unknown_outcome') {
        // Sent, but no answer: ask the platform before anything else, never send again blindly.
        return this.settleUnknown(
          ref,
          resolved.account,
          claimed,
          claim.idempotencyKey,
          attemptStartedAt,
          failure,
        );
      }
      return this.record(ref, this.failure(attempt, failure));
    } finally {
      await media.dispose();
    }
    await this.options.hooks?.afterCall?.(job);
    if (outcome.kind === 'published')
      return this.record(ref, { kind: 'published', externalId: outcome.externalId, url: outcome.url });
    return this.record(ref, {
      kind: 'pending',
      reference: outcome.reference,
      nextCheckAt: this.after(outcome.checkAfterMs ?? settings.pollIntervalMs),
    });
  }

  /** An open attempt whose worker never reported: its outcome is asked of the platform. */
  private async reconcile(job: LoadedJob, post: PostState): Promise<JobResult> {
    const ref = { ...job, attempt: post.attemptCount };
    const resolved = await this.accountOf(job, post);
    if (!resolved.ok) {
      return this.record(
        ref,
        failedForGood(
          'unconfirmed',
          `The outcome of attempt ${post.attemptCount} is unknown and cannot be checked: ${resolved.message}`,
        ),
      );
    }
    return this.settleUnknown(
      ref,
      resolved.account,
      post,
      post.idempotencyKey ?? `publish:${post.id}:${post.attemptCount}`,
      post.lastAttemptAt ?? post.updatedAt,
      new ConnectorError(
        'unknown_outcome',
        'the worker making the attempt stopped before recording its outcome',
      ),
    );
  }

  private async settleUnknown(
    ref: LoadedJob & { attempt: number },
    account: AccountRef,
    post: PostState,
    idempotencyKey: string,
    attemptStartedAt: string,
    cause: ConnectorError,
  ): Promise<JobResult> {
    let check: StatusCheck;
    try {
      check = await this.checkStatus(account, post, idempotencyKey, null, attemptStartedAt, ref.group.title);
    } catch (error) {
      const giveUpAt = Date.parse(attemptStartedAt) + this.options.settings.pendingTimeoutMs;
      if (this.now().getTime() < giveUpAt) {
        // Left open: the sweep comes back to it once it is stale, and asks again.
        this.options.logger.warn({ postId: post.id, err: error }, 'status check failed; attempt left open');
        return 'left_open';
      }
      return this.record(
        ref,
        failedForGood(
          'unconfirmed',
          `Unconfirmed: ${cause.message}; the platform could not be asked whether the post exists (${asConnectorError(error).message})`,
        ),
      );
    }
    switch (check.kind) {
      case 'published':
        return this.record(ref, { kind: 'published', externalId: check.externalId, url: check.url });
      case 'pending':
        return this.record(ref, {
          kind: 'pending',
          reference: idempotencyKey,
          nextCheckAt: this.after(check.checkAfterMs ?? this.options.settings.pollIntervalMs),
        });
      case 'not_found':
        // The platform confirms nothing was made: as safe to retry as any retryable failure.
        return this.record(ref, this.failure(ref.attempt, new ConnectorError('retryable', cause.message)));
      case 'failed':
        return this.record(ref, failedForGood('permanent', check.message));
      case 'unsupported':
        return this.record(
          ref,
          failedForGood(
            'unconfirmed',
            `Unconfirmed: ${cause.message}; the platform offers no way to check whether the post was made, so it is not sent again`,
          ),
        );
    }
  }

  private async poll(job: LoadedJob, post: PostState): Promise<JobResult> {
    const ref = { ...job, attempt: post.attemptCount };
    const { settings } = this.options;
    const resolved = await this.accountOf(job, post);
    const startedAt = post.lastAttemptAt ?? post.updatedAt;
    const timedOut = this.now().getTime() >= Date.parse(startedAt) + settings.pendingTimeoutMs;
    if (!resolved.ok) {
      return this.record(ref, failedForGood('account', resolved.message));
    }
    let check: StatusCheck;
    try {
      check = await this.checkStatus(
        resolved.account,
        post,
        post.idempotencyKey ?? '',
        post.publishReference,
        startedAt,
        job.group.title,
      );
    } catch (error) {
      check = { kind: 'pending' };
      this.options.logger.warn({ postId: post.id, err: error }, 'polling the platform failed');
    }
    switch (check.kind) {
      case 'published':
        return this.record(ref, { kind: 'published', externalId: check.externalId, url: check.url });
      case 'failed':
        return this.record(ref, failedForGood('permanent', check.message));
      case 'pending':
        if (timedOut)
          return this.record(
            ref,
            failedForGood(
              'platform_timeout',
              `The platform did not finish processing the post within ${Math.round(settings.pendingTimeoutMs / 1000)} s`,
            ),
          );
        return this.record(ref, {
          kind: 'pending',
          reference: post.publishReference ?? post.idempotencyKey ?? '',
          nextCheckAt: this.after(check.checkAfterMs ?? settings.pollIntervalMs),
        });
      case 'not_found':
        return this.record(
          ref,
          this.failure(
            ref.attempt,
            new ConnectorError('retryable', 'The platform dropped the post while processing it'),
          ),
        );
      case 'unsupported':
        return this.record(
          ref,
          failedForGood(
            'unconfirmed',
            'Unconfirmed: the platform offers no way to check a post it is processing',
          ),
        );
    }
  }

  /** The account the post publishes with (its own, or the workspace's only one of the platform). */
  private accountOf(job: PublishJob, post: PostState) {
    return this.options.accounts.resolve({
      orgId: job.orgId,
      platform: post.platform,
      socialAccountId: post.socialAccountId,
    });
  }

  private checkStatus(
    account: AccountRef,
    post: PostState,
    idempotencyKey: string,
    reference: string | null,
    attemptStartedAt: string,
    groupTitle: string,
  ): Promise<StatusCheck> {
    const connector = this.options.connectors.get(post.platform);
    return this.options.accounts.withTokens(account, (tokens) =>
      connector.checkStatus(this.context(account, tokens), {
        postId: post.id,
        idempotencyKey,
        reference,
        contentText: post.contentText,
        attemptStartedAt,
        groupTitle,
        platformPayload: post.platformPayload,
      }),
    );
  }

  /** A failed attempt: retried with backoff while attempts remain and the failure allows it, else final. */
  private failure(attempt: number, error: ConnectorError): PublishOutcomeRecord {
    const { settings } = this.options;
    const retryable = error.kind === 'retryable' || error.kind === 'rate_limited';
    if (!retryable) {
      return failedForGood(error.kind === 'auth' ? 'account' : 'permanent', error.message);
    }
    if (attempt >= settings.maxAttempts) {
      return failedForGood('attempts_exhausted', `${error.message} (gave up after ${attempt} attempts)`);
    }
    const delay = Math.max(retryDelayMs(attempt, settings, this.random), error.details.retryAfterMs ?? 0);
    return { kind: 'failed', error: error.message, reason: 'retryable', nextRetryAt: this.after(delay) };
  }

  private async record(
    ref: PublishJob & { attempt: number; loaded?: { group: ActivePostGroup; revision: number } },
    outcome: PublishOutcomeRecord,
  ): Promise<JobResult> {
    try {
      await recordPublishOutcome(this.options.commands, ref, outcome, this.now(), randomUUID(), ref.loaded);
    } catch (error) {
      // Another worker settled this attempt first (a reconcile racing a slow worker): its record stands.
      if (error instanceof Conflict) return 'claimed_elsewhere';
      throw error;
    }
    if (outcome.kind === 'published') return 'published';
    if (outcome.kind === 'pending') return 'awaiting_platform';
    return outcome.nextRetryAt ? 'retry_scheduled' : 'failed';
  }

  private context(
    account: AccountRef,
    tokens: TokenSet,
    fetchMedia: MediaFetcher = this.options.fetchMedia,
  ): CallContext {
    return {
      account,
      tokens,
      // Accounts are resolved within the post's workspace (AccountAccess checks it), so the account's workspace
      // is the post's: media in our own storage is only read for it.
      fetchMedia: (item) => fetchMedia({ ...item, orgId: account.orgId }),
      signal: AbortSignal.timeout(this.options.settings.callTimeoutMs),
    };
  }

  private after(ms: number): string {
    return new Date(this.now().getTime() + ms).toISOString();
  }
}

/** A failure with no retry: the post ends `failed`, keeping its approval. */
function failedForGood(reason: PublishFailureReason, error: string): PublishOutcomeRecord {
  return { kind: 'failed', error, reason, nextRetryAt: null };
}

function asConnectorError(error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return new ConnectorError('unknown_outcome', 'The platform did not answer in time');
  // Our own failure around the call: whether the platform got the request is not known.
  return new ConnectorError('unknown_outcome', error instanceof Error ? error.message : String(error));
}
