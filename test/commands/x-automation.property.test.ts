// Properties of the X automation over random histories: rule sets saved between rounds (dry run or not, caps,
// cooldowns, thresholds, metrics freshness), metrics histories (new readings of each post, some long ago), time
// moving on, and concurrent runs (dry or not, one kind or both) whose reads, appends and calls to X interleave in
// every order fast-check's scheduler picks, on an event store with the real expected-revision checks. The run
// engine, the command handler and the decider are the service's own; only X and the store are in memory.
// Checked against the log, independently of the decider's own bookkeeping:
// - automation never acts in dry run: X is only called for claimed actions, and never under a rule (or a run) in dry run;
// - no cap is ever exceeded: actions per kind in any 24 hours, reposts per post, cooldown between reposts of a post;
// - no deletion relies on metrics older than the rule allows, and every metrics time it relies on is a real reading.
// Beside them, one example: a run stops calling X for a rule after three failures in a row.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect, test } from 'vitest';
import {
  runXAutomation,
  type AutomationEffects,
  type EffectOutcome,
} from '../../commands/automation/run-x-automation.js';
import { decideXAutomation } from '../../commands/automation/x-automation-commands.js';
import type { CommandDeps } from '../../commands/shared/command-handler.js';
import type { AutomationKind } from '../../domain/automation/event-codec.js';
import type { XPostCandidate } from '../../domain/automation/planner.js';
import type { AutoDeletePatch, AutoRepostPatch } from '../../domain/automation/rules.js';
import { xAutomationDecider, type XAutomationState } from '../../domain/automation/x-automation.js';
import { engagementOf } from '../../domain/analytics/post-metrics.js';
import {
  WrongExpectedVersion,
  type AppendOptions,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../infra/event-store/port.js';
import { propertyRuns } from '../support/property-runs.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const account = '00000000-0000-4000-8000-0000000000a1';
const hour = 3_600_000;
const day = 24 * hour;
const start = Date.parse('2026-05-01T00:00:00.000Z');

/** An event store in memory with the real optimistic concurrency; every read and append waits for the scheduler. */
function memoryStore(s?: fc.Scheduler): EventStore<unknown> & { all: RecordedEvent[] } {
  const streams = new Map<string, RecordedEvent[]>();
  const all: RecordedEvent[] = [];
  const refuse = () => {
    throw new Error('not used by the automation');
  };
  return {
    name: 'memory',
    transactionalSideWrites: false,
    start: '0',
    all,
    async appendToStream(stream: string, events: readonly NewEvent[], options: AppendOptions) {
      if (s) await s.schedule(Promise.resolve(), `append ${events.map((e) => e.type).join(',')}`);
      const current = streams.get(stream) ?? [];
      const actual = current.length === 0 ? 'no_stream' : current.length - 1;
      if (options.expectedRevision !== actual) {
        reached.conflicts++;
        throw new WrongExpectedVersion(stream, options.expectedRevision, actual);
      }
      for (const e of events) {
        const recorded: RecordedEvent = {
          id: e.id ?? randomUUID(),
          streamName: stream,
          revision: current.length,
          type: e.type,
          data: structuredClone(e.data),
          metadata: e.metadata,
          position: String(all.length + 1),
          recordedAt: e.metadata.occurredAt,
        };
        current.push(recorded);
        all.push(recorded);
      }
      streams.set(stream, current);
      return { nextExpectedRevision: current.length - 1, position: String(all.length) };
    },
    async readStream(stream: string, options = {}) {
      const events = (streams.get(stream) ?? []).filter(
        (e) => options.toRevision === undefined || e.revision <= options.toRevision,
      );
      return s ? s.schedule(Promise.resolve(events.slice()), `read ${stream}`) : events.slice();
    },
    async streamRevision(stream: string) {
      const events = streams.get(stream);
      return events ? events.length - 1 : null;
    },
    readAll: refuse,
    subscribeToAll: refuse,
    waitForAppend: refuse,
    compareCheckpoints: (a, b) => Number(a) - Number(b),
    close: async () => {},
  };
}

// ---- Random histories ----

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });

/** Mostly true: a rule switched off decides nothing worth checking. */
const mostly = fc.oneof(
  { weight: 4, arbitrary: fc.constant(true) },
  { weight: 1, arbitrary: fc.constant(false) },
);

