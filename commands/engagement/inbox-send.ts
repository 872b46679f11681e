// POST ORG/engagement/{itemId}/send (send_reply, issue 30): sending is the approval, so it needs posts:publish (owners,
// admins, reviewers; assistants with the posts:publish scope). Exactly once under retries and crashes, as the
// publishing pipeline does it:
// 1. the claim: `InboxReplySending` with the exact text is appended before the platform is called (a second send
//    meanwhile finds the claim and is refused 409 `reply_sending`: one platform call);
// 2. a claim taken over from a send that did not finish (older than the lease), or a send after an unknown outcome,
//    first asks the platform whether the reply is there (`findEngagementReply`) and sends only when it is not;
// 3. the platform call; an unknown outcome (a timeout after sending) is checked the same way before anything else:
//    found, the reply is sent; not found, the item is failed and marked uncertain (the next send checks first);
// 4. the outcome (`sent` with its url, or `failed` with the error) is appended against the claim.
// A sent item sent again with the same text answers as it is, calling nothing.
import { randomUUID } from 'node:crypto';
import {
  inboxItemDecider,
  type InboxItem,
  type InboxItemView,
  type SendOutcome,
} from '../../domain/engagement/inbox-item.js';
import { assistantActorOf, authorize, type Caller } from '../../domain/shared/caller.js';
import { AppError, Conflict, NotFound, ServiceUnavailable } from '../../domain/shared/errors.js';
import type { EngagementReply, EngagementReplyOutcome } from '../../infra/connectors/engagement.js';
import {
  ConnectorError,
  type AccountRef,
  type CallContext,
  type ConnectorRegistry,
} from '../../infra/connectors/port.js';
import { handleCommand, loadAggregate } from '../shared/command-handler.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import type { AccountAccess } from '../social-accounts/account-access.js';
import { decideOnItem, inboxItemStream, itemIn, noMedia, type InboxDeps } from './inbox.js';

export interface SendDeps extends InboxDeps {
  accounts: Pick<AccountAccess, 'resolve' | 'withTokens'>;
  connectors: ConnectorRegistry;
  /** How long a send's claim holds before another send takes it over (default 2 minutes). */
  sendLeaseMs?: number | undefined;
}

const publishing = (orgId: string) =>
  ({ orgId, permission: 'posts:publish', scope: 'posts:publish' }) as const;

