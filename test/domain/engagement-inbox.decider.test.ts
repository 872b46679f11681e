// The reply inbox item decider, row by row of the spec's state table ("inbox item": PATCH status drafted brings a
// dismissed item back, never posting; dismissed; sent records a reply posted by hand, nothing posted; POST send:
// sent on success, sending is the approval, exact text required, X community posts cannot be answered; refresh and
// draft leave new items drafted, posting nothing) and the moves the spec leaves unshown (docs/decisions.md, "Reply
// inbox (issue 30)"): found once, the claim before the platform call, its lease and take-over, failed and retried.
import { describe, expect, test } from 'vitest';
import {
  inboxItemDecider,
  inboxItemIdOf,
  inboxItemView,
  inboxLimits,
  type FoundPost,
  type InboxItemCommand,
  type InboxItemEvent,
  type InboxItemState,
} from '../../domain/engagement/inbox-item.js';
import { inboxItemEventCodec } from '../../domain/engagement/event-codec.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, Forbidden, InvalidFields, NotFound } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const userId = '00000000-0000-4000-8000-000000000011';
const itemId = inboxItemIdOf(orgId, 'x', '1790000000000000001');
const t0 = '2026-11-20T10:00:00.000Z';
const t1 = '2026-11-20T10:01:00.000Z';
const later = '2026-11-20T10:30:00.000Z';
const spec = deciderSpec(inboxItemDecider);

const post = (changes: Partial<FoundPost> = {}): FoundPost => ({
  orgId,
  itemId,
  platform: 'x',
  kind: 'mention',
  externalPostId: '1790000000000000001',
  url: 'https://x.com/alex/status/1790000000000000001',
  text: '@acme how do you schedule threads?',
  author: { handle: 'alex', name: 'Alex', followers: 1200 },
  postedAt: t0,
  likeCount: 3,
  replyCount: 1,
  inReplyToText: null,
  matchedBy: 'mention',
  feedId: null,
  title: null,
  community: null,
  relevance: 70,
  ...changes,
});
const found = (changes: Partial<FoundPost> = {}): InboxItemEvent => ({
  type: 'InboxItemFound',
  data: { ...post(changes), at: t0 },
});
const draft = (text: string | null, at = t0): InboxItemEvent => ({
  type: 'InboxDraftChanged',
  data: {
    orgId,
    itemId,
    draftText: text,
    draftReason: null,
    source: 'user',
    agentRunId: null,
    assistant: null,
    at,
  },
});
const dismissed: InboxItemEvent = { type: 'InboxItemDismissed', data: { orgId, itemId, by: userId, at: t0 } };
const sending = (attemptId: string, text: string, at = t0, resumed = false): InboxItemEvent => ({
  type: 'InboxReplySending',
  data: { orgId, itemId, attemptId, text, resumed, by: userId, at },
});
const update = (
  changes: Partial<Extract<InboxItemCommand, { type: 'UpdateInboxItem' }>>,
): InboxItemCommand => ({
  type: 'UpdateInboxItem',
  orgId,
  itemId,
  by: userId,
  now: t1,
  ...changes,
});
const send = (text: string, attemptId = 'a1', now = t1): InboxItemCommand => ({
  type: 'StartReplySend',
  orgId,
  itemId,
  attemptId,
  text,
  by: userId,
  now,
});
const outcome = (
  attemptId: string,
  o: Extract<InboxItemCommand, { type: 'RecordReplyOutcome' }>['outcome'],
) => ({ type: 'RecordReplyOutcome', orgId, itemId, attemptId, outcome: o, now: t1 }) as InboxItemCommand;
const statusAfter = (events: InboxItemEvent[]) => {
  const state: InboxItemState = fold(inboxItemDecider, events);
  return state.status === 'present' ? state.item.status : 'absent';
};

describe('found by a refresh', () => {
  test('a new post is recorded new; found again, the item stays untouched', () => {
    spec.given([]).when({ type: 'RecordInboxItem', post: post(), now: t0 }).then([found()]);
    spec
      .given([found(), draft('Thanks!')])
      .when({ type: 'RecordInboxItem', post: post({ text: 'edited' }), now: t1 })
      .then([]);
  });
  test('the id is one per workspace, platform and post', () => {
    expect(inboxItemIdOf(orgId, 'x', '1')).toBe(inboxItemIdOf(orgId, 'x', '1'));
    expect(inboxItemIdOf(orgId, 'x', '1')).not.toBe(inboxItemIdOf(orgId, 'reddit', '1'));
    expect(inboxItemIdOf(orgId, 'x', '1')).not.toBe(inboxItemIdOf(otherOrg, 'x', '1'));
  });
});