const repostPatch: fc.Arbitrary<AutoRepostPatch> = fc.record({
  enabled: mostly,
  dryRun: fc.boolean(),
  minAgeHours: fc.integer({ min: 0, max: 48 }),
  maxAgeDays: fc.integer({ min: 3, max: 30 }),
  cooldownHoursPerPost: fc.integer({ min: 1, max: 60 }),
  maxRepostsPerPost: fc.integer({ min: 1, max: 3 }),
  maxActionsPerDay: fc.integer({ min: 1, max: 3 }),
  selection: fc.oneof(
    fc.record({
      mode: fc.constant('threshold' as const),
      minImpressions: nullable(fc.integer({ min: 0, max: 2_000 })),
      minLikes: nullable(fc.integer({ min: 0, max: 40 })),
      minEngagementRate: nullable(fc.double({ min: 0, max: 0.2, noNaN: true })),
    }),
    fc.record({
      mode: fc.constant('top_n' as const),
      n: fc.integer({ min: 1, max: 4 }),
      rankBy: fc.constantFrom('impressions' as const, 'likes' as const, 'engagement' as const),
    }),
  ),
});

const deletePatch: fc.Arbitrary<AutoDeletePatch> = fc.record({
  enabled: mostly,
  dryRun: fc.boolean(),
  minAgeHours: fc.integer({ min: 0, max: 48 }),
  maxAgeDays: fc.integer({ min: 3, max: 30 }),
  maxImpressions: nullable(fc.integer({ min: 0, max: 2_000 })),
  maxLikes: nullable(fc.integer({ min: 0, max: 40 })),
  metricsMaxAgeHours: fc.integer({ min: 1, max: 72 }),
  skipIfRepliesGte: fc.integer({ min: 1, max: 5 }),
  maxActionsPerDay: fc.integer({ min: 1, max: 3 }),
});

const reading = fc.record({
  post: fc.integer({ min: 0, max: 7 }),
  /** How long before the round's time the reading was taken. */
  ageHours: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 24 }) },
    { weight: 1, arbitrary: fc.integer({ min: 25, max: 120 }) },
  ),
  impressions: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 500 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 3_000 }) },
    { weight: 1, arbitrary: fc.constant(null) },
  ),
  likes: fc.oneof(
    { weight: 3, arbitrary: fc.integer({ min: 0, max: 10 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 60 }) },
  ),
  replies: fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) },
  ),
});

const runArb = fc.record({
  dryRun: fc.oneof({ weight: 1, arbitrary: fc.constant(true) }, { weight: 3, arbitrary: fc.constant(false) }),
  kinds: fc.constantFrom<AutomationKind[] | undefined>(undefined, ['auto_repost'], ['auto_delete']),
});

const round = fc.record({
  advanceHours: fc.integer({ min: 0, max: 30 }),
  rules: fc.option(
    fc.record({
      autoRepost: fc.option(repostPatch, { nil: undefined }),
      autoDelete: fc.option(deletePatch, { nil: undefined }),
    }),
    { nil: null, freq: 2 },
  ),
  readings: fc.array(reading, { minLength: 1, maxLength: 10 }),
  runs: fc.array(runArb, { minLength: 1, maxLength: 3 }),
});

const scenario = fc.record({
  /** Each post's publication, hours before the start. */
  publishedHoursAgo: fc.array(fc.integer({ min: 0, max: 40 * 24 }), { minLength: 8, maxLength: 8 }),
  /** The rules the first round starts with. */
  initial: fc.record({ autoRepost: repostPatch, autoDelete: deletePatch }),
  rounds: fc.array(round, { minLength: 1, maxLength: 5 }),
  /** What X answers, call after call (cycled). */
  answers: fc.array(fc.constantFrom('ok', 'ok', 'ok', 'refused', 'unknown', 'throws'), {
    minLength: 1,
    maxLength: 8,
  }),
});

// ---- The properties ----

/** What the runs reached across cases: a property that never claims, conflicts or hits a cap proves little. */
const reached = { claims: 0, deletions: 0, reposts: 0, planned: 0, capSkips: 0, conflicts: 0 };

interface Call {
  kind: AutomationKind;
  postId: string;
  at: number;
}

