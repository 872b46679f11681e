// Inspiration library use cases (issue 31) for a caller (a member who drafts, or an assistant with posts:write):
// save a post by link (X through the X post read, which charges `x_post_read`; LinkedIn through the LinkedIn
// connector's post read) or by text, edit, delete, analyse again, and move an item as an opportunity. Saving (and
// an edit of the text) analyses the item at once through the `ai jobs` service: pending → processing → ready, or
// failed (the item is kept and answered with its analysisError), or skipped when it has no text. Every write
// decides against the item's own stream, `inspiration-<itemId>`, and answers the item read against the strategy.
import type { Kysely } from 'kysely';
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import { analysisJob, analysisPromptVersion } from '../../domain/inspiration/analysis-job.js';
import { interpret, strategyLensOf, type StrategyLens } from '../../domain/inspiration/interpretation.js';
import {
  inspirationCategory,
  inspirationDecider,
  inspirationItemOf,
  type InspirationCommand,
  type InspirationItem,
  type InspirationPlatform,
  type InspirationSource,
  type InspirationState,
  type OpportunityStatus,
} from '../../domain/inspiration/item.js';
import { inspirationItemView, type InspirationItemView } from '../../domain/inspiration/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  Conflict,
  InvalidFields,
  NotFound,
  ServiceUnavailable,
  TooManyRequests,
} from '../../domain/shared/errors.js';
import { deterministicUuid } from '../../domain/shared/ids.js';
import { strategyDecider } from '../../domain/strategy/strategy.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  linkedinPostUrnsOf,
  linkedinVanityOf,
  type LinkedInPostRead,
} from '../../infra/connectors/linkedin-reads.js';
import { ConnectorError, isConnectorError, type ConnectorRegistry } from '../../infra/connectors/port.js';
import type { XPost } from '../../infra/connectors/x-reads.js';
import { itemIdBySourceKey } from '../../projections/inspiration/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';
import { deterministicEventIds, newId } from '../shared/ids.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';
import { strategyStream } from '../strategy/strategy-use-cases.js';
import { readXPost, xPostIdOf, type XReadDeps } from '../x-posts/read-x-posts.js';

export interface InspirationDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  aiJobs: AiJobRunner;
  brandContext: BrandContextReader;
  /** The X post read (commands/x-posts): X links are read, and charged, through it. */
  xReads: XReadDeps;
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
}

export const inspirationStream = (itemId: string) => streamName(inspirationCategory, itemId);

/** Saving, editing, analysing, drafting from and moving items: members who draft, assistants with posts:write. */
export const inspirationWriting = (orgId: string) =>
  ({ orgId, permission: 'posts:draft', scope: 'posts:write' }) as const;

export async function loadInspirationItem(
  deps: Pick<CommandDeps, 'eventStore'>,
  itemId: string,
): Promise<InspirationState> {
  return (await loadAggregate(deps.eventStore, inspirationStream(itemId), inspirationDecider)).state;
}

/** The strategy the workspace's items are read against now (active, else the draft), or null. */
export async function strategyLensFor(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  now: string,
): Promise<StrategyLens | null> {
  const { state } = await loadAggregate(deps.eventStore, strategyStream(orgId), strategyDecider);
  return strategyLensOf(state, now);
}

export const viewWith = (lens: StrategyLens | null) => (item: InspirationItem) =>
  inspirationItemView(item, interpret(item, lens));

/** Decides one command on the item's stream; answers the item after it (or, `before`, the one it was decided on). */
export async function decideItem(
  deps: Pick<WriteDeps, 'commands'>,
  command: InspirationCommand,
  metadata: CommandMetadata,
  seed: { idempotencySeed: string | undefined; step: string },
  answerFrom: 'after' | 'before' = 'after',
): Promise<InspirationItem> {
  const outcome = await handleCommand(deps.commands, {
    stream: inspirationStream(command.itemId),
    decider: inspirationDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
    eventId: deterministicEventIds(seed.idempotencySeed, 'inspiration', seed.step),
  });
  return inspirationItemOf(answerFrom === 'before' ? outcome.before : outcome.state, command.orgId);
}

