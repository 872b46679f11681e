// Properties of the content strategy: any content mix whose targets do not sum to 100 is refused naming `contentMix`,
// any that sums to 100 (each type once) is accepted; and over random histories of generate, edit, confirm and
// priorities, at most one version is active and one a draft, a superseded version never comes back, and each new
// version is numbered one past the last.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { AppError } from '../../domain/shared/errors.js';
import {
  contentMixProblems,
  contentTypes,
  emptyContent,
  strategyDecider,
  type ContentMixEntry,
  type StrategyCommand,
  type StrategyContent,
  type StrategyState,
} from '../../domain/strategy/strategy.js';
import { propertyRuns } from '../support/property-runs.js';

/** A subset of the content types, each once, in a random order. */
const types = fc.shuffledSubarray([...contentTypes], { minLength: 1 });

/** Integer percentages summing to 100 over the chosen types (cut points of 0..100). */
const mixSummingTo100: fc.Arbitrary<ContentMixEntry[]> = types.chain((chosen) =>
  fc
    .array(fc.integer({ min: 0, max: 100 }), { minLength: chosen.length - 1, maxLength: chosen.length - 1 })
    .map((cuts) => {
      const points = [0, ...cuts.sort((a, b) => a - b), 100];
      return chosen.map((contentType, i) => ({ contentType, targetPercent: points[i + 1]! - points[i]! }));
    }),
);

test('a content mix summing to 100 is accepted; one summing to anything else is refused naming contentMix', () => {
  fc.assert(
    fc.property(mixSummingTo100, (mix) => {
      expect(contentMixProblems(mix)).toEqual([]);
    }),
    { numRuns: propertyRuns(500) },
  );
  fc.assert(
    fc.property(
      types.chain((chosen) =>
        fc.tuple(
          fc.constant(chosen),
          fc.array(fc.double({ min: 0, max: 100, noNaN: true }), {
            minLength: chosen.length,
            maxLength: chosen.length,
          }),
        ),
      ),
      ([chosen, percents]) => {
        const mix = chosen.map((contentType, i) => ({ contentType, targetPercent: percents[i]! }));
        const sum = percents.reduce((a, b) => a + b, 0);
        fc.pre(Math.abs(sum - 100) > 1e-6);
        expect(contentMixProblems(mix).map((p) => p.path)).toContain('contentMix');
      },
    ),
    { numRuns: propertyRuns(500) },
  );
});

type Op =
  | { kind: 'generate'; replaceActive: boolean }
  | { kind: 'edit'; objective: string }
  | { kind: 'confirm'; withUpdate: boolean }
  | { kind: 'priority' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('generate' as const), replaceActive: fc.boolean() }),
  fc.record({ kind: fc.constant('edit' as const), objective: fc.constantFrom('Grow', 'Sell', 'Teach', '') }),
  fc.record({ kind: fc.constant('confirm' as const), withUpdate: fc.boolean() }),
  fc.constant({ kind: 'priority' as const }),
);

const complete: StrategyContent = {
  ...emptyContent,
  primaryObjective: 'Grow',
  targetAudience: 'Founders',
  pillars: [{ id: 'p', name: 'Pipeline' }],
  contentMix: [{ contentType: 'educational', targetPercent: 100 }],
};

function commandOf(o: Op, i: number): StrategyCommand {
  const acting = {
    orgId: 'org',
    strategyId: 'strategy',
    idSeed: `seed-${i}`,
    by: 'user',
    now: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
  };
  switch (o.kind) {
    case 'generate':
      return {
        type: 'GenerateStrategy',
        ...acting,
        content: complete,
        source: 'heuristic',
        providerModel: 'offline',
        agentRunId: `run-${i}`,
        replaceActive: o.replaceActive,
      };
    case 'edit':
      return { type: 'EditStrategy', ...acting, changes: { primaryObjective: o.objective } };
    case 'confirm':
      return {
        type: 'ConfirmStrategy',
        ...acting,
        ...(o.withUpdate ? { updates: { targetAudience: `A${i}` } } : {}),
      };
    case 'priority':
      return {
        type: 'AddStrategyPriority',
        ...acting,
        priorityId: `prio-${i}`,
        text: 'Focus',
        startsAt: acting.now,
        endsAt: null,
      };
  }
}

const statuses = (state: StrategyState) =>
  state.status === 'exists' ? Object.values(state.versions).map((v) => v.status) : [];

test('versions: at most one active and one draft, superseded never comes back, numbers increase by one', () => {
  let refused = 0;
  let activations = 0;
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
      let state: StrategyState = strategyDecider.initialState;
      const everSuperseded = new Set<number>();
      ops.forEach((o, i) => {
        let events;
        try {
          events = strategyDecider.decide(commandOf(o, i), state);
        } catch (error) {
          // Refusals are the domain's (404 nothing to confirm, 422 incomplete, 400 content): nothing changes.
          expect(error).toBeInstanceOf(AppError);
          refused++;
          return;
        }
        for (const event of events) {
          if (event.type === 'StrategyVersionCreated')
            expect(event.data.version).toBe((state.status === 'exists' ? state.latest : 0) + 1);
          if (event.type === 'StrategyVersionConfirmed' && event.data.activated) activations++;
          state = strategyDecider.evolve(state, event);
        }
        const now = statuses(state);
        expect(now.filter((s) => s === 'active').length).toBeLessThanOrEqual(1);
        expect(now.filter((s) => s === 'draft').length).toBeLessThanOrEqual(1);
        if (state.status === 'exists')
          for (const v of Object.values(state.versions)) {
            if (everSuperseded.has(v.version)) expect(v.status).toBe('superseded');
            if (v.status === 'superseded') everSuperseded.add(v.version);
          }
      });
    }),
    { numRuns: propertyRuns(1000) },
  );
  // The histories reached the interesting places: refusals and drafts becoming active.
  expect(refused).toBeGreaterThan(0);
  expect(activations).toBeGreaterThan(0);
});
