// The decider shape every aggregate follows: pure decide/evolve, time and ids handed in with the command.
// `decide` throws a typed AppError when the command is refused; it returns [] when nothing needs to change.
import type { DomainEvent, EventCodec } from './event-codec.js';

export type { DomainEvent } from './event-codec.js';

export interface Decider<State, Command, Event extends DomainEvent> {
  readonly initialState: State;
  readonly evolve: (state: State, event: Event) => State;
  readonly decide: (command: Command, state: State) => Event[];
  /** How the aggregate's events are read back from the store, and the schema version each is written with. */
  readonly codec: EventCodec<Event>;
}

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}

/**
 * Decides commands in order, each against the state the ones before it left, as one decision: every event of
 * all of them (appended together: all or nothing) and the state they lead to. A refusal of any refuses all.
 */
export function decideAll<State, Command, Event extends DomainEvent>(
  decider: Pick<Decider<State, Command, Event>, 'decide' | 'evolve'>,
  commands: readonly Command[],
  state: State,
): { events: Event[]; state: State } {
  const events: Event[] = [];
  let current = state;
  for (const command of commands) {
    const decided = decider.decide(command, current);
    events.push(...decided);
    current = decided.reduce(decider.evolve, current);
  }
  return { events, state: current };
}

/** The decider of a list of commands decided in order (`decideAll`), for a handler that appends them together. */
export function inSequence<State, Command, Event extends DomainEvent>(
  decider: Decider<State, Command, Event>,
): Decider<State, readonly Command[], Event> {
  return {
    initialState: decider.initialState,
    evolve: decider.evolve,
    codec: decider.codec,
    decide: (commands, state) => decideAll(decider, commands, state).events,
  };
}

/** Exhaustiveness guard for `switch` over a discriminated union. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