/** `provider:model` as the runner gives it, split; the offline writer is `offline` for both. */
export function providerAndModel(providerModel: string): { provider: string; model: string } {
  const at = providerModel.indexOf(':');
  if (at < 0) return { provider: providerModel, model: providerModel };
  return { provider: providerModel.slice(0, at), model: providerModel.slice(at + 1) };
}

const messageOf = (error: unknown) =>
  error instanceof Error && error.message ? error.message : 'The analysis failed';

/**
 * Analyses the item now: processing, then ready with the analysis, or failed with the reason (the item is kept; a
 * later POST …/analyze tries again); an item without text is skipped. Answers the item after it.
 */
export async function analyseItem(
  deps: InspirationDeps,
  caller: Caller,
  item: InspirationItem,
  metadata: CommandMetadata,
  idempotencySeed: string | undefined,
): Promise<InspirationItem> {
  const ids = { orgId: item.orgId, itemId: item.itemId };
  const started = await decideItem(deps, { type: 'StartAnalysis', ...ids, now: metadata.now }, metadata, {
    idempotencySeed,
    step: 'analysis-start',
  });
  if (started.analysisStatus !== 'processing') return started;
  let command: InspirationCommand;
  try {
    const brand = await deps.brandContext.forOrg(item.orgId);
    const run = await deps.aiJobs.run(analysisJob, {
      orgId: item.orgId,
      userId: caller.userId,
      input: {
        platform: started.platform,
        contentText: started.contentText,
        authorName: started.authorName,
        brand,
      },
      idempotencyKey: idempotencySeed ? `${idempotencySeed}:analysis` : null,
      payload: { itemId: item.itemId, platform: started.platform },
    });
    command = {
      type: 'CompleteAnalysis',
      ...ids,
      analysis: run.output,
      ...providerAndModel(run.providerModel),
      promptVersion: analysisPromptVersion,
      agentRunId: run.runId,
      now: metadata.now,
    };
  } catch (error) {
    // A refusal that is the caller's to fix or to wait out (credits, rate limits) and any provider failure alike
    // leave the item saved, its analysis failed with the reason.
    command = { type: 'FailAnalysis', ...ids, error: messageOf(error), now: metadata.now };
  }
  return decideItem(deps, command, metadata, { idempotencySeed, step: 'analysis-end' });
}

// ---- Saving by link ----

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'no media is uploaded when reading');
};

/** A nested write's request: with the caller's key, one derived from it, so a retry replays instead of paying again. */
function nestedRequest(request: WriteRequest, seed: string | undefined, part: string): WriteRequest {
  const keyed = request.idempotency;
  if (!keyed || !seed) return { correlationId: request.correlationId, now: request.now };
  return {
    correlationId: request.correlationId,
    now: request.now,
    idempotency: {
      key: `inspiration-${part}-${deterministicUuid(seed, part)}`,
      requestHash: keyed.requestHash,
      status: 200,
    },
  };
}

const mediaTypeOfX = (type: string): 'image' | 'video' => (type === 'photo' ? 'image' : 'video');

export function sourceOfXPost(post: XPost, socialAccountId: string | null): InspirationSource {
  const handle = post.author?.handle ?? null;
  const media = [
    ...post.media.flatMap((m) => {
      const url = m.url ?? m.previewImageUrl;
      return url ? [{ type: mediaTypeOfX(m.type), url, alt: m.altText ?? '', mimeType: '' }] : [];
    }),
    ...post.links.map((l) => ({
      type: 'link' as const,
      url: l.expandedUrl ?? l.url,
      alt: l.title ?? '',
      mimeType: '',
    })),
  ];
  return {
    platform: 'x',
    sourceType: 'manual_url',
    sourceExternalId: post.id,
    sourceUrl: post.url,
    authorName: post.author?.name ?? null,
    authorHandle: handle,
    authorProfileUrl: handle ? `https://x.com/${handle}` : null,
    contentText: post.text,
    media: media.length > 0 ? { items: media } : null,
    publishedAt: post.createdAt,
    engagement: {
      likes: post.metrics.likes,
      comments: post.metrics.replies,
      shares: post.metrics.reposts,
      impressions: post.metrics.impressions,
      bookmarks: post.metrics.bookmarks,
      quotes: post.metrics.quotes,
      raw: { ...post.metrics },
    },
    socialAccountId,
  };
}