test('X automation never acts in dry run, never exceeds a cap, never deletes on stale metrics, whatever the interleaving', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), scenario, async (s, sc) => {
      const store = memoryStore(s);
      const commands: CommandDeps = { eventStore: store };
      let clock = start;
      const postIds = sc.publishedHoursAgo.map(
        (_, i) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
      );
      const published = new Map(postIds.map((id, i) => [id, start - sc.publishedHoursAgo[i]! * hour]));
      /** Every reading ever taken of each post (the metrics history); the latest one is the read model's. */
      const history = new Map<
        string,
        Array<{ fetchedAt: number; impressions: number | null; likes: number; replies: number }>
      >();
      const live = new Set(postIds);
      const calls: Call[] = [];
      let answer = 0;

      const candidates = async (): Promise<XPostCandidate[]> =>
        [...live].flatMap((postId) => {
          const readings = history.get(postId);
          const latest = readings?.[readings.length - 1];
          if (!latest) return [];
          return [
            {
              postId,
              socialAccountId: account,
              externalTweetId: `x-${postId}`,
              publishedAt: new Date(published.get(postId)!).toISOString(),
              metricsFetchedAt: new Date(latest.fetchedAt).toISOString(),
              likes: latest.likes,
              replies: latest.replies,
              impressions: latest.impressions,
              engagement: engagementOf({
                likes: latest.likes,
                reposts: 0,
                replies: latest.replies,
                quotes: 0,
                bookmarks: null,
                impressions: latest.impressions,
              }),
            },
          ];
        });
      const x = async (kind: AutomationKind, postId: string): Promise<EffectOutcome> => {
        calls.push({ kind, postId, at: clock });
        const said = sc.answers[answer++ % sc.answers.length]!;
        await s.schedule(Promise.resolve(), `X ${kind} ${postId}`);
        if (said === 'throws') throw new Error('connection reset');
        if (said === 'refused') return { status: 'failed', error: 'refused', definite: true };
        if (said === 'unknown') return { status: 'failed', error: 'timed out', definite: false };
        if (kind === 'auto_delete') live.delete(postId);
        return { status: 'succeeded', warnings: [] };
      };
      const effects: AutomationEffects = {
        repost: (t) => x('auto_repost', t.postId),
        delete: (t) => x('auto_delete', t.postId),
      };
      const metadata = () => ({
        orgId,
        actor: 'system',
        correlationId: randomUUID(),
        now: new Date(clock).toISOString(),
      });

      for (const [index, r] of sc.rounds.entries()) {
        clock += r.advanceHours * hour;
        for (const rd of r.readings) {
          const postId = postIds[rd.post]!;
          const fetchedAt = Math.max(published.get(postId)!, clock - rd.ageHours * hour);
          const readings = history.get(postId) ?? [];
          if (readings.length > 0 && readings[readings.length - 1]!.fetchedAt >= fetchedAt) continue;
          history.set(postId, [
            ...readings,
            { fetchedAt, impressions: rd.impressions, likes: rd.likes, replies: rd.replies },
          ]);
        }
        const rules = index === 0 ? sc.initial : r.rules;
        if (rules && (rules.autoRepost || rules.autoDelete))
          await s.waitFor(
            decideXAutomation(
              commands,
              orgId,
              {
                type: 'UpdateXAutomationRules',
                orgId,
                ...(rules.autoRepost ? { autoRepost: rules.autoRepost } : {}),
                ...(rules.autoDelete ? { autoDelete: rules.autoDelete } : {}),
                by: null,
                now: new Date(clock).toISOString(),
              },
              metadata(),
            ),
          );
        const runs = r.runs.map((run) =>
          runXAutomation(
            { commands, candidates, effects, now: () => new Date(clock) },
            {
              orgId,
              runId: randomUUID(),
              trigger: 'manual',
              localDate: null,
              ...(run.kinds ? { kinds: run.kinds } : {}),
              dryRun: run.dryRun,
              by: null,
            },
            metadata(),
            { awaitReadModels: false },
          ),
        );
        const results = await s.waitFor(Promise.all(runs));
        for (const [i, result] of results.entries())
          if (r.runs[i]!.dryRun) expect(result.counts.acted).toBe(0);
      }

      // ---- Replay the log: the state before each event, and the checks ----
      const events = xAutomationDecider.codec.decodeAll(store.all);
      let state: XAutomationState = xAutomationDecider.initialState;
      const runDry = new Map<string, boolean>();
      const starts: Array<{
        actionId: string;
        kind: AutomationKind;
        postId: string;
        at: number;
        cap: number;
        state: XAutomationState;
      }> = [];
      const outcome = new Map<string, 'succeeded' | 'refused' | 'unknown'>();
      for (const event of events) {
        if (event.type === 'XAutomationRunStarted') runDry.set(event.data.runId, event.data.dryRun);
        if (event.type === 'XAutomationActionStarted') {
          const d = event.data;
          const rule = d.kind === 'auto_repost' ? state.autoRepost : state.autoDelete;
          // Never acts in dry run: a claim only under an enabled live rule, in a run not asked to be dry.
          expect(rule?.enabled).toBe(true);
          expect(rule?.dryRun).toBe(false);
          expect(runDry.get(d.runId)).toBe(false);
          const at = Date.parse(d.at);
          if (d.kind === 'auto_delete') {
            const del = state.autoDelete!;
            // Never deletes on metrics older than allowed, and the metrics are a real reading of the post.
            expect(at - Date.parse(d.evidence.metricsFetchedAt)).toBeLessThanOrEqual(
              del.metricsMaxAgeHours * hour,
            );
            const fetched = (history.get(d.evidence.postId) ?? []).map((h) => h.fetchedAt);
            expect(fetched).toContain(Date.parse(d.evidence.metricsFetchedAt));
          }
          starts.push({
            actionId: d.actionId,
            kind: d.kind,
            postId: d.evidence.postId,
            at,
            cap: rule!.maxActionsPerDay,
            state,
          });
        }
        if (event.type === 'XAutomationActionRecorded') {
          if (event.data.status === 'planned') reached.planned++;
          if (/maxActionsPerDay/.test(event.data.reason)) reached.capSkips++;
        }
        if (event.type === 'XAutomationActionSucceeded') outcome.set(event.data.actionId, 'succeeded');
        if (event.type === 'XAutomationActionFailed')
          outcome.set(event.data.actionId, event.data.definite ? 'refused' : 'unknown');
        state = xAutomationDecider.evolve(state, event);
      }
      reached.claims += starts.length;
      reached.deletions += starts.filter((a) => a.kind === 'auto_delete').length;
      reached.reposts += starts.filter((a) => a.kind === 'auto_repost').length;
      // X was called once per claim and for nothing else.
      expect(calls.length).toBe(starts.length);
      expect(calls.map((c) => `${c.kind}:${c.postId}`).sort()).toEqual(
        starts.map((c) => `${c.kind}:${c.postId}`).sort(),
      );

      // Caps, over actions that may have acted on X (all but those X refused outright).
      const counted = starts.filter((a) => outcome.get(a.actionId) !== 'refused');
      for (const a of counted) {
        const inWindow = counted.filter((b) => b.kind === a.kind && b.at > a.at - day && b.at <= a.at).length;
        expect(
          inWindow,
          `${a.kind} actions in the 24 h up to ${new Date(a.at).toISOString()}`,
        ).toBeLessThanOrEqual(a.cap);
        if (a.kind !== 'auto_repost') continue;
        const rule = a.state.autoRepost!;
        const before = counted.filter(
          (b) => b.kind === 'auto_repost' && b.postId === a.postId && starts.indexOf(b) < starts.indexOf(a),
        );
        expect(before.length + 1, `reposts of ${a.postId}`).toBeLessThanOrEqual(rule.maxRepostsPerPost);
        const last = before[before.length - 1];
        if (last)
          expect(a.at - last.at, `cooldown of ${a.postId}`).toBeGreaterThanOrEqual(
            rule.cooldownHoursPerPost * hour,
          );
      }
      // A post deleted by automation is never acted on afterwards.
      for (const a of starts.filter(
        (x) => x.kind === 'auto_delete' && outcome.get(x.actionId) === 'succeeded',
      ))
        expect(starts.filter((b) => b.postId === a.postId && starts.indexOf(b) > starts.indexOf(a))).toEqual(
          [],
        );
    }),
    { numRuns: propertyRuns(200, 40) },
  );
  expect(reached.claims).toBeGreaterThan(0);
  expect(reached.deletions).toBeGreaterThan(0);
  expect(reached.reposts).toBeGreaterThan(0);
  expect(reached.planned).toBeGreaterThan(0);
  expect(reached.capSkips).toBeGreaterThan(0);
  expect(reached.conflicts).toBeGreaterThan(0);
}, 120_000);

