// The content strategy decider, rule by rule (docs/decisions.md, "Content strategy"): PATCH edits what GET shows or
// starts a draft; generate proposes a draft (replacing a pending one) or, with replaceActive, the active version;
// confirm activates the draft and supersedes the active one, or confirms the active one in place; priorities and
// recommendations act on the version shown; the content rules name their fields; priorities expire at read time.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields, NotFound, Unprocessable } from '../../domain/shared/errors.js';
import {
  activeVersionOf,
  draftVersionOf,
  emptyContent,
  priorityStatusAt,
  shownVersionOf,
  strategyDecider,
  type StrategyCommand,
  type StrategyContent,
  type StrategyEvent,
} from '../../domain/strategy/strategy.js';
import { strategyView } from '../../domain/strategy/views.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const strategyId = '00000000-0000-4000-8000-0000000000aa';
const user = '00000000-0000-4000-8000-0000000000b1';
const t0 = '2026-11-22T10:00:00.000Z';
const t1 = '2026-11-22T11:00:00.000Z';
const t2 = '2026-11-22T12:00:00.000Z';
const spec = deciderSpec(strategyDecider);

const content = (over: Partial<StrategyContent> = {}): StrategyContent => ({
  ...emptyContent,
  primaryObjective: 'Win 20 demos a month',
  targetAudience: 'Heads of marketing at B2B SaaS companies',
  pillars: [{ id: 'p1', name: 'Pipeline math', priority: 1 }],
  channelPriorities: [{ platform: 'linkedin', enabled: true, postsPerWeek: 3 }],
  contentMix: [
    { contentType: 'educational', targetPercent: 60 },
    { contentType: 'promotional', targetPercent: 40 },
  ],
  ...over,
});

const acting = (now = t1) => ({ orgId, strategyId, idSeed: 'seed', by: user, now });
const base = (version: number) => ({ orgId, strategyId, version });

const created = (
  version: number,
  status: 'draft' | 'active',
  c: StrategyContent = content(),
  source: 'ai' | 'heuristic' | 'user' = 'heuristic',
  at = t0,
): StrategyEvent => ({
  type: 'StrategyVersionCreated',
  data: {
    ...base(version),
    status,
    content: c,
    source,
    providerModel: source === 'user' ? null : 'offline',
    agentRunId: source === 'user' ? null : `run-${version}`,
    createdAt: at,
    createdBy: user,
  },
});
const confirmed = (version: number, activated: boolean, at = t0): StrategyEvent => ({
  type: 'StrategyVersionConfirmed',
  data: { ...base(version), activated, confirmedAt: at, confirmedBy: user },
});
const superseded = (version: number, by: number, at = t1): StrategyEvent => ({
  type: 'StrategyVersionSuperseded',
  data: { ...base(version), supersededBy: by, supersededAt: at },
});

const generate = (replaceActive: boolean, c: StrategyContent = content()): StrategyCommand => ({
  type: 'GenerateStrategy',
  ...acting(),
  content: c,
  source: 'heuristic',
  providerModel: 'offline',
  agentRunId: 'run-new',
  replaceActive,
});
const edit = (changes: Extract<StrategyCommand, { type: 'EditStrategy' }>['changes']): StrategyCommand => ({
  type: 'EditStrategy',
  ...acting(),
  changes,
});
const confirm = (
  updates?: Extract<StrategyCommand, { type: 'EditStrategy' }>['changes'],
): StrategyCommand => ({
  type: 'ConfirmStrategy',
  ...acting(),
  ...(updates ? { updates } : {}),
});

const draftOnly = [created(1, 'draft')];
const activeOnly = [created(1, 'draft'), confirmed(1, true)];
const activeAndDraft = [...activeOnly, created(2, 'draft', content({ primaryObjective: 'Launch v2' }))];

const refusedFields = (command: StrategyCommand, events: StrategyEvent[] = activeOnly): string[] => {
  try {
    strategyDecider.decide(command, fold(strategyDecider, events));
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidFields);
    return ((error as InvalidFields).details ?? []).map((d) => d.path);
  }
  throw new Error('expected the command to be refused');
};

