// The X automation decider, rule by rule: saving rules (safe defaults, kinds and fields left out, null clears a
// threshold, limits), runs (one start per id, one nightly run per night with a lease, stale claims settled), and
// each action's decision: dry run, rule off, account, age window, daily cap (rolling 24 h, planned ones in a dry
// run), reposts per post, cooldown, fresh metrics for a deletion, replies, thresholds, in-flight and deleted posts.
import { describe, expect, test } from 'vitest';
import type { ActionEvidence, XAutomationEvent } from '../../domain/automation/event-codec.js';
import { defaultAutoDelete, defaultAutoRepost } from '../../domain/automation/rules.js';
import {
  actionsInWindow,
  xAutomationDecider,
  type XAutomationCommand,
} from '../../domain/automation/x-automation.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const account = '00000000-0000-4000-8000-0000000000a1';
const otherAccount = '00000000-0000-4000-8000-0000000000a2';
const userId = '00000000-0000-4000-8000-0000000000b1';
const run = '00000000-0000-4000-8000-0000000000c1';
/** A run before this one (gone from the state once completed; its actions stay in the ledger). */
const earlier = '00000000-0000-4000-8000-0000000000c0';
const t0 = '2026-03-10T02:00:00.000Z';
const hour = 3_600_000;
const at = (hours: number) => new Date(Date.parse(t0) + hours * hour).toISOString();
const spec = deciderSpec(xAutomationDecider);

const post = (id: string, overrides: Partial<ActionEvidence> = {}): ActionEvidence => ({
  postId: `00000000-0000-4000-8000-${id.padStart(12, '0')}`,
  socialAccountId: account,
  externalTweetId: `17900000000000000${id}`,
  publishedAt: at(-48),
  metricsFetchedAt: at(-1),
  likes: 0,
  replies: 0,
  impressions: 50,
  engagement: 0,
  ...overrides,
});

const liveRepost = {
  ...defaultAutoRepost,
  enabled: true,
  dryRun: false,
  minAgeHours: 1,
  maxActionsPerDay: 2,
  maxRepostsPerPost: 2,
  cooldownHoursPerPost: 24,
};
const liveDelete = {
  ...defaultAutoDelete,
  enabled: true,
  dryRun: false,
  minAgeHours: 1,
  maxImpressions: 100,
  maxActionsPerDay: 2,
};

const rulesSaved = (
  autoRepost: typeof defaultAutoRepost | null = liveRepost,
  autoDelete: typeof defaultAutoDelete | null = liveDelete,
): XAutomationEvent => ({
  type: 'XAutomationRulesUpdated',
  data: { orgId, autoRepost, autoDelete, updatedAt: t0, updatedBy: userId },
});

const runStarted = (
  runId = run,
  startedAt = t0,
  extra: { localDate?: string; dryRun?: boolean } = {},
): XAutomationEvent => ({
  type: 'XAutomationRunStarted',
  data: {
    orgId,
    runId,
    trigger: extra.localDate ? 'nightly' : 'manual',
    localDate: extra.localDate ?? null,
    kinds: ['auto_repost', 'auto_delete'],
    dryRun: extra.dryRun ?? false,
    by: extra.localDate ? null : userId,
    startedAt,
    leaseMs: 15 * 60_000,
  },
});

const started = (
  actionId: string,
  kind: 'auto_repost' | 'auto_delete',
  evidence: ActionEvidence,
  when = t0,
  runId = run,
): XAutomationEvent => ({
  type: 'XAutomationActionStarted',
  data: { orgId, runId, actionId, kind, reason: 'r', again: false, evidence, at: when },
});
const succeeded = (actionId: string, when = t0): XAutomationEvent => ({
  type: 'XAutomationActionSucceeded',
  data: { orgId, actionId, warnings: [], at: when },
});
const failed = (actionId: string, definite: boolean, when = t0): XAutomationEvent => ({
  type: 'XAutomationActionFailed',
  data: { orgId, actionId, error: 'boom', definite, at: when },
});

const decide = (
  kind: 'auto_repost' | 'auto_delete',
  evidence: ActionEvidence,
  now = t0,
  options: { actionId?: string; dryRun?: boolean; runId?: string } = {},
): XAutomationCommand => ({
  type: 'DecideXAutomationAction',
  runId: options.runId ?? run,
  actionId: options.actionId ?? `action-${kind}-${evidence.postId}-${now}`,
  kind,
  evidence,
  reason: 'picked',
  dryRun: options.dryRun ?? false,
  now,
});