test("a run leaves a rule's other picks for a later run after X failed three times in a row", async () => {
  const commands: CommandDeps = { eventStore: memoryStore() };
  const now = new Date(start);
  const metadata = { orgId, actor: 'system', correlationId: randomUUID(), now: now.toISOString() };
  await decideXAutomation(
    commands,
    orgId,
    {
      type: 'UpdateXAutomationRules',
      orgId,
      autoDelete: { enabled: true, dryRun: false, minAgeHours: 0, maxImpressions: 100, maxActionsPerDay: 50 },
      by: null,
      now: now.toISOString(),
    },
    metadata,
  );
  const posts: XPostCandidate[] = Array.from({ length: 6 }, (_, i) => ({
    postId: `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`,
    socialAccountId: account,
    externalTweetId: `x-${i}`,
    publishedAt: new Date(start - (i + 1) * hour).toISOString(),
    metricsFetchedAt: now.toISOString(),
    likes: 0,
    replies: 0,
    impressions: 10,
    engagement: 0,
  }));
  let calls = 0;
  const refused = async (): Promise<EffectOutcome> => {
    calls++;
    return { status: 'failed', error: 'The account needs reconnecting', definite: true };
  };
  const result = await runXAutomation(
    {
      commands,
      candidates: async () => posts,
      effects: { repost: refused, delete: refused },
      now: () => now,
    },
    { orgId, runId: randomUUID(), trigger: 'manual', localDate: null, dryRun: false, by: null },
    metadata,
  );
  expect(calls).toBe(3);
  expect(result.counts).toMatchObject({ matched: 6, failed: 3, skipped: 3, acted: 0 });
  expect(result.warnings.join(' ')).toMatch(/X failed 3 times in a row; 3 more matching posts were left/);
});