describe('PATCH (state table rows: drafted, dismissed, sent; never posts)', () => {
  test('draftText makes a new item drafted; clearing it makes it new again', () => {
    spec
      .given([found()])
      .when(update({ draftText: 'Thanks!' }))
      .then([
        {
          type: 'InboxDraftChanged',
          data: {
            orgId,
            itemId,
            draftText: 'Thanks!',
            draftReason: null,
            source: 'user',
            agentRunId: null,
            assistant: null,
            at: t1,
          },
        },
      ]);
    expect(statusAfter([found(), draft('Thanks!')])).toBe('drafted');
    expect(statusAfter([found(), draft('Thanks!'), draft(null)])).toBe('new');
    spec
      .given([found(), draft('Thanks!')])
      .when(update({ draftText: '  ' }))
      .thenState((s) => {
        expect(s.status === 'present' && s.item.status).toBe('new');
      });
  });
  test('status drafted brings a dismissed item back', () => {
    spec
      .given([found(), dismissed])
      .when(update({ status: 'drafted' }))
      .then([{ type: 'InboxItemReopened', data: { orgId, itemId, by: userId, at: t1 } }]);
    expect(
      statusAfter([
        found(),
        dismissed,
        { type: 'InboxItemReopened', data: { orgId, itemId, by: userId, at: t1 } },
      ]),
    ).toBe('drafted');
  });
  test('status dismissed dismisses; again changes nothing', () => {
    spec
      .given([found(), draft('x')])
      .when(update({ status: 'dismissed' }))
      .then([{ type: 'InboxItemDismissed', data: { orgId, itemId, by: userId, at: t1 } }]);
    spec
      .given([found(), dismissed])
      .when(update({ status: 'dismissed' }))
      .then([]);
  });
  test('status sent records a reply posted by hand (no url: nothing was posted from here)', () => {
    spec
      .given([found()])
      .when(update({ status: 'sent' }))
      .thenState((s) => {
        expect(s.status === 'present' && s.item.status).toBe('sent');
        expect(s.status === 'present' && s.item.sentUrl).toBe(null);
      });
  });
  test('a sent item cannot be dismissed; one sent from here cannot be redrafted', () => {
    const sent: InboxItemEvent[] = [
      found(),
      sending('a1', 'Hi'),
      {
        type: 'InboxReplySent',
        data: { orgId, itemId, attemptId: 'a1', externalId: '9', url: 'https://x.com/acme/status/9', at: t1 },
      },
    ];
    spec
      .given(sent)
      .when(update({ status: 'dismissed' }))
      .thenThrows(Conflict);
    spec
      .given(sent)
      .when(update({ status: 'drafted' }))
      .thenThrows(Conflict);
    spec
      .given(sent)
      .when(update({ draftText: 'other' }))
      .thenThrows(Conflict);
  });
  test('nothing changes while a send is under way', () => {
    spec
      .given([found(), sending('a1', 'Hi')])
      .when(update({ status: 'dismissed' }))
      .thenThrows(Conflict, /being sent/);
  });
  test("another workspace's item is not found; an X draft over 280 is refused", () => {
    spec
      .given([found()])
      .when(update({ orgId: otherOrg, status: 'dismissed' }))
      .thenThrows(NotFound);
    spec
      .given([])
      .when(update({ status: 'dismissed' }))
      .thenThrows(NotFound);
    spec
      .given([found()])
      .when(update({ draftText: 'a'.repeat(281) }))
      .thenThrows(InvalidFields);
    spec
      .given([found({ platform: 'reddit' })])
      .when(update({ draftText: 'a'.repeat(281) }))
      .thenState((s) => {
        expect(s.status === 'present' && s.item.status).toBe('drafted');
      });
  });
});

describe('draft (POST …/draft): new items drafted, nothing posted', () => {
  const write = (agentRunId: string): InboxItemCommand => ({
    type: 'WriteInboxDraft',
    orgId,
    itemId,
    draftText: 'Happy to help!',
    draftReason: 'Answers the question',
    source: 'heuristic',
    agentRunId,
    now: t1,
  });
  test('drafted; the same run again changes nothing', () => {
    spec
      .given([found()])
      .when(write('r1'))
      .thenState((s) => {
        expect(s.status === 'present' && s.item).toMatchObject({
          status: 'drafted',
          draftText: 'Happy to help!',
          draftReason: 'Answers the question',
        });
      });
    const after = [
      found(),
      {
        type: 'InboxDraftChanged',
        data: {
          orgId,
          itemId,
          draftText: 'Happy to help!',
          draftReason: 'r',
          source: 'heuristic',
          agentRunId: 'r1',
          at: t1,
        },
      } as InboxItemEvent,
    ];
    spec.given(after).when(write('r1')).then([]);
  });
});

