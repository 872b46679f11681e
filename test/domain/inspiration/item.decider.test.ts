// The inspiration item decider, rule by rule (issue 31; docs/decisions.md, "Inspiration library (issue 31)"):
// saving (text required for a pasted post, limits, repeated tags once, the same save again deciding nothing), the
// analysis moves pending → processing → ready | failed | skipped (no text), refused out of turn, a stale run
// started again, new text sending it back to pending, the opportunity moves (acted_on final, the same status
// deciding nothing), drafts (generated, edited; in review acting on the item), deleting, and another workspace's
// item not found.
import { describe, expect, test } from 'vitest';
import {
  inspirationDecider,
  opportunityMoves,
  opportunityStatuses,
  type InspirationCommand,
  type InspirationEvent,
  type InspirationSource,
  type OpportunityStatus,
} from '../../../domain/inspiration/item.js';
import { Conflict, NotFound, ValidationError } from '../../../domain/shared/errors.js';
import { deciderSpec } from '../../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const otherOrg = '00000000-0000-4000-8000-000000000002';
const itemId = '00000000-0000-4000-8000-0000000000a1';
const now = '2026-11-29T10:00:00.000Z';
const later = '2026-11-29T10:01:00.000Z';
const muchLater = '2026-11-29T11:00:00.000Z';
const spec = deciderSpec(inspirationDecider);
const ids = { orgId, itemId };

const source: InspirationSource = {
  platform: 'x',
  sourceType: 'manual_text',
  sourceExternalId: null,
  sourceUrl: null,
  authorName: null,
  authorHandle: null,
  authorProfileUrl: null,
  contentText: 'Ship small, ship often.',
  media: null,
  publishedAt: null,
  engagement: null,
  socialAccountId: null,
};
const saved = (changes: Partial<InspirationSource> = {}): InspirationEvent => ({
  type: 'InspirationItemSaved',
  data: { ...ids, ...source, ...changes, notes: null, tags: ['shipping'], createdBy: 'u1', createdAt: now },
});
const save = (
  changes: Partial<InspirationSource> = {},
  tags = ['shipping', ' Shipping '],
): InspirationCommand => ({
  type: 'SaveInspirationItem',
  ...ids,
  source: { ...source, ...changes },
  tags,
  by: 'u1',
  now,
});
const started = (at = later): InspirationEvent => ({
  type: 'InspirationAnalysisStarted',
  data: { ...ids, at },
});
const analysis = {
  topic: 'Shipping',
  hook: 'Ship small, ship often.',
  format: 'insight',
  tone: 'informative',
  audience: 'general professional audience',
  cta: 'none',
  writingFramework: 'hook, body, takeaway',
  keywords: ['ship'],
  qualityScore: 55,
};
const completed: InspirationEvent = {
  type: 'InspirationAnalysisCompleted',
  data: {
    ...ids,
    analysis,
    provider: 'offline',
    model: 'offline',
    promptVersion: 'p/1',
    agentRunId: 'r1',
    at: later,
  },
};
const moved = (from: OpportunityStatus, status: OpportunityStatus): InspirationEvent => ({
  type: 'InspirationOpportunityChanged',
  data: { ...ids, from, status, feedbackReason: null, at: later },
});

describe('saving', () => {
  test('a new item, pending, open; repeated tags kept once', () => {
    spec.given([]).when(save()).then([saved()]);
    spec
      .given([])
      .when(save())
      .thenState((s) => {
        expect(s.status === 'exists' && s.item).toMatchObject({
          analysisStatus: 'pending',
          opportunityStatus: 'open',
        });
      });
  });
  test('a pasted post needs text; a post read by link may have none; limits name the field', () => {
    spec
      .given([])
      .when(save({ contentText: '  ' }))
      .thenThrows(ValidationError, /contentText/);
    spec
      .given([])
      .when(save({ contentText: 'x'.repeat(10_001) }))
      .thenThrows(ValidationError, /contentText/);
    spec
      .given([])
      .when(save({ sourceType: 'manual_url', contentText: '' }))
      .then([saved({ sourceType: 'manual_url', contentText: '' })]);
    spec
      .given([])
      .when(save({}, ['x'.repeat(51)]))
      .thenThrows(ValidationError, /tags\.0/);
  });
  test('the same save again decides nothing; another is a conflict', () => {
    spec.given([saved()]).when(save()).then([]);
    spec
      .given([saved()])
      .when(save({ contentText: 'Other' }))
      .thenThrows(Conflict);
  });
});