export function sourceOfLinkedInPost(
  post: LinkedInPostRead,
  link: string,
  socialAccountId: string | null,
): InspirationSource {
  return {
    platform: 'linkedin',
    sourceType: 'manual_url',
    sourceExternalId: post.urn,
    sourceUrl: post.url,
    authorName: post.authorName,
    authorHandle: post.authorHandle ?? linkedinVanityOf(link),
    authorProfileUrl: post.authorProfileUrl,
    contentText: post.text,
    media: post.media.length > 0 ? { items: post.media.map((m) => ({ ...m, mimeType: '' })) } : null,
    publishedAt: post.publishedAt,
    engagement:
      post.likes === null && post.comments === null
        ? null
        : {
            likes: post.likes,
            comments: post.comments,
            shares: null,
            impressions: null,
            bookmarks: null,
            quotes: null,
            raw: { likes: post.likes, comments: post.comments },
          },
    socialAccountId,
  };
}

/** What the caller gets when LinkedIn fails a read: 429, 409 to reconnect or when LinkedIn refuses, else 503. */
function linkedinFailure(error: unknown): unknown {
  if (!isConnectorError(error)) return error;
  switch (error.kind) {
    case 'rate_limited':
      return new TooManyRequests(
        'LinkedIn is rate limiting this account; try again later',
        Math.max(1, Math.ceil((error.details.retryAfterMs ?? 60_000) / 1000)),
      );
    case 'auth':
      return new Conflict(error.message, 'account_needs_reconnect');
    case 'permanent':
      return new Conflict(`LinkedIn refused the read: ${error.message}`, 'linkedin_refused');
    case 'retryable':
    case 'unknown_outcome':
      return new ServiceUnavailable(
        `LinkedIn could not be reached: ${error.message}`,
        'platform_unavailable',
      );
  }
}

type LinkTarget = { platform: 'x'; xPostId: string } | { platform: 'linkedin'; urns: string[] };