describe('PATCH: edits what GET shows, or starts a draft', () => {
  test('with no strategy, a PATCH writes the first version as a draft of the user', () => {
    spec
      .given([])
      .when(edit({ primaryObjective: 'Be known for pipeline advice' }))
      .then([
        created(
          1,
          'draft',
          { ...emptyContent, primaryObjective: 'Be known for pipeline advice' },
          'user',
          t1,
        ),
      ]);
  });

  test('with an active version, the active version is edited in place (no new version)', () => {
    spec
      .given(activeAndDraft.slice(0, 2))
      .when(edit({ targetAudience: 'Founders' }))
      .then([
        {
          type: 'StrategyVersionEdited',
          data: {
            ...base(1),
            content: content({ targetAudience: 'Founders' }),
            editedAt: t1,
            editedBy: user,
          },
        },
      ]);
  });

  test('with an active version and a pending draft, PATCH still edits the active one (what GET shows)', () => {
    spec
      .given(activeAndDraft)
      .when(edit({ targetAudience: 'Founders' }))
      .thenState((s) => {
        expect(activeVersionOf(s)?.content.targetAudience).toBe('Founders');
        expect(draftVersionOf(s)?.content.targetAudience).toBe(content().targetAudience);
      });
  });

  test('with only a draft, the draft is edited', () => {
    spec
      .given(draftOnly)
      .when(edit({ guardrailNotes: ['No competitor names'] }))
      .thenState((s) => expect(draftVersionOf(s)?.content.guardrailNotes).toEqual(['No competitor names']));
  });

  test('an edit that changes nothing decides nothing', () => {
    spec
      .given(activeOnly)
      .when(edit({ primaryObjective: content().primaryObjective }))
      .then([]);
  });

  test('a pillar sent without an id keeps the id of the pillar of that name; a new one gets a new id', () => {
    spec
      .given(activeOnly)
      .when(edit({ pillars: [{ name: 'pipeline math' }, { name: 'Hiring' }] }))
      .thenState((s) => {
        const pillars = activeVersionOf(s)!.content.pillars;
        expect(pillars[0]!.id).toBe('p1');
        expect(pillars[1]!.id).toMatch(/^[0-9a-f-]{36}$/);
      });
  });
});

describe('generate: a draft to confirm, or with replaceActive the active version', () => {
  test('with nothing yet, generate writes version 1 as a draft', () => {
    spec
      .given([])
      .when(generate(false))
      .thenState((s) => {
        expect(draftVersionOf(s)?.version).toBe(1);
        expect(activeVersionOf(s)).toBeNull();
        expect(draftVersionOf(s)?.generatedAt).toBe(t1);
      });
  });

  test('a new proposal supersedes the draft nobody confirmed', () => {
    spec
      .given(draftOnly)
      .when(generate(false))
      .then([
        superseded(1, 2),
        {
          type: 'StrategyVersionCreated',
          data: {
            ...base(2),
            status: 'draft',
            content: content(),
            source: 'heuristic',
            providerModel: 'offline',
            agentRunId: 'run-new',
            createdAt: t1,
            createdBy: user,
          },
        },
      ]);
  });

  test('beside an active version it proposes a draft and leaves the active one running (its lastSuggestedAt moves)', () => {
    spec
      .given(activeOnly)
      .when(generate(false))
      .thenState((s) => {
        expect(activeVersionOf(s)?.version).toBe(1);
        expect(activeVersionOf(s)?.lastSuggestedAt).toBe(t1);
        expect(draftVersionOf(s)?.version).toBe(2);
      });
  });

  test('replaceActive makes the new version active at once, unconfirmed, superseding the active one and any draft', () => {
    spec
      .given(activeAndDraft)
      .when(generate(true))
      .thenState((s) => {
        const active = activeVersionOf(s)!;
        expect(active.version).toBe(3);
        expect(active.confirmedAt).toBeNull();
        expect(draftVersionOf(s)).toBeNull();
        expect(s.status === 'exists' && [s.versions[1]!.status, s.versions[2]!.status]).toEqual([
          'superseded',
          'superseded',
        ]);
      });
  });

  test('the same agent run again (a retried request) generates nothing new', () => {
    const once = [
      ...activeOnly,
      ...strategyDecider.decide(generate(false), fold(strategyDecider, activeOnly)),
    ];
    spec.given(once).when(generate(false)).then([]);
    spec.given(once).when(generate(true)).then([]);
  });

  test('generated content is held to the same rules (a mix not summing to 100 is refused)', () => {
    const bad = content({ contentMix: [{ contentType: 'educational', targetPercent: 90 }] });
    expect(refusedFields(generate(false, bad), [])).toEqual(['contentMix']);
  });
});