/** The one event a decision gives, for assertions on its type and status. */
function decided(events: XAutomationEvent[], command: XAutomationCommand) {
  const out = xAutomationDecider.decide(command, fold(xAutomationDecider, events));
  expect(out).toHaveLength(1);
  return out[0]!;
}
const statusOf = (e: XAutomationEvent) =>
  e.type === 'XAutomationActionRecorded'
    ? e.data.status
    : e.type === 'XAutomationActionStarted'
      ? 'started'
      : e.type;
const reasonOf = (e: XAutomationEvent) => (e.type === 'XAutomationActionRecorded' ? e.data.reason : '');

const update = (
  patch: Omit<
    Extract<XAutomationCommand, { type: 'UpdateXAutomationRules' }>,
    'type' | 'orgId' | 'by' | 'now'
  >,
  now = t0,
): XAutomationCommand => ({
  type: 'UpdateXAutomationRules',
  orgId,
  ...patch,
  by: userId,
  now,
});

describe('saving the rules', () => {
  test('a rule saved the first time takes the safe defaults (off, dry run) for every field left out', () => {
    spec
      .given([])
      .when(update({ autoRepost: { minAgeHours: 6 } }))
      .then([
        {
          type: 'XAutomationRulesUpdated',
          data: {
            orgId,
            autoRepost: { ...defaultAutoRepost, minAgeHours: 6 },
            autoDelete: null,
            updatedAt: t0,
            updatedBy: userId,
          },
        },
      ]);
    expect(defaultAutoRepost).toMatchObject({ enabled: false, dryRun: true });
    expect(defaultAutoDelete).toMatchObject({
      enabled: false,
      dryRun: true,
      maxImpressions: null,
      maxLikes: null,
    });
  });

  test('a kind left out keeps its saved rule; fields left out keep their values', () => {
    spec
      .given([rulesSaved()])
      .when(update({ autoDelete: { maxLikes: 3 } }, at(1)))
      .thenState((s) => {
        expect(s.autoRepost).toEqual(liveRepost);
        expect(s.autoDelete).toEqual({ ...liveDelete, maxLikes: 3 });
        expect(s.updatedAt).toBe(at(1));
      });
  });

  test('null clears a threshold', () => {
    const threshold = {
      ...liveRepost,
      selection: { mode: 'threshold' as const, minImpressions: 500, minLikes: 10, minEngagementRate: null },
    };
    spec
      .given([rulesSaved(threshold)])
      .when(update({ autoRepost: { selection: { minLikes: null } }, autoDelete: { maxImpressions: null } }))
      .thenState((s) => {
        expect(s.autoRepost!.selection).toEqual({
          mode: 'threshold',
          minImpressions: 500,
          minLikes: null,
          minEngagementRate: null,
        });
        expect(s.autoDelete!.maxImpressions).toBeNull();
      });
  });

  test('another selection mode starts from its defaults; a field of the other mode is refused', () => {
    spec
      .given([rulesSaved()])
      .when(update({ autoRepost: { selection: { mode: 'threshold', minLikes: 5 } } }))
      .thenState((s) =>
        expect(s.autoRepost!.selection).toEqual({
          mode: 'threshold',
          minImpressions: null,
          minLikes: 5,
          minEngagementRate: null,
        }),
      );
    spec
      .given([rulesSaved()])
      .when(update({ autoRepost: { selection: { minLikes: 5 } } }))
      .thenThrows(InvalidFields, /Invalid automation rules/);
  });

  test('values out of their limits are refused, each named by its field', () => {
    const refusal = () => {
      try {
        xAutomationDecider.decide(
          update({
            autoRepost: { maxActionsPerDay: 0, selection: { n: 51 } },
            autoDelete: { metricsMaxAgeHours: 1.5, minAgeHours: 24, maxAgeDays: 1 },
          }),
          fold(xAutomationDecider, [rulesSaved()]),
        );
      } catch (error) {
        return error as InvalidFields;
      }
      throw new Error('expected a refusal');
    };
    expect(
      refusal()
        .details?.map((d) => d.path)
        .sort(),
    ).toEqual(['autoDelete.metricsMaxAgeHours', 'autoRepost.maxActionsPerDay', 'autoRepost.selection.n']);
    spec
      .given([rulesSaved()])
      .when(update({ autoDelete: { minAgeHours: 24, maxAgeDays: 1 } }))
      .thenThrows(InvalidFields);
  });

  test('saving what is saved decides nothing, and so does saving no rule at all', () => {
    spec
      .given([rulesSaved()])
      .when(update({ autoRepost: { enabled: true } }))
      .then([]);
    spec.given([]).when(update({})).then([]);
  });
});

