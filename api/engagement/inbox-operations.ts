// The reply inbox's operations (issue 30; spec part 2, "Reply inbox"): GET ORG/engagement (list_reply_inbox),
// PATCH ORG/engagement/{itemId} (update_reply_draft). Nothing here posts, except send_reply.
import { updateReplyDraft } from '../../commands/engagement/inbox.js';
import { refreshReplyInbox, type RefreshDeps } from '../../commands/engagement/inbox-refresh.js';
import { sendReply, type SendDeps } from '../../commands/engagement/inbox-send.js';
import type { PlatformEnv } from '../platform/settings.js';
import type { EngagementEnv } from './settings.js';
import {
  draftReply,
  suggestRedditListening,
  type InboxDraftDeps,
} from '../../commands/engagement/inbox-draft.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { X_POST_READ } from '../../commands/x-posts/read-x-posts.js';
import { billingServices } from '../billing/services.js';
import type { InboxItemView } from '../../domain/engagement/inbox-item.js';
import { getReplyInboxItem, listReplyInbox } from '../../projections/engagement/queries.js';
import { pageSchema } from '../platform/paging.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import type { SliceContext } from '../shared/slice-context.js';
import {
  draftReplyBody,
  inboxItemParams,
  inboxItemSchema,
  inboxListQuery,
  refreshInboxBody,
  redditSuggestionsSchema,
  refreshResultSchema,
  sendReplyBody,
  updateReplyDraftBody,
} from './inbox-schemas.js';

const operation = operationsWith<RefreshDeps & InboxDraftDeps & SendDeps>();
const inboxPath = '/v1/orgs/{orgId}/engagement';
/** Owners, admins and editors (the role matrix's "Draft" row); assistants with posts:write. */
const drafting = { permission: 'posts:draft', scope: 'posts:write' } as const;

const clip = (text: string, max = 80) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
export const inboxItemSummary = (i: InboxItemView) =>
  `${i.id} (${i.platform} ${i.kind}, ${i.status}${i.relevance !== null ? `, relevance ${i.relevance}` : ''}) by ` +
  `${i.author.handle ? `@${i.author.handle}` : 'someone'}: "${clip(i.text)}"` +
  (i.draftText ? `; draft: "${clip(i.draftText)}"` : '');

const writeHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

/** What the inbox's use cases need, from a slice's context (the operations' and the auto refresh's). */
export function inboxDeps(
  ctx: SliceContext<
    typeof aiJobsService | typeof brandContextService | typeof billingServices,
    PlatformEnv & EngagementEnv
  >,
): RefreshDeps & InboxDraftDeps & SendDeps {
  const billing = ctx.use(billingServices);
  return {
    ...ctx.services,
    aiJobs: ctx.use(aiJobsService),
    brandContext: ctx.use(brandContextService),
    credits: billing.credits,
    xPostCost: billing.catalog.actionCost(X_POST_READ)?.credits ?? 0,
    sendLeaseMs: ctx.env.INBOX_SEND_LEASE_MS,
  };
}