describe('confirm', () => {
  test('a pending draft becomes the active version; the previous active version is superseded', () => {
    spec
      .given(activeAndDraft)
      .when(confirm())
      .then([
        superseded(1, 2),
        {
          type: 'StrategyVersionConfirmed',
          data: { ...base(2), activated: true, confirmedAt: t1, confirmedBy: user },
        },
      ]);
  });

  test('updates are applied to the draft before it is activated', () => {
    spec
      .given(draftOnly)
      .when(confirm({ primaryObjective: 'Own the category' }))
      .thenState((s) => {
        const active = activeVersionOf(s)!;
        expect(active.content.primaryObjective).toBe('Own the category');
        expect(active.confirmedAt).toBe(t1);
        expect(active.confirmedBy).toBe(user);
        expect(active.lastEditedAt).toBe(t1);
      });
  });

  test('without a draft, the active version (made active by generate) is confirmed in place', () => {
    spec
      .given([created(1, 'active')])
      .when(confirm())
      .then([
        {
          type: 'StrategyVersionConfirmed',
          data: { ...base(1), activated: false, confirmedAt: t1, confirmedBy: user },
        },
      ]);
  });

  test('confirming a confirmed active version again with no updates decides nothing', () => {
    spec.given(activeOnly).when(confirm()).then([]);
  });

  test('with no strategy there is nothing to confirm (404)', () => {
    spec
      .given([])
      .when(confirm())
      .thenThrows(NotFound, /no strategy to confirm/);
  });

  test('a version without an objective, an audience or a pillar cannot be confirmed (422 naming them)', () => {
    const state = fold(strategyDecider, [created(1, 'draft', emptyContent, 'user')]);
    try {
      strategyDecider.decide(confirm(), state);
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(Unprocessable);
      expect((error as Unprocessable).details?.map((d) => d.path)).toEqual([
        'primaryObjective',
        'targetAudience',
        'pillars',
      ]);
    }
  });
});

describe('content rules, each naming its field', () => {
  test('the content mix sums to 100', () => {
    expect(
      refusedFields(
        edit({
          contentMix: [
            { contentType: 'educational', targetPercent: 50 },
            { contentType: 'opinion', targetPercent: 30 },
          ],
        }),
      ),
    ).toEqual(['contentMix']);
    spec
      .given(activeOnly)
      .when(
        edit({
          contentMix: [
            { contentType: 'educational', targetPercent: 33.3 },
            { contentType: 'opinion', targetPercent: 33.3 },
            { contentType: 'personal', targetPercent: 33.4 },
          ],
        }),
      )
      .thenState((s) => expect(activeVersionOf(s)!.content.contentMix).toHaveLength(3));
  });

  test('an empty content mix is allowed (no targets)', () => {
    spec
      .given(activeOnly)
      .when(edit({ contentMix: [] }))
      .thenState((s) => expect(activeVersionOf(s)!.content.contentMix).toEqual([]));
  });

  test('each content type at most once', () => {
    expect(
      refusedFields(
        edit({
          contentMix: [
            { contentType: 'educational', targetPercent: 50 },
            { contentType: 'educational', targetPercent: 50 },
          ],
        }),
      ),
    ).toEqual(['contentMix.1.contentType']);
  });

  test('pillars: a name is required, names and ids are unique, priority is an integer', () => {
    expect(refusedFields(edit({ pillars: [{ name: '  ' }] }))).toContain('pillars.0.name');
    expect(refusedFields(edit({ pillars: [{ name: 'Growth' }, { name: 'growth ' }] }))).toEqual([
      'pillars.1.name',
    ]);
    expect(
      refusedFields(
        edit({
          pillars: [
            { id: 'a', name: 'One' },
            { id: 'a', name: 'Two' },
          ],
        }),
      ),
    ).toEqual(['pillars.1.id']);
    expect(refusedFields(edit({ pillars: [{ name: 'One', priority: 1.5 }] }))).toEqual([
      'pillars.0.priority',
    ]);
  });

  test('channel priorities: each platform once, postsPerWeek within bounds', () => {
    expect(
      refusedFields(
        edit({ channelPriorities: [{ platform: 'x' }, { platform: 'linkedin' }, { platform: 'x' }] }),
      ),
    ).toEqual(['channelPriorities.2.platform']);
    expect(refusedFields(edit({ channelPriorities: [{ platform: 'x', postsPerWeek: -1 }] }))).toEqual([
      'channelPriorities.0.postsPerWeek',
    ]);
  });

  test("a priority's end comes after its start", () => {
    expect(
      refusedFields(edit({ priorities: [{ id: 'q', text: 'Launch', startsAt: t1, endsAt: t0 }] })),
    ).toEqual(['priorities.0.endsAt']);
  });
});