interface Replier {
  send(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome>;
  find(context: CallContext, reply: EngagementReply): Promise<EngagementReplyOutcome | null>;
}

/** The platform's account and the connector's reply methods, or the refusal, before anything is claimed. */
async function replierFor(
  deps: SendDeps,
  item: InboxItem,
): Promise<{ account: AccountRef; replier: Replier }> {
  const name = item.platform === 'x' ? 'X' : 'Reddit';
  const resolved = await deps.accounts.resolve({
    orgId: item.orgId,
    platform: item.platform,
    socialAccountId: null,
  });
  if (!resolved.ok) throw new Conflict(`${name}: ${resolved.message}`, `account_${resolved.reason}`);
  const connector = deps.connectors.get(item.platform);
  if (!connector.sendEngagementReply || !connector.findEngagementReply)
    throw new ServiceUnavailable(`Replying on ${name} is not available in this build`, 'replies_unavailable');
  return {
    account: resolved.account,
    replier: {
      send: (context, reply) => connector.sendEngagementReply!(context, reply),
      find: (context, reply) => connector.findEngagementReply!(context, reply),
    },
  };
}

const failureText = (error: unknown): string => {
  if (error instanceof ConnectorError) {
    if (error.kind === 'auth') return `The account needs reconnecting: ${error.message}`;
    if (error.kind === 'rate_limited')
      return `Rate limited by the platform; send again later (${error.message})`;
    return error.message;
  }
  return (error as Error).message;
};

/** The platform call of a claim, checking first when the claim may have been sent already. */
async function attempt(
  deps: SendDeps,
  account: AccountRef,
  replier: Replier,
  reply: EngagementReply,
  checkFirst: boolean,
): Promise<SendOutcome> {
  const onPlatform = <T>(call: (context: CallContext) => Promise<T>) =>
    deps.accounts.withTokens(account, (tokens) => call({ account, tokens, fetchMedia: noMedia }));
  const found = async (): Promise<SendOutcome | null> => {
    const hit = await onPlatform((context) => replier.find(context, reply));
    return hit ? { kind: 'sent', externalId: hit.externalId, url: hit.url } : null;
  };
  try {
    if (checkFirst) {
      const there = await found();
      if (there) return there;
    }
    const sent = await onPlatform((context) => replier.send(context, reply));
    return { kind: 'sent', externalId: sent.externalId, url: sent.url };
  } catch (error) {
    if (!(error instanceof ConnectorError || error instanceof AppError)) throw error;
    if (error instanceof ConnectorError && error.kind === 'unknown_outcome') {
      // Sent, perhaps: ask before anything else.
      try {
        const there = await found();
        if (there) return there;
      } catch {
        // The check failed too: uncertain, as when it finds nothing.
      }
      return {
        kind: 'failed',
        error: `The platform did not answer the send (${error.message}); sending again checks whether it was posted`,
        uncertain: true,
      };
    }
    return {
      kind: 'failed',
      error: failureText(error),
      uncertain: checkFirst && !(error instanceof ConnectorError),
    };
  }
}

/** Tool: send_reply. Sends exactly the approved text (or, with no draft, the text given) once. */
export async function sendReply(
  deps: SendDeps,
  caller: Caller,
  input: { orgId: string; itemId: string; text: string },
  request: WriteRequest,
): Promise<Written<InboxItemView>> {
  const { orgId, itemId } = input;
  authorize(caller, publishing(orgId));
  const assistant = caller.kind === 'assistant' ? { assistant: assistantActorOf(caller) } : {};
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const stream = inboxItemStream(itemId);
    const loaded = await loadAggregate(deps.commands.eventStore, stream, inboxItemDecider);
    if (loaded.state.status !== 'present' || loaded.state.item.orgId !== orgId)
      throw new NotFound('Inbox item not found', 'inbox_item_not_found');
    // Refusals (community post, dismissed, text not the draft) come before the account and the connector.
    inboxItemDecider.decide(
      {
        type: 'StartReplySend',
        orgId,
        itemId,
        attemptId: randomUUID(),
        text: input.text,
        by: caller.userId,
        ...assistant,
        leaseMs: deps.sendLeaseMs,
        now: request.now,
      },
      loaded.state,
    );
    if (loaded.state.item.status === 'sent') return itemIn(loaded.state);
    const { account, replier } = await replierFor(deps, loaded.state.item);
    const attemptId = randomUUID();
    const step = { metadata: { ...metadata, orgId }, idempotencySeed: undefined, scope: 'inbox-send' };
    const claimed = await decideOnItem(
      deps,
      itemId,
      {
        type: 'StartReplySend',
        orgId,
        itemId,
        attemptId,
        text: input.text,
        by: caller.userId,
        ...assistant,
        leaseMs: deps.sendLeaseMs,
        now: request.now,
      },
      step,
    );
    const item = claimed.state.status === 'present' ? claimed.state.item : null;
    // Sent meanwhile (by a twin request): answered as it is.
    if (!item || item.status !== 'sending' || item.claim?.attemptId !== attemptId)
      return itemIn(claimed.state);
    const outcome = await attempt(
      deps,
      account,
      replier,
      { inReplyTo: item.externalPostId, text: item.claim.text },
      item.claim.resumed,
    );
    const recorded = await handleCommand(deps.commands, {
      stream,
      decider: inboxItemDecider,
      command: { type: 'RecordReplyOutcome', orgId, itemId, attemptId, outcome, now: request.now },
      metadata: { ...metadata, orgId },
      sideWrite: record ? (trx, o) => record(trx, itemIn(o.state)) : undefined,
    });
    return itemIn(recorded.state);
  });
}
