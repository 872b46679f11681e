// The engagement slice's operations (issue 30, part 1): GET ORG/engagement/settings (get_engagement_settings) and
// the write the spec leaves unshown, PATCH ORG/engagement/settings (update_engagement_settings; docs/decisions.md
// says why PATCH); the direct messages (X): GET, POST ORG/dms, PATCH, DELETE ORG/dms/{conversationId} and POST
// …/draft. Nothing here posts or sends anything on X.
import {
  addDmConversation,
  deleteDmConversation,
  draftDm,
  updateDmConversation,
  type DmDeps,
} from '../../commands/engagement/dm-conversations.js';
import {
  getEngagementSettings,
  updateEngagementSettings,
} from '../../commands/engagement/engagement-settings.js';
import type { DmConversationView } from '../../domain/engagement/dm-views.js';
import { listDmConversations } from '../../projections/engagement/queries.js';
import { aiJobsService, brandContextService } from '../ai/services.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  addDmConversationBody,
  dmConversationParams,
  dmConversationSchema,
  dmListQuery,
  dmListSchema,
  draftDmBody,
  engagementSettingsSchema,
  updateDmConversationBody,
  updateEngagementSettingsBody,
} from './schemas.js';

const operation = operationsWith<DmDeps>();
const settingsPath = '/v1/orgs/{orgId}/engagement/settings';
const dmsPath = '/v1/orgs/{orgId}/dms';
/** Owners, admins and editors (the role matrix's "Draft" row: DMs); assistants with posts:write. */
const drafting = { permission: 'posts:draft', scope: 'posts:write' } as const;
/** Drafting with a model may spend credits: a paid call; the rest are writes. */
const paidWhenDrafting = (input: { draft?: boolean | undefined }): 'paid' | 'write' =>
  input.draft ? 'paid' : 'write';

const conversationSummary = (c: DmConversationView) =>
  `@${c.person.handle}: ${c.status.replace('_', ' ')}, ${c.messages.length} message(s)` +
  (c.followUpDue ? ', follow-up due' : '') +
  (c.draftText
    ? `; draft: ${c.draftText.length > 120 ? `${c.draftText.slice(0, 119)}…` : c.draftText}`
    : '') +
  '. Nothing was sent on X.';

const writeHints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