describe('starting a run', () => {
  const start = (runId = run, now = t0, localDate?: string): XAutomationCommand => ({
    type: 'StartXAutomationRun',
    orgId,
    runId,
    trigger: localDate ? 'nightly' : 'manual',
    localDate: localDate ?? null,
    kinds: ['auto_repost', 'auto_delete'],
    dryRun: false,
    by: localDate ? null : userId,
    now,
    leaseMs: 15 * 60_000,
    staleActionMs: 15 * 60_000,
  });

  test('a run id starts once', () => {
    spec.given([rulesSaved()]).when(start()).then([runStarted()]);
    spec
      .given([rulesSaved(), runStarted()])
      .when(start())
      .thenThrows(Conflict, /started already/);
  });

  test('a night is swept once: done is refused, held is refused, a lapsed lease is taken over', () => {
    const night = '2026-03-10';
    const other = '00000000-0000-4000-8000-0000000000c2';
    const completed: XAutomationEvent = {
      type: 'XAutomationRunCompleted',
      data: {
        orgId,
        runId: run,
        trigger: 'nightly',
        localDate: night,
        by: null,
        dryRun: false,
        kinds: [],
        counts: { evaluated: 0, matched: 0, acted: 0, skipped: 0, failed: 0 },
        byKind: {
          auto_repost: { planned: 0, acted: 0, skipped: 0, failed: 0 },
          auto_delete: { planned: 0, acted: 0, skipped: 0, failed: 0 },
        },
        warnings: [],
        completedAt: at(0.1),
      },
    };
    const held = [rulesSaved(), runStarted(run, t0, { localDate: night })];
    spec
      .given([...held, completed])
      .when(start(other, at(0.2), night))
      .thenThrows(Conflict, /swept already/);
    spec
      .given(held)
      .when(start(other, at(0.2), night))
      .thenThrows(Conflict, /Another instance/);
    spec
      .given(held)
      .when(start(other, at(0.5), night))
      .then([runStarted(other, at(0.5), { localDate: night })]);
    // Deciding renews the lease: the night stays held.
    const renewed = [
      ...held,
      {
        type: 'XAutomationActionRecorded',
        data: {
          orgId,
          runId: run,
          actionId: 'a',
          kind: 'auto_repost',
          status: 'skipped',
          dryRun: false,
          reason: 'x',
          evidence: post('1'),
          at: at(0.2),
        },
      } as XAutomationEvent,
    ];
    spec
      .given(renewed)
      .when(start(other, at(0.3), night))
      .thenThrows(Conflict, /Another instance/);
  });

  test('an action claimed long ago and never settled is settled as failed, outcome unknown (it still counts)', () => {
    const p = post('1');
    const events = [rulesSaved(), runStarted(), started('old', 'auto_delete', p)];
    const second = '00000000-0000-4000-8000-0000000000c2';
    const out = xAutomationDecider.decide(start(second, at(1)), fold(xAutomationDecider, events));
    expect(out.map((e) => e.type)).toEqual(['XAutomationActionFailed', 'XAutomationRunStarted']);
    expect(out[0]!.data).toMatchObject({ actionId: 'old', definite: false });
    const state = fold(xAutomationDecider, [...events, ...out]);
    expect(actionsInWindow(state, 'auto_delete', at(1))).toBe(1);
    // A recent claim (its run may still be waiting for X) is left alone.
    spec
      .given(events)
      .when(start(second, at(0.1)))
      .then([runStarted(second, at(0.1))]);
  });
});