export const inboxOperations = operationGroup(inboxDeps, [
  operation({
    name: 'list_reply_inbox',
    kind: 'read',
    method: 'get',
    path: inboxPath,
    tags: ['engagement'],
    summary:
      'The reply inbox: posts on X and Reddit that may deserve an answer, newest first (default: open ones)',
    params: orgParams,
    query: inboxListQuery,
    output: pageSchema(inboxItemSchema),
    outputDescription: 'A page of inbox items',
    errors: [400, 401, 403],
    access: { permission: 'workspace:read', scope: 'mcp:read' },
    tool: {
      title: 'List the reply inbox',
      description:
        'Lists the reply inbox: X mentions and matches, X community posts and Reddit threads found by ' +
        'refresh_reply_inbox, newest post first, a page at a time. status: open (default: new, drafted or ' +
        'failed, waiting on a decision), sent (sent or being sent), dismissed, all; kind mention|community|all; ' +
        'platform x|reddit|all; feedId. Each item has its text, author, relevance (0-100), draft, ' +
        'canSendFromApp and replyOnXUrl. Read-only.',
      hints: { readOnlyHint: true, openWorldHint: false },
      summary: (page) =>
        page.total === 0
          ? 'No inbox items match.'
          : `${page.total} item(s); page ${page.page}: ${page.items.map(inboxItemSummary).join('; ')}.`,
    },
    run: (deps, { caller }, input) => listReplyInbox(deps.readModels, caller, input),
  }),
  operation({
    name: 'getReplyInboxItem',
    kind: 'read',
    method: 'get',
    path: `${inboxPath}/{itemId}`,
    tags: ['engagement'],
    summary: 'One inbox item, whatever its status (what a notification of a relevant item links to)',
    params: inboxItemParams,
    output: inboxItemSchema,
    outputDescription: 'The inbox item',
    errors: [400, 401, 403, 404],
    access: { permission: 'workspace:read', scope: 'mcp:read' },
    run: (deps, { caller }, input) => getReplyInboxItem(deps.readModels, caller, input),
  }),
  operation({
    name: 'update_reply_draft',
    kind: 'write',
    method: 'patch',
    path: `${inboxPath}/{itemId}`,
    tags: ['engagement'],
    summary:
      "Edit an inbox item's reply draft, dismiss it, bring it back, or mark it answered by hand; never posts",
    params: inboxItemParams,
    body: updateReplyDraftBody,
    output: inboxItemSchema,
    outputDescription: 'The inbox item',
    errors: [400, 401, 402, 403, 404, 409, 413, 422, 503],
    access: drafting,
    tool: {
      title: 'Update a reply draft',
      description:
        'Changes an inbox item: draftText (the reply, written by hand; empty clears it; X replies at most 280 ' +
        'characters, Reddit 10,000), status drafted (brings a dismissed item back), dismissed, or sent (records ' +
        'a reply posted by hand on X: nothing is posted). Never posts; send_reply sends.',
      hints: writeHints,
      describe: { itemId: 'The inbox item id (from list_reply_inbox)' },
      summary: (i) => `${inboxItemSummary(i)}. Nothing was posted.`,
    },
    run: (deps, { caller, request }, input) => updateReplyDraft(deps, caller, input, request),
  }),
  operation({
    name: 'refresh_reply_inbox',
    kind: 'write',
    method: 'post',
    path: `${inboxPath}/refresh`,
    tags: ['engagement'],
    summary:
      'Find new posts to answer: X mentions, watched handles, keywords and feeds, and Reddit threads; posts nothing',
    params: orgParams,
    body: refreshInboxBody,
    bodyRequired: false,
    output: refreshResultSchema,
    outputDescription: 'What the refresh found and added',
    errors: [400, 401, 402, 403, 409, 413, 422, 429, 503],
    access: { ...drafting, billing: 'paid' },
    tool: {
      title: 'Refresh the reply inbox',
      description:
        'Reads what the engagement settings listen for through the connected accounts: X mentions of the ' +
        'account, X posts of the watched handles and with the keywords, the enabled feeds (or only feedId), ' +
        'and Reddit threads with the Reddit keywords in the subreddits (threads with an exclude term left out). ' +
        'New posts become inbox items scored for relevance (0-100); posts already in the inbox stay as they are. ' +
        'X reads cost credits per post returned. A source that fails (rate limited, account to reconnect) is a ' +
        'warning. Posts nothing.',
      hints: { ...writeHints, openWorldHint: true },
      summary: (r) =>
        `${r.added} new item(s) (${r.mentionsFound} X mention(s) and matches, ${r.communityFound} community, ` +
        `${r.redditFound} Reddit, ${r.feedsFound} from feeds)` +
        (r.warnings.length > 0 ? `; warnings: ${r.warnings.join('; ')}` : '') +
        '. Nothing was posted.',
    },
    run: (deps, { caller, request }, input) => refreshReplyInbox(deps, caller, input, request),
  }),
  operation({
    name: 'send_reply',
    kind: 'write',
    method: 'post',
    path: `${inboxPath}/{itemId}/send`,
    tags: ['engagement'],
    summary:
      'Send the approved reply to an inbox item (an X reply or a Reddit comment), exactly once; sending is the approval',
    params: inboxItemParams,
    body: sendReplyBody,
    output: inboxItemSchema,
    outputDescription: 'The inbox item: sent, or failed with lastError',
    errors: [400, 401, 402, 403, 404, 409, 413, 422, 503],
    access: { permission: 'posts:publish', scope: 'posts:publish', billing: 'write' },
    tool: {
      title: 'Send a reply',
      description:
        'Posts the reply to an inbox item: on X a reply to the post, on Reddit a comment. Sending is the ' +
        'approval: text must be exactly the draft (draftText; save a changed text with update_reply_draft ' +
        'first), or with no draft the exact text to send. Sent once: a send under way is 409 reply_sending, ' +
        'the same text sent again answers the sent item. X community posts cannot be answered through the ' +
        'API: 409 x_community_reply_unsupported (answer on X at replyOnXUrl, then mark the item sent). ' +
        'Answers the item: status sent with sentUrl, or failed with lastError (send again to retry).',
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      describe: { itemId: 'The inbox item id (from list_reply_inbox)' },
      summary: (i) =>
        i.status === 'sent'
          ? `Sent: ${i.sentUrl ?? 'marked sent'} (${inboxItemSummary(i)}).`
          : `Not sent (${i.status}): ${i.lastError ?? 'see the item'}.`,
    },
    run: (deps, { caller, request }, input) => sendReply(deps, caller, input, request),
  }),
  operation({
    name: 'draft_reply',
    kind: 'write',
    method: 'post',
    path: `${inboxPath}/{itemId}/draft`,
    tags: ['engagement'],
    summary:
      "Draft the reply to an inbox item in the brand voice and the brand's recent style; posts nothing",
    params: inboxItemParams,
    body: draftReplyBody,
    bodyRequired: false,
    output: inboxItemSchema,
    outputDescription: 'The inbox item with its new draft',
    errors: [400, 401, 402, 403, 404, 409, 413, 422, 429, 503],
    access: { ...drafting, billing: 'paid' },
    tool: {
      title: 'Draft a reply',
      description:
        "Writes the reply to an inbox item in the brand voice, matching the style of the brand's recent posts " +
        '(X: at most 280 characters; Reddit: a helpful comment); guidance steers it. Saves it on the item ' +
        '(draftText, draftReason; status drafted); spends credits when a model writes it. Posts nothing: ' +
        'send_reply sends the approved text.',
      hints: writeHints,
      describe: { itemId: 'The inbox item id (from list_reply_inbox)' },
      summary: (i) => `${inboxItemSummary(i)}. Nothing was posted.`,
    },
    run: (deps, { caller, request }, input) => draftReply(deps, caller, input, request),
  }),
  operation({
    name: 'suggest_reddit_listening',
    kind: 'write',
    method: 'post',
    path: `${inboxPath}/reddit-suggestions`,
    tags: ['engagement'],
    summary:
      'Suggest Reddit keywords and subreddits to listen to, from the brand and the strategy; saves nothing',
    params: orgParams,
    output: redditSuggestionsSchema,
    outputDescription: 'Suggested Reddit keywords and subreddits',
    errors: [400, 401, 402, 403],
    // Saves and costs nothing, but as a POST of the workspace it counts as a write (402 while read-only), like
    // the visuals preview.
    access: { ...drafting, billing: 'write' },
    tool: {
      title: 'Suggest Reddit listening',
      description:
        "Suggests redditKeywords and subreddits for the engagement settings, read off the brand profile's " +
        "public context and the strategy's pillars. Saves nothing (save them with update_engagement_settings) " +
        'and costs nothing.',
      hints: { readOnlyHint: true, openWorldHint: false },
      summary: (r) =>
        `Keywords: ${r.redditKeywords.join(', ') || '(none)'}; subreddits: ${r.subreddits.map((s) => `r/${s}`).join(', ') || '(none)'}. Nothing was saved.`,
    },
    run: (deps, { caller, request }, input) => suggestRedditListening(deps, caller, input, request),
  }),
]);