/** What a link names: an X post or a LinkedIn post; 400 naming `url` otherwise. */
export function linkTargetOf(url: string): LinkTarget {
  try {
    if (/^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\//i.test(url.trim()))
      return { platform: 'x', xPostId: xPostIdOf(url) };
  } catch {
    // falls through to the refusal below
  }
  const urns = linkedinPostUrnsOf(url);
  if (urns) return { platform: 'linkedin', urns };
  throw new InvalidFields('Not a link to an X or LinkedIn post', [
    {
      path: 'url',
      message:
        'expected https://x.com/<handle>/status/<id> or a LinkedIn post link (…/feed/update/urn:li:activity:<id>, …/posts/…-activity-<id>-…)',
    },
  ]);
}

async function readLinkedInPost(
  deps: InspirationDeps,
  orgId: string,
  urns: string[],
  socialAccountId: string | null,
): Promise<{ post: LinkedInPostRead; socialAccountId: string }> {
  const resolved = await deps.accounts.resolve({ orgId, platform: 'linkedin', socialAccountId });
  if (!resolved.ok) {
    if (resolved.reason === 'not_found' && socialAccountId)
      throw new InvalidFields('Unknown social account', [
        { path: 'socialAccountId', message: 'not a LinkedIn account of this workspace' },
      ]);
    throw new Conflict(resolved.message, `account_${resolved.reason}`);
  }
  const account = resolved.account;
  const connector = deps.connectors.get('linkedin');
  if (!connector.readLinkedInPost)
    throw new ServiceUnavailable(
      'Reading LinkedIn posts is not available in this build',
      'linkedin_reads_unavailable',
    );
  const read = connector.readLinkedInPost.bind(connector);
  try {
    for (const urn of urns) {
      const post = await deps.accounts.withTokens(account, (tokens) =>
        read({ account, tokens, fetchMedia: noMedia }, { urn }),
      );
      if (post) return { post, socialAccountId: account.id };
    }
  } catch (error) {
    throw linkedinFailure(error);
  }
  throw new NotFound(
    'LinkedIn has no such post (deleted, hidden, or not visible to the account)',
    'linkedin_post_not_found',
  );
}

export interface SaveInspirationInput {
  orgId: string;
  /** A link to an X or LinkedIn post: read through the platform's connector. */
  url?: string | undefined;
  /** Or the post's text, pasted. */
  contentText?: string | undefined;
  platform?: InspirationPlatform | undefined;
  authorName?: string | null | undefined;
  authorHandle?: string | null | undefined;
  authorProfileUrl?: string | null | undefined;
  sourceUrl?: string | null | undefined;
  publishedAt?: string | null | undefined;
  notes?: string | null | undefined;
  tags?: string[] | undefined;
  /** The X or LinkedIn account to read a link with, when the workspace has several. */
  socialAccountId?: string | undefined;
}

function textSource(input: SaveInspirationInput): InspirationSource {
  if (!input.platform)
    throw new InvalidFields('Say which platform the post is from', [
      { path: 'platform', message: 'x or linkedin, with contentText' },
    ]);
  return {
    platform: input.platform,
    sourceType: 'manual_text',
    sourceExternalId: null,
    sourceUrl: input.sourceUrl ?? null,
    authorName: input.authorName ?? null,
    authorHandle: input.authorHandle ?? null,
    authorProfileUrl: input.authorProfileUrl ?? null,
    contentText: input.contentText ?? '',
    media: null,
    publishedAt: input.publishedAt ?? null,
    engagement: null,
    socialAccountId: null,
  };
}

/**
 * POST ORG/inspiration: saves a post by link (read through the connector) or by text, then analyses it. A link the
 * workspace saved already answers the item saved before, unchanged (no second read, no charge).
 */
export async function saveInspiration(
  deps: InspirationDeps,
  caller: Caller,
  input: SaveInspirationInput,
  request: WriteRequest,
): Promise<Written<InspirationItemView>> {
  authorize(caller, inspirationWriting(input.orgId));
  const { orgId } = input;
  const given = Number(input.url !== undefined) + Number(input.contentText !== undefined);
  if (given !== 1)
    throw new InvalidFields('Give url or contentText', [
      { path: given === 0 ? 'url' : 'contentText', message: 'give url or contentText, not both' },
    ]);
  const target = input.url !== undefined ? linkTargetOf(input.url) : null;
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const lens = await strategyLensFor(deps.commands, orgId, metadata.now);
    const view = viewWith(lens);
    let source: InspirationSource;
    if (target) {
      const keys =
        target.platform === 'x'
          ? [{ platform: 'x' as const, id: target.xPostId }]
          : target.urns.map((id) => ({ platform: 'linkedin' as const, id }));
      for (const key of keys) {
        const existing = await itemIdBySourceKey(deps.readModels, orgId, key.platform, key.id);
        if (existing)
          return view(inspirationItemOf(await loadInspirationItem(deps.commands, existing), orgId));
      }
      if (target.platform === 'x') {
        const { output } = await readXPost(
          deps.xReads,
          caller,
          {
            orgId,
            post: target.xPostId,
            includeMedia: true,
            ...(input.socialAccountId ? { socialAccountId: input.socialAccountId } : {}),
          },
          nestedRequest(request, idempotencySeed, 'x-read'),
        );
        const account = await deps.accounts.resolve({
          orgId,
          platform: 'x',
          socialAccountId: input.socialAccountId ?? null,
        });
        source = sourceOfXPost(output.post, account.ok ? account.account.id : null);
      } else {
        const read = await readLinkedInPost(deps, orgId, target.urns, input.socialAccountId ?? null);
        source = sourceOfLinkedInPost(read.post, input.url ?? '', read.socialAccountId);
      }
    } else source = textSource(input);

    const saved = await decideItem(
      deps,
      {
        type: 'SaveInspirationItem',
        orgId,
        // With a key, the id comes from it: a retry after a crash saves the same item, not a second one.
        itemId: newId(idempotencySeed ? [idempotencySeed, 'inspiration'] : undefined),
        source,
        notes: input.notes,
        tags: input.tags,
        by: metadata.userId ?? null,
        now: metadata.now,
      },
      metadata,
      { idempotencySeed, step: 'save' },
    );
    return view(await analyseItem(deps, caller, saved, metadata, idempotencySeed));
  });
}

