// given(events).when(command).then(events | error): decider tests that read like the spec's state tables.
import { expect } from 'vitest';
import { fold, type Decider, type DomainEvent } from '../../domain/shared/decider.js';

export function deciderSpec<S, C, E extends DomainEvent>(decider: Decider<S, C, E>) {
  return {
    given(events: E[]) {
      const state = fold(decider, events);
      return {
        when(command: C) {
          let outcome: { events: E[] } | { error: unknown };
          try {
            outcome = { events: decider.decide(command, state) };
          } catch (error) {
            outcome = { error };
          }
          return {
            then(expected: E[]) {
              if ('error' in outcome) throw outcome.error;
              expect(outcome.events).toEqual(expected);
            },
            thenThrows(type: abstract new (...args: never[]) => Error, message?: RegExp) {
              expect('error' in outcome, 'expected the command to be refused').toBe(true);
              if ('error' in outcome) {
                expect(outcome.error).toBeInstanceOf(type);
                if (message) expect((outcome.error as Error).message).toMatch(message);
              }
            },
            thenState(check: (state: S) => void) {
              if ('error' in outcome) throw outcome.error;
              check(outcome.events.reduce((s, e) => decider.evolve(s, e), state));
            },
          };
        },
      };
    },
  };
}