export const engagementOperations = operationGroup(
  (ctx): DmDeps => ({
    ...ctx.services,
    aiJobs: ctx.use(aiJobsService),
    brandContext: ctx.use(brandContextService),
  }),
  [
    operation({
      name: 'get_engagement_settings',
      kind: 'read',
      method: 'get',
      path: settingsPath,
      tags: ['engagement'],
      summary:
        "The workspace's engagement settings: what the reply inbox listens for (defaults when never saved)",
      params: orgParams,
      output: engagementSettingsSchema,
      outputDescription: 'Engagement settings',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'Get the engagement settings',
        description:
          'Returns what the reply inbox listens for: watchHandles (X handles without @ whose posts to watch), ' +
          'keywords (X search terms), autoRefresh, redditKeywords, subreddits (names without r/), ' +
          'redditExcludeTerms, feeds (each {id, name, source keywords|list|people, keywords, listId for an X ' +
          'list, handles for people, enabled}) and communities (X community ids whose posts are read). autoRefresh ' +
          'on: the inbox is refreshed every 30 minutes (X reads cost credits). updatedAt is null while the ' +
          'defaults apply. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (s) =>
          `${s.watchHandles.length} watched handle(s), ${s.keywords.length} keyword(s), ${s.subreddits.length} ` +
          `subreddit(s), ${s.feeds.length} feed(s); auto refresh ${s.autoRefresh ? 'on' : 'off'}.`,
      },
      run: (deps, { caller }, input) => getEngagementSettings(deps, caller, input),
    }),
    operation({
      name: 'update_engagement_settings',
      kind: 'write',
      method: 'patch',
      path: settingsPath,
      tags: ['engagement'],
      summary: 'Save engagement settings: omitted fields stay, lists (feeds too) replace the saved ones',
      params: orgParams,
      body: updateEngagementSettingsBody,
      output: engagementSettingsSchema,
      outputDescription: 'The settings saved',
      errors: [400, 401, 402, 403, 409, 413, 422, 503],
      access: { permission: 'settings:manage', scope: 'posts:write' },
      tool: {
        title: 'Update the engagement settings',
        description:
          'Changes what the reply inbox listens for. Send only the fields to change; a list replaces the saved one ' +
          '(send feeds whole: a feed keeps its id when sent with it, or when its name is unchanged). Handles are ' +
          'X handles with or without @ (at most 50), subreddits with or without r/ (at most 50), keywords and ' +
          'terms 1 to 100 characters (at most 50 each), feeds at most 20: source keywords needs keywords, list ' +
          "needs listId (the X list's digits), people needs handles; communities: at most 10 X community ids " +
          '(or their https://x.com/i/communities/<id> pages). autoRefresh true refreshes the inbox every 30 ' +
          'minutes (X reads cost credits). Posts and sends nothing.',
        hints: { ...writeHints, idempotentHint: true },
        summary: (s) =>
          `Saved: ${s.watchHandles.length} watched handle(s), ${s.keywords.length} keyword(s), ` +
          `${s.subreddits.length} subreddit(s), ${s.feeds.length} feed(s); auto refresh ${s.autoRefresh ? 'on' : 'off'}.`,
      },
      run: (deps, { caller, request }, input) => updateEngagementSettings(deps, caller, input, request),
    }),
    operation({
      name: 'list_dm_conversations',
      kind: 'read',
      method: 'get',
      path: dmsPath,
      tags: ['engagement'],
      summary:
        'Tracked X direct-message conversations: your turn first, then follow-ups due, then the rest (default: open ones)',
      params: orgParams,
      query: dmListQuery,
      output: dmListSchema,
      outputDescription: 'Conversations',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'List DM conversations',
        description:
          'Lists the X direct-message conversations the workspace tracks (tracking only: messages are logged by ' +
          'hand, nothing is read from or sent to X). status: open (default, not closed), your_turn (their message ' +
          'was last), waiting (mine was last), follow_up_due (waiting past followUpAt: 09:00 workspace time three ' +
          'days after my last message), closed or all. Your-turn conversations come first, then follow-ups due. ' +
          'Each has the person, notes, messages, the draft and sendOnXUrl. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: ({ items }) =>
          items.length === 0
            ? 'No DM conversations match.'
            : `${items.length} conversation(s): ${items.filter((c) => c.status === 'your_turn').length} your turn, ` +
              `${items.filter((c) => c.followUpDue).length} follow-up(s) due.`,
      },
      run: (deps, { caller, request }, input) =>
        listDmConversations(deps.readModels, caller, input, request.now),
    }),
    operation({
      name: 'add_dm_conversation',
      kind: 'write',
      method: 'post',
      path: dmsPath,
      tags: ['engagement'],
      summary:
        'Track an X direct-message conversation, or continue it when the person is tracked already; sends nothing',
      params: orgParams,
      body: addDmConversationBody,
      output: dmConversationSchema,
      outputDescription: 'The conversation',
      status: 201,
      errors: [400, 401, 402, 403, 409, 413, 422, 429, 503],
      access: { ...drafting, billing: paidWhenDrafting },
      tool: {
        title: 'Add a DM conversation',
        description:
          'Starts tracking an X direct-message conversation with a person (handle with or without @), or continues ' +
          'it when they are tracked already: messages [{from them|me, text}] are appended to the log as written ' +
          'now, notes replace the notes. With draft: true also drafts the next message in the brand voice (spends ' +
          'credits when a model writes it; guidance steers it). Tracking only: nothing is sent on X; the person ' +
          'writes the message there (sendOnXUrl).',
        hints: writeHints,
        summary: conversationSummary,
      },
      run: (deps, { caller, request }, input) => addDmConversation(deps, caller, input, request),
    }),
    operation({
      name: 'update_dm_conversation',
      kind: 'write',
      method: 'patch',
      path: `${dmsPath}/{conversationId}`,
      tags: ['engagement'],
      summary:
        'Log a message, edit the notes or the draft, close or reopen, or redraft a tracked conversation; sends nothing',
      params: dmConversationParams,
      body: updateDmConversationBody,
      output: dmConversationSchema,
      outputDescription: 'The conversation',
      errors: [400, 401, 402, 403, 404, 409, 413, 422, 429, 503],
      access: { ...drafting, billing: paidWhenDrafting },
      tool: {
        title: 'Update a DM conversation',
        description:
          'Changes a tracked X DM conversation: addMessage {from them|me, text} logs a message written on X (mine ' +
          'spends the draft), notes, draftText (my own draft; empty clears it), status open|closed (closed stays ' +
          'closed until reopened), draft: true redrafts the next message after the other changes (not with ' +
          'draftText; spends credits when a model writes it). Nothing is sent on X.',
        hints: writeHints,
        describe: { conversationId: 'The conversation id (from list_dm_conversations)' },
        summary: conversationSummary,
      },
      run: (deps, { caller, request }, input) => updateDmConversation(deps, caller, input, request),
    }),
    operation({
      name: 'deleteDmConversation',
      kind: 'write',
      method: 'delete',
      path: `${dmsPath}/{conversationId}`,
      tags: ['engagement'],
      summary: 'Stop tracking a conversation and delete its log; nothing changes on X. Answers it as it was',
      params: dmConversationParams,
      output: dmConversationSchema,
      outputDescription: 'The conversation as it was',
      errors: [400, 401, 402, 403, 404, 422, 503],
      access: { permission: 'posts:draft' },
      run: (deps, { caller, request }, input) => deleteDmConversation(deps, caller, input, request),
    }),
    operation({
      name: 'draft_dm',
      kind: 'write',
      method: 'post',
      path: `${dmsPath}/{conversationId}/draft`,
      tags: ['engagement'],
      summary:
        'Draft the next message of a tracked conversation in the brand voice (a reply, a follow-up or an opener); sends nothing',
      params: dmConversationParams,
      body: draftDmBody,
      bodyRequired: false,
      output: dmConversationSchema,
      outputDescription: 'The conversation with its new draft',
      errors: [400, 401, 402, 403, 404, 409, 413, 422, 429, 503],
      access: { ...drafting, billing: 'paid' },
      tool: {
        title: 'Draft a DM',
        description:
          'Drafts the next message of a tracked X DM conversation in the brand voice: a reply to their last ' +
          'message, a follow-up when mine was last, or an opener when none is logged; guidance steers it. The ' +
          'draft (draftText, draftReason) is saved on the conversation; spends credits when a model writes it. ' +
          'Nothing is sent on X.',
        hints: writeHints,
        describe: { conversationId: 'The conversation id (from list_dm_conversations)' },
        summary: conversationSummary,
      },
      run: (deps, { caller, request }, input) => draftDm(deps, caller, input, request),
    }),
  ],
);