export interface UpdateInspirationInput {
  orgId: string;
  itemId: string;
  notes?: string | null | undefined;
  tags?: string[] | undefined;
  contentText?: string | undefined;
  authorName?: string | null | undefined;
  authorHandle?: string | null | undefined;
  generatedDrafts?:
    { destination: 'x' | 'linkedin' | 'thread' | 'article'; styleKey: string; text: string }[] | undefined;
}

/** PATCH ORG/inspiration/{itemId}: omitted fields stay; tags and drafts replace. New text is analysed again. */
export async function updateInspiration(
  deps: InspirationDeps,
  caller: Caller,
  input: UpdateInspirationInput,
  request: WriteRequest,
): Promise<Written<InspirationItemView>> {
  authorize(caller, inspirationWriting(input.orgId));
  const { orgId, itemId, ...changes } = input;
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const lens = await strategyLensFor(deps.commands, orgId, metadata.now);
    const item = await decideItem(
      deps,
      { type: 'EditInspirationItem', orgId, itemId, ...changes, now: metadata.now },
      metadata,
      { idempotencySeed, step: 'edit' },
    );
    const after =
      item.analysisStatus === 'pending'
        ? await analyseItem(deps, caller, item, metadata, idempotencySeed)
        : item;
    return viewWith(lens)(after);
  });
}

/** DELETE ORG/inspiration/{itemId}: the item goes (drafts put in review stay). Answers it as it was. */
export async function deleteInspiration(
  deps: InspirationDeps,
  caller: Caller,
  input: { orgId: string; itemId: string },
  request: WriteRequest,
): Promise<Written<InspirationItemView>> {
  authorize(caller, inspirationWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const lens = await strategyLensFor(deps.commands, input.orgId, metadata.now);
    const item = await decideItem(
      deps,
      { type: 'DeleteInspirationItem', ...input, now: metadata.now },
      metadata,
      { idempotencySeed, step: 'delete' },
      'before',
    );
    return viewWith(lens)(item);
  });
}

/** POST ORG/inspiration/{itemId}/analyze: runs the analysis again (409 while one runs). */
export async function reanalyseInspiration(
  deps: InspirationDeps,
  caller: Caller,
  input: { orgId: string; itemId: string },
  request: WriteRequest,
): Promise<Written<InspirationItemView>> {
  authorize(caller, inspirationWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const item = inspirationItemOf(await loadInspirationItem(deps.commands, input.itemId), input.orgId);
    const lens = await strategyLensFor(deps.commands, input.orgId, metadata.now);
    return viewWith(lens)(await analyseItem(deps, caller, item, metadata, idempotencySeed));
  });
}

/** POST ORG/inspiration/{itemId}/opportunity: save, hide, dismiss, act on, or open again (domain opportunityMoves). */
export async function moveInspirationOpportunity(
  deps: InspirationDeps,
  caller: Caller,
  input: { orgId: string; itemId: string; status: OpportunityStatus; reason?: string | null | undefined },
  request: WriteRequest,
): Promise<Written<InspirationItemView>> {
  authorize(caller, inspirationWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, idempotencySeed }) => {
    const lens = await strategyLensFor(deps.commands, input.orgId, metadata.now);
    const item = await decideItem(
      deps,
      {
        type: 'ChangeOpportunity',
        orgId: input.orgId,
        itemId: input.itemId,
        status: input.status,
        feedbackReason: input.reason,
        now: metadata.now,
      },
      metadata,
      { idempotencySeed, step: 'opportunity' },
    );
    return viewWith(lens)(item);
  });
}
