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

/** Exhaustiveness guard for `switch` over a discriminated union. */
export function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${JSON.stringify(value)}`);
}