describe('an assistant never sends (approves) what an assistant wrote', () => {
  const claude = { clientId: 'client-1', clientName: 'Claude' };
  const other = { clientId: 'client-2', clientName: 'Another assistant' };
  const assistantDraft = (text: string, assistant = claude): InboxItemEvent => ({
    type: 'InboxDraftChanged',
    data: {
      orgId,
      itemId,
      draftText: text,
      draftReason: null,
      source: 'user',
      agentRunId: null,
      assistant,
      at: t0,
    },
  });
  const assistantSend = (text: string, assistant = claude): InboxItemCommand => ({
    ...(send(text) as Extract<InboxItemCommand, { type: 'StartReplySend' }>),
    assistant,
  });
  test("a draft by hand or asked for by an assistant records it; a person's edit makes it the person's", () => {
    spec
      .given([found()])
      .when(update({ draftText: 'Hi!', assistant: claude }))
      .thenState((s) => expect(s.status === 'present' && s.item.draftedByAssistant).toEqual(claude));
    spec
      .given([found()])
      .when({
        type: 'WriteInboxDraft',
        orgId,
        itemId,
        draftText: 'Hi!',
        draftReason: 'r',
        source: 'ai',
        agentRunId: 'r1',
        assistant: claude,
        now: t1,
      })
      .thenState((s) => expect(s.status === 'present' && s.item.draftedByAssistant).toEqual(claude));
    spec
      .given([found(), assistantDraft('Hi!')])
      .when(update({ draftText: 'Hello!' }))
      .thenState((s) => expect(s.status === 'present' && s.item.draftedByAssistant).toBeNull());
  });
  test("no assistant sends an assistant's draft, nor a text of its own; any assistant sends a person's draft", () => {
    spec
      .given([found(), assistantDraft('Hi!')])
      .when(assistantSend('Hi!'))
      .thenThrows(Forbidden, /assistant/);
    spec
      .given([found(), assistantDraft('Hi!')])
      .when(assistantSend('Hi!', other))
      .thenThrows(Forbidden, /assistant/);
    spec
      .given([found()])
      .when(assistantSend('My own words'))
      .thenThrows(Forbidden, /approval/);
    spec
      .given([found(), draft('Thanks!')])
      .when(assistantSend('Thanks!'))
      .then([sending('a1', 'Thanks!', t1)]);
    // A person sends an assistant's draft: that is the approval.
    spec
      .given([found(), assistantDraft('Hi!')])
      .when(send('Hi!'))
      .then([sending('a1', 'Hi!', t1)]);
    // A failed send of an assistant's draft stays the assistant's: an assistant may not retry it either.
    spec
      .given([
        found(),
        assistantDraft('Hi!'),
        sending('a0', 'Hi!'),
        {
          type: 'InboxReplyFailed',
          data: { orgId, itemId, attemptId: 'a0', error: 'x', uncertain: false, at: t0 },
        },
      ])
      .when(assistantSend('Hi!'))
      .thenThrows(Forbidden);
  });
  test('drafts stored before the data named the assistant are read from the metadata', () => {
    const decoded = inboxItemEventCodec.decode({
      streamName: `inboxItem-${itemId}`,
      revision: 1,
      type: 'InboxDraftChanged',
      data: { orgId, itemId, draftText: 'Hi!', draftReason: null, source: 'user', agentRunId: null, at: t0 },
      metadata: { actor: 'assistant:client-9', assistant: { clientName: 'Old assistant' } },
    } as never);
    const person = inboxItemEventCodec.decode({
      streamName: `inboxItem-${itemId}`,
      revision: 1,
      type: 'InboxDraftChanged',
      data: { orgId, itemId, draftText: 'Hi!', draftReason: null, source: 'user', agentRunId: null, at: t0 },
      metadata: { actor: userId },
    } as never);
    expect(person.type === 'InboxDraftChanged' && person.data.assistant).toBeNull();
    expect(decoded.type === 'InboxDraftChanged' && decoded.data.assistant).toEqual({
      clientId: 'client-9',
      clientName: 'Old assistant',
    });
  });
});