describe('deciding an action', () => {
  const open = [rulesSaved(), runStarted()];

  test('a live rule claims the action before X is called', () => {
    const e = decided(open, decide('auto_repost', post('1')));
    expect(e).toMatchObject({
      type: 'XAutomationActionStarted',
      data: { kind: 'auto_repost', again: false },
    });
  });

  test('a rule in dry run only plans, whatever the run asked', () => {
    const events = [rulesSaved({ ...liveRepost, dryRun: true }), runStarted()];
    const e = decided(events, decide('auto_repost', post('1'), t0, { dryRun: false }));
    expect(e).toMatchObject({ type: 'XAutomationActionRecorded', data: { status: 'planned', dryRun: true } });
  });

  test('a run asked to be a dry run only plans, even with live rules', () => {
    expect(statusOf(decided(open, decide('auto_delete', post('1'), t0, { dryRun: true })))).toBe('planned');
    expect(
      statusOf(
        decided([rulesSaved(), runStarted(run, t0, { dryRun: true })], decide('auto_delete', post('1'))),
      ),
    ).toBe('planned');
  });

  test('a rule switched off (or never set up) skips', () => {
    const e = decided(
      [rulesSaved({ ...liveRepost, enabled: false }, null), runStarted()],
      decide('auto_repost', post('1')),
    );
    expect(reasonOf(e)).toMatch(/autoRepost rule is off/);
    expect(
      reasonOf(decided([rulesSaved(liveRepost, null), runStarted()], decide('auto_delete', post('1')))),
    ).toMatch(/autoDelete rule is off/);
  });

  test("a post of another account than the rule's skips", () => {
    const events = [rulesSaved({ ...liveRepost, socialAccountId: otherAccount }), runStarted()];
    expect(reasonOf(decided(events, decide('auto_repost', post('1'))))).toMatch(/another account/);
  });

  test('a post outside the age window skips', () => {
    expect(reasonOf(decided(open, decide('auto_repost', post('1', { publishedAt: at(-0.5) }))))).toMatch(
      /age window/,
    );
    expect(reasonOf(decided(open, decide('auto_repost', post('1', { publishedAt: at(-31 * 24) }))))).toMatch(
      /age window/,
    );
  });

  test('maxActionsPerDay holds over any 24 hours; a definite failure does not count, an unknown one does', () => {
    const events = [
      ...open,
      started('a1', 'auto_repost', post('1'), at(-20)),
      succeeded('a1', at(-20)),
      started('a2', 'auto_repost', post('2'), at(-2)),
      failed('a2', false, at(-2)),
    ];
    expect(reasonOf(decided(events, decide('auto_repost', post('3'))))).toMatch(/maxActionsPerDay 2 reached/);
    // Four hours later the first is more than 24 h old.
    expect(statusOf(decided(events, decide('auto_repost', post('3'), at(4.01))))).toBe('started');
    const refused = [
      ...open,
      started('a1', 'auto_repost', post('1'), at(-1)),
      failed('a1', true, at(-1)),
      started('a2', 'auto_repost', post('2'), at(-1)),
    ];
    expect(statusOf(decided(refused, decide('auto_repost', post('3'))))).toBe('started');
    // Each kind has its own cap.
    expect(statusOf(decided(events, decide('auto_delete', post('3'))))).toBe('started');
  });

  test('in a dry run, planned actions count against the cap within the run (live ones too)', () => {
    const events = [rulesSaved({ ...liveRepost, dryRun: true, maxActionsPerDay: 1 }), runStarted()];
    const first = decided(events, decide('auto_repost', post('1')));
    expect(statusOf(first)).toBe('planned');
    expect(reasonOf(decided([...events, first], decide('auto_repost', post('2'))))).toMatch(
      /planned ones included/,
    );
    // Planned actions never count outside their run.
    const next = [...events, first, runStarted('00000000-0000-4000-8000-0000000000c2', at(0.1))];
    expect(
      statusOf(
        decided(
          next,
          decide('auto_repost', post('2'), at(0.1), { runId: '00000000-0000-4000-8000-0000000000c2' }),
        ),
      ),
    ).toBe('planned');
  });

  test('maxRepostsPerPost and cooldownHoursPerPost hold per post; a repost again undoes the first', () => {
    const p = post('1');
    const once = [...open, started('a1', 'auto_repost', p, at(-30), earlier), succeeded('a1', at(-30))];
    const again = decided(once, decide('auto_repost', p));
    expect(again).toMatchObject({ type: 'XAutomationActionStarted', data: { again: true } });
    const recent = [...open, started('a1', 'auto_repost', p, at(-3), earlier), succeeded('a1', at(-3))];
    expect(reasonOf(decided(recent, decide('auto_repost', p)))).toMatch(/cooldownHoursPerPost 24/);
    const twice = [...once, started('a2', 'auto_repost', p, at(-26), earlier), succeeded('a2', at(-26))];
    expect(reasonOf(decided(twice, decide('auto_repost', p)))).toMatch(/maxRepostsPerPost 2/);
  });

  test('a deletion needs metrics read within metricsMaxAgeHours', () => {
    const stale = post('1', { metricsFetchedAt: at(-49) });
    expect(reasonOf(decided(open, decide('auto_delete', stale)))).toMatch(/within 48 h/);
    expect(statusOf(decided(open, decide('auto_delete', post('1', { metricsFetchedAt: at(-47) }))))).toBe(
      'started',
    );
    // Dry run too: what it plans is what it would do.
    expect(reasonOf(decided(open, decide('auto_delete', stale, t0, { dryRun: true })))).toMatch(
      /within 48 h/,
    );
  });

  test('a post with skipIfRepliesGte replies or more is kept', () => {
    expect(reasonOf(decided(open, decide('auto_delete', post('1', { replies: 1 }))))).toMatch(
      /skipIfRepliesGte 1/,
    );
  });

  test('a deletion needs the thresholds: at most maxImpressions (known) and maxLikes; with none set, nothing', () => {
    expect(reasonOf(decided(open, decide('auto_delete', post('1', { impressions: 101 }))))).toMatch(
      /no longer meets/,
    );
    expect(reasonOf(decided(open, decide('auto_delete', post('1', { impressions: null }))))).toMatch(
      /no longer meets/,
    );
    const none = [
      rulesSaved(liveRepost, { ...liveDelete, maxImpressions: null, maxLikes: null }),
      runStarted(),
    ];
    expect(reasonOf(decided(none, decide('auto_delete', post('1'))))).toMatch(/no longer meets/);
  });

  test('a post in flight, or deleted by automation, is not acted on again', () => {
    const p = post('1');
    const inFlight = [...open, started('a1', 'auto_delete', p, t0, earlier)];
    expect(reasonOf(decided(inFlight, decide('auto_repost', p, at(0.1))))).toMatch(/another run is acting/);
    const gone = [...inFlight, succeeded('a1')];
    expect(reasonOf(decided(gone, decide('auto_repost', p, at(0.1))))).toMatch(/deleted by automation/);
    expect(reasonOf(decided(gone, decide('auto_delete', p, at(0.1))))).toMatch(/deleted by automation/);
  });

  test('a threshold repost rule re-checks its thresholds', () => {
    const threshold = {
      ...liveRepost,
      selection: { mode: 'threshold' as const, minImpressions: null, minLikes: 10, minEngagementRate: null },
    };
    const events = [rulesSaved(threshold), runStarted()];
    expect(reasonOf(decided(events, decide('auto_repost', post('1', { likes: 9 }))))).toMatch(/selection/);
    expect(statusOf(decided(events, decide('auto_repost', post('1', { likes: 10 }))))).toBe('started');
  });

  test('an action of a run that is not open is refused; the same action id again decides nothing', () => {
    spec
      .given([rulesSaved()])
      .when(decide('auto_repost', post('1')))
      .thenThrows(Conflict, /not open/);
    const p = post('1');
    spec
      .given([...open, started('a1', 'auto_repost', p)])
      .when(decide('auto_repost', p, t0, { actionId: 'a1' }))
      .then([]);
  });
});