describe('analysisStatus', () => {
  const start: InspirationCommand = { type: 'StartAnalysis', ...ids, now: later };
  const complete: InspirationCommand = {
    type: 'CompleteAnalysis',
    ...ids,
    analysis,
    provider: 'offline',
    model: 'offline',
    promptVersion: 'p/1',
    agentRunId: 'r1',
    now: later,
  };
  const fail: InspirationCommand = { type: 'FailAnalysis', ...ids, error: 'provider down', now: later };

  test('pending → processing → ready', () => {
    spec.given([saved()]).when(start).then([started()]);
    spec.given([saved(), started()]).when(complete).then([completed]);
    spec
      .given([saved(), started(), completed])
      .when(start)
      .thenState((s) => expect(s.status === 'exists' && s.item.analysisStatus).toBe('processing'));
  });
  test('processing → failed, with the reason; failed → processing again', () => {
    spec
      .given([saved(), started()])
      .when(fail)
      .then([{ type: 'InspirationAnalysisFailed', data: { ...ids, error: 'provider down', at: later } }]);
    spec
      .given([
        saved(),
        started(),
        { type: 'InspirationAnalysisFailed', data: { ...ids, error: 'x', at: later } },
      ])
      .when(start)
      .then([started()]);
  });
  test('no text: skipped', () => {
    spec
      .given([saved({ sourceType: 'manual_url', contentText: '' })])
      .when(start)
      .then([
        {
          type: 'InspirationAnalysisSkipped',
          data: { ...ids, reason: 'The item has no text to analyse', at: later },
        },
      ]);
  });
  test('out of turn: completing or failing what is not processing, or starting twice, is refused; a stale run starts again', () => {
    spec
      .given([saved()])
      .when(complete)
      .thenThrows(Conflict, /pending, not processing/);
    spec.given([saved(), started(), completed]).when(fail).thenThrows(Conflict);
    spec
      .given([saved(), started()])
      .when(start)
      .thenThrows(Conflict, /being analysed/);
    spec
      .given([saved(), started()])
      .when({ ...start, now: muchLater })
      .then([started(muchLater)]);
  });
  test('new text sends a ready analysis back to pending; other edits keep it', () => {
    const edit = (
      fields: Partial<Extract<InspirationCommand, { type: 'EditInspirationItem' }>>,
    ): InspirationCommand => ({
      type: 'EditInspirationItem',
      ...ids,
      now: later,
      ...fields,
    });
    spec
      .given([saved(), started(), completed])
      .when(edit({ contentText: 'New words.' }))
      .thenState((s) =>
        expect(s.status === 'exists' && [s.item.analysisStatus, s.item.analysis]).toEqual(['pending', null]),
      );
    spec
      .given([saved(), started(), completed])
      .when(edit({ notes: 'a note' }))
      .thenState((s) => expect(s.status === 'exists' && s.item.analysisStatus).toBe('ready'));
    spec
      .given([saved()])
      .when(edit({ tags: ['shipping'] }))
      .then([]);
  });
});

describe('opportunityStatus', () => {
  const change = (status: OpportunityStatus): InspirationCommand => ({
    type: 'ChangeOpportunity',
    ...ids,
    status,
    feedbackReason: 'why',
    now: later,
  });
  const reach = (status: OpportunityStatus): InspirationEvent[] =>
    status === 'open' ? [saved()] : [saved(), moved('open', status)];

  test('every move in the table is decided, every other refused; the same status decides nothing', () => {
    for (const from of opportunityStatuses)
      for (const to of opportunityStatuses) {
        const when = spec.given(reach(from)).when(change(to));
        if (from === to) when.then([]);
        else if (opportunityMoves[from].includes(to))
          when.then([
            {
              type: 'InspirationOpportunityChanged',
              data: { ...ids, from, status: to, feedbackReason: 'why', at: later },
            },
          ]);
        else when.thenThrows(Conflict, /cannot become/);
      }
  });
  test('acted_on is final; hidden and dismissed come back', () => {
    expect(opportunityMoves.acted_on).toEqual([]);
    expect(opportunityMoves.hidden).toContain('open');
    expect(opportunityMoves.dismissed).toContain('open');
  });
});

describe('drafts and deleting', () => {
  const drafts = [{ destination: 'x' as const, styleKey: 'listicle', text: 'Draft' }];
  test('generated drafts in review act on the item; without review they do not', () => {
    spec
      .given([saved()])
      .when({ type: 'RecordDrafts', ...ids, drafts, agentRunId: 'r2', reviewGroupId: 'g1', now: later })
      .then([
        {
          type: 'InspirationDraftsSet',
          data: { ...ids, drafts, source: 'generated', agentRunId: 'r2', reviewGroupId: 'g1', at: later },
        },
        moved('open', 'acted_on'),
      ]);
    spec
      .given([saved()])
      .when({ type: 'RecordDrafts', ...ids, drafts, agentRunId: 'r2', reviewGroupId: null, now: later })
      .thenState((s) =>
        expect(s.status === 'exists' && [s.item.opportunityStatus, s.item.generatedAt]).toEqual([
          'open',
          later,
        ]),
      );
  });
  test('deleted: gone, and every later command is not found; another workspace never finds it', () => {
    spec
      .given([saved()])
      .when({ type: 'DeleteInspirationItem', ...ids, now: later })
      .then([{ type: 'InspirationItemDeleted', data: { ...ids, deletedAt: later } }]);
    const deleted: InspirationEvent = { type: 'InspirationItemDeleted', data: { ...ids, deletedAt: later } };
    spec
      .given([saved(), deleted])
      .when({ type: 'StartAnalysis', ...ids, now: later })
      .thenThrows(NotFound);
    spec
      .given([saved()])
      .when({ type: 'StartAnalysis', itemId, orgId: otherOrg, now: later })
      .thenThrows(NotFound);
  });
});