describe('priorities', () => {
  const add = (endsAt: string | null, id = 'prio-1'): StrategyCommand => ({
    type: 'AddStrategyPriority',
    ...acting(),
    priorityId: id,
    text: ' Black Friday ',
    startsAt: t1,
    endsAt,
  });

  test('a priority is added to the version GET shows, active, with who added it', () => {
    spec
      .given(activeAndDraft)
      .when(add(t2))
      .then([
        {
          type: 'StrategyPriorityAdded',
          data: {
            ...base(1),
            priority: {
              id: 'prio-1',
              text: 'Black Friday',
              startsAt: t1,
              endsAt: t2,
              status: 'active',
              createdAt: t1,
              createdBy: user,
            },
            addedAt: t1,
          },
        },
      ]);
  });

  test('an end not after the start is refused naming endsAt; no strategy is a 404; the same id again is nothing', () => {
    spec
      .given(activeOnly)
      .when(add(t0))
      .thenThrows(InvalidFields, /Invalid priority/);
    spec.given([]).when(add(null)).thenThrows(NotFound);
    const withIt = [...activeOnly, ...strategyDecider.decide(add(t2), fold(strategyDecider, activeOnly))];
    spec.given(withIt).when(add(t2)).then([]);
  });

  test('a priority reads expired once its end has passed (computed at read time, never stored)', () => {
    const priority = { id: 'q', text: 'Launch', startsAt: t0, endsAt: t1, status: 'active' as const };
    expect(priorityStatusAt(priority, t0)).toBe('active');
    expect(priorityStatusAt(priority, t1)).toBe('expired');
    expect(priorityStatusAt({ ...priority, endsAt: null }, '2099-01-01T00:00:00Z')).toBe('active');
    expect(priorityStatusAt({ ...priority, status: 'cancelled' }, t2)).toBe('cancelled');
    const state = fold(strategyDecider, [
      ...activeOnly,
      ...strategyDecider.decide(add(t2), fold(strategyDecider, activeOnly)),
    ]);
    if (state.status !== 'exists') throw new Error('no strategy');
    const version = shownVersionOf(state)!;
    expect(strategyView(state, version, t1).priorities[0]!.status).toBe('active');
    expect(strategyView(state, version, '2026-11-23T00:00:00Z').priorities[0]!.status).toBe('expired');
    expect(version.content.priorities[0]!.status).toBe('active');
  });
});

describe('recommendations', () => {
  const withRecommendation = [
    created(
      1,
      'active',
      content({
        recommendations: [
          { id: 'r1', summary: 'Add X', createdAt: t0, status: 'pending', confidence: 'medium' },
        ],
      }),
    ),
  ];
  const decide = (decision: 'accepted' | 'rejected', id = 'r1'): StrategyCommand => ({
    type: 'DecideStrategyRecommendation',
    ...acting(),
    recommendationId: id,
    decision,
  });

  test('a pending recommendation is accepted or rejected', () => {
    spec
      .given(withRecommendation)
      .when(decide('accepted'))
      .then([
        {
          type: 'StrategyRecommendationDecided',
          data: { ...base(1), recommendationId: 'r1', decision: 'accepted', decidedAt: t1, decidedBy: user },
        },
      ]);
  });

  test('the same decision again is nothing, the other one a conflict, an unknown id a 404', () => {
    const accepted = [
      ...withRecommendation,
      ...strategyDecider.decide(decide('accepted'), fold(strategyDecider, withRecommendation)),
    ];
    spec.given(accepted).when(decide('accepted')).then([]);
    spec
      .given(accepted)
      .when(decide('rejected'))
      .thenThrows(Conflict, /already accepted/);
    spec.given(withRecommendation).when(decide('accepted', 'nope')).thenThrows(NotFound);
  });
});