describe('settling and completing', () => {
  test('an action settles once; the first outcome stands', () => {
    const events = [rulesSaved(), runStarted(), started('a1', 'auto_repost', post('1'))];
    const settle = (status: 'succeeded' | 'failed'): XAutomationCommand => ({
      type: 'SettleXAutomationAction',
      actionId: 'a1',
      outcome: status === 'succeeded' ? { status, warnings: [] } : { status, error: 'x', definite: true },
      now: t0,
    });
    spec
      .given(events)
      .when(settle('succeeded'))
      .then([succeeded('a1')]);
    spec
      .given([...events, succeeded('a1')])
      .when(settle('failed'))
      .then([]);
  });

  test('completing a nightly run marks its night done; completing twice decides nothing', () => {
    const night = '2026-03-10';
    const complete: XAutomationCommand = {
      type: 'CompleteXAutomationRun',
      runId: run,
      counts: { evaluated: 1, matched: 0, acted: 0, skipped: 0, failed: 0 },
      byKind: {
        auto_repost: { planned: 0, acted: 0, skipped: 0, failed: 0 },
        auto_delete: { planned: 0, acted: 0, skipped: 0, failed: 0 },
      },
      kinds: ['auto_repost'],
      dryRun: false,
      warnings: [],
      now: at(0.1),
    };
    const events = [rulesSaved(), runStarted(run, t0, { localDate: night })];
    const out = xAutomationDecider.decide(complete, fold(xAutomationDecider, events));
    const state = fold(xAutomationDecider, [...events, ...out]);
    expect(state.nights[night]).toMatchObject({ completed: true });
    expect(state.runs[run]).toBeUndefined();
    expect(xAutomationDecider.decide(complete, state)).toEqual([]);
  });
});
