// Drafting for the reply inbox (issue 30): POST ORG/engagement/{itemId}/draft (draft_reply; the
// `engagement.reply_draft` job, grounded in the workspace's writing context: the public brand context, the strategy's
// pillars and its recent published posts as the style to match) and POST ORG/engagement/reddit-suggestions
// (suggest_reddit_listening: Reddit keywords and subreddits from the brand context and the pillars, a pure reading
// that saves nothing and costs nothing). Nothing here posts.
import type { BrandContextReader } from '../../domain/ai/brand-context.js';
import type { AiJobRunner } from '../../domain/ai/job.js';
import { fitToPlatform } from '../../domain/ai/writing.js';
import { inboxItemDecider, type InboxItem, type InboxItemView } from '../../domain/engagement/inbox-item.js';
import { redditSuggestionsOf, type RedditSuggestions } from '../../domain/engagement/reddit-suggestions.js';
import {
  recentPostsGiven,
  replyDraftJob,
  type ReplyDraftInput,
} from '../../domain/engagement/reply-draft-job.js';
import { assistantActorOf, authorize, type Caller } from '../../domain/shared/caller.js';
import { Conflict, NotFound } from '../../domain/shared/errors.js';
import { writingContextOf } from '../ai/writing-context.js';
import { loadAggregate } from '../shared/command-handler.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { decideOnItem, inboxItemStream, inboxWriting, itemIn, type InboxDeps } from './inbox.js';

export interface InboxDraftDeps extends InboxDeps {
  aiJobs: AiJobRunner;
  brandContext: BrandContextReader;
}

function draftable(item: InboxItem): void {
  if (item.status === 'sending')
    throw new Conflict('A reply to this item is being sent; read the item again shortly', 'reply_sending');
  if (item.status === 'sent') throw new Conflict('This item is answered already', 'inbox_item_sent');
}

/** Tool: draft_reply. Writes the reply in the brand voice and the recent posts' style; posts nothing. */
export async function draftReply(
  deps: InboxDraftDeps,
  caller: Caller,
  input: { orgId: string; itemId: string; guidance?: string | undefined },
  request: WriteRequest,
): Promise<Written<InboxItemView>> {
  const { orgId, itemId } = input;
  authorize(caller, inboxWriting(orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record, idempotencySeed }) => {
    const loaded = await loadAggregate(deps.commands.eventStore, inboxItemStream(itemId), inboxItemDecider);
    if (loaded.state.status !== 'present' || loaded.state.item.orgId !== orgId)
      throw new NotFound('Inbox item not found', 'inbox_item_not_found');
    const item = loaded.state.item;
    // Refused before any model call.
    draftable(item);
    const context = await writingContextOf(deps, orgId, new Date(request.now));
    const jobInput: ReplyDraftInput = {
      workspaceName: context.workspaceName,
      brand: context.brand,
      pillars: context.pillars.map((p) => p.name),
      recentPosts: context.topPosts.slice(0, recentPostsGiven).map((p) => p.text),
      platform: item.platform,
      kind: item.kind,
      authorHandle: item.author.handle,
      title: item.title,
      text: item.text,
      inReplyToText: item.inReplyToText,
      community: item.community,
      guidance: input.guidance?.trim() || null,
    };
    const result = await deps.aiJobs.run(replyDraftJob, {
      orgId,
      input: jobInput,
      userId: caller.userId,
      idempotencyKey: idempotencySeed ?? null,
      payload: { itemId, platform: item.platform, guidance: jobInput.guidance },
    });
    const outcome = await decideOnItem(
      deps,
      itemId,
      {
        type: 'WriteInboxDraft',
        orgId,
        itemId,
        // A model's reply longer than the platform takes is cut at a word, as the offline writer's is.
        draftText: fitToPlatform(item.platform, result.output.draftText),
        draftReason: result.output.draftReason,
        source: result.source,
        agentRunId: result.runId,
        assistant: assistantActorOf(caller),
        now: request.now,
      },
      { metadata: { ...metadata, orgId }, idempotencySeed, scope: 'inbox-draft' },
      record,
    );
    return itemIn(outcome.state);
  });
}

/** Tool: suggest_reddit_listening. Saves nothing. */
export async function suggestRedditListening(
  deps: Pick<InboxDraftDeps, 'commands' | 'readModels' | 'brandContext' | 'idempotency'>,
  caller: Caller,
  input: { orgId: string },
  request: WriteRequest,
): Promise<Written<RedditSuggestions>> {
  authorize(caller, inboxWriting(input.orgId));
  return runWrite(deps.idempotency, caller, request, async () => {
    const context = await writingContextOf(deps, input.orgId, new Date(request.now));
    return redditSuggestionsOf({ brand: context.brand, pillars: context.pillars });
  });
}