describe('POST send (sending is the approval; exact text; sent on success)', () => {
  test('the claim (sending, with the text) comes first; success makes it sent', () => {
    spec
      .given([found(), draft('Thanks!')])
      .when(send('Thanks!'))
      .then([sending('a1', 'Thanks!', t1)]);
    spec
      .given([found(), draft('Thanks!'), sending('a1', 'Thanks!')])
      .when(outcome('a1', { kind: 'sent', externalId: '9', url: 'https://x.com/acme/status/9' }))
      .thenState((s) => {
        expect(s.status === 'present' && s.item).toMatchObject({
          status: 'sent',
          sentUrl: 'https://x.com/acme/status/9',
          sentText: 'Thanks!',
        });
      });
  });
  test('the text must equal the draft exactly; with no draft it is the text sent', () => {
    spec
      .given([found(), draft('Thanks!')])
      .when(send('Thanks! '))
      .thenThrows(Conflict, /approved draft/);
    spec
      .given([found()])
      .when(send('Written now'))
      .then([sending('a1', 'Written now', t1)]);
    spec.given([found()]).when(send('   ')).thenThrows(InvalidFields);
    spec
      .given([found()])
      .when(send('a'.repeat(281)))
      .thenThrows(InvalidFields);
  });
  test('X community posts cannot be answered through the API', () => {
    spec
      .given([found({ kind: 'community', community: 'Builders' })])
      .when(send('Hi'))
      .thenThrows(Conflict, /community/);
    const state = fold(inboxItemDecider, [found({ kind: 'community' })]);
    if (state.status !== 'present') throw new Error('expected an item');
    expect(inboxItemView(state.item)).toMatchObject({
      canSendFromApp: false,
      replyOnXUrl: 'https://x.com/intent/post?in_reply_to=1790000000000000001',
    });
  });
  test('a dismissed item is brought back first; a sent one answers the same text once', () => {
    spec
      .given([found(), dismissed])
      .when(send('Hi'))
      .thenThrows(Conflict, /dismissed/);
    const sent = [
      found(),
      sending('a1', 'Hi'),
      {
        type: 'InboxReplySent',
        data: { orgId, itemId, attemptId: 'a1', externalId: '9', url: 'u', at: t1 },
      } as InboxItemEvent,
    ];
    spec.given(sent).when(send('Hi', 'a2')).then([]);
    spec
      .given(sent)
      .when(send('Other', 'a2'))
      .thenThrows(Conflict, /answered/);
  });
  test('a claim held by another send refuses a second (one platform call); its own attempt goes on', () => {
    spec
      .given([found(), sending('a1', 'Hi', t0)])
      .when(send('Hi', 'a2', t1))
      .thenThrows(Conflict, /being sent/);
    spec
      .given([found(), sending('a1', 'Hi', t0)])
      .when(send('Hi', 'a1', t1))
      .then([]);
  });
  test('a claim older than the lease (its sender crashed) is taken over with the same text, checking first', () => {
    const stale = new Date(Date.parse(t0) + inboxLimits.sendLeaseMs).toISOString();
    spec
      .given([found(), sending('a1', 'Hi', t0)])
      .when(send('Hi', 'a2', stale))
      .then([sending('a2', 'Hi', stale, true)]);
    spec
      .given([found(), sending('a1', 'Hi', t0)])
      .when(send('Other', 'a2', later))
      .thenThrows(Conflict, /another text/);
  });
  test('a failure makes it failed (sendable again); an unknown outcome makes the next send check first', () => {
    const failedUncertain = [
      found(),
      sending('a1', 'Hi'),
      {
        type: 'InboxReplyFailed',
        data: { orgId, itemId, attemptId: 'a1', error: 'timeout', uncertain: true, at: t1 },
      } as InboxItemEvent,
    ];
    expect(statusAfter(failedUncertain)).toBe('failed');
    spec
      .given(failedUncertain)
      .when(send('Hi', 'a2'))
      .then([sending('a2', 'Hi', t1, true)]);
  });
  test("another attempt's outcome, or one recorded already, changes nothing", () => {
    spec
      .given([found(), sending('a2', 'Hi')])
      .when(outcome('a1', { kind: 'failed', error: 'x', uncertain: false }))
      .then([]);
    spec
      .given([found()])
      .when(outcome('a1', { kind: 'failed', error: 'x', uncertain: false }))
      .then([]);
  });
});
