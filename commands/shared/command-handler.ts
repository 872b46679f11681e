// The one write path: load stream → decide → append with the expected revision → bounded retry on conflict,
// then wait until the read models show the change (read-your-writes) before the caller answers 2xx.
import { randomUUID } from 'node:crypto';
import { fold, type Decider, type DomainEvent } from '../../domain/shared/decider.js';
import { Conflict, ServiceUnavailable } from '../../domain/shared/errors.js';
import {
  WrongExpectedVersion,
  type Checkpoint,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../infra/event-store/port.js';

export interface CommandDeps {
  eventStore: EventStore<unknown>;
  /** Resolves true once every serving read model has passed the position (false on timeout). */
  waitForProjections?: (position: Checkpoint, options: { timeoutMs: number }) => Promise<boolean>;
  readYourWritesTimeoutMs?: number;
  /** Attempts after a concurrency conflict before answering 409. */
  maxRetries?: number;
}

export interface CommandMetadata {
  orgId: string | null;
  /** A user id, `system`, or `assistant:<clientId>`. */
  actor: string;
  correlationId: string;
  causationId?: string | null;
  now: string;
}

export interface CommandOutcome<State, Event extends DomainEvent> {
  /** State after the command (unchanged when nothing was appended). */
  state: State;
  /** State the command was decided against. */
  before: State;
  events: Event[];
  /** Stream revision after the command, null when the stream does not exist. */
  revision: number | null;
  /** Global position of the last appended event, null when nothing was appended. */
  position: Checkpoint | null;
}

export interface HandleCommandArgs<State, Command, Event extends DomainEvent> {
  stream: string;
  decider: Decider<State, Command, Event>;
  /** The command, or a function of the loaded state (for commands that depend on it). */
  command: Command | ((state: State) => Command | Promise<Command>);
  metadata: CommandMetadata;
  /** Deterministic event ids (e.g. from an idempotency key) let a retried append be recognised. */
  eventId?: (event: Event, index: number, revision: number) => string;
  /** Work committed with the append (idempotency record); receives the outcome it will report. */
  sideWrite?: (trx: unknown, outcome: CommandOutcome<State, Event>) => Promise<void>;
  /** The aggregate as the caller already read it: the first decision uses it instead of reading again. */
  loaded?: { state: State; revision: number | null };
  /** Skip the read-your-writes wait for intermediate steps of a multi-step command. */
  awaitReadModels?: boolean;
  schemaVersion?: number;
}

export async function loadAggregate<State, Event extends DomainEvent>(
  eventStore: EventStore<unknown>,
  stream: string,
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>,
  options: { toRevision?: number } = {},
): Promise<{ state: State; revision: number | null; events: RecordedEvent[] }> {
  const events = await eventStore.readStream(stream, { toRevision: options.toRevision });
  const state = fold(decider, events as unknown as Event[]);
  const last = events[events.length - 1];
  return { state, revision: last ? last.revision : null, events };
}

export async function handleCommand<State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  args: HandleCommandArgs<State, Command, Event>,
): Promise<CommandOutcome<State, Event>> {
  const maxRetries = deps.maxRetries ?? 5;
  for (let attempt = 0; ; attempt++) {
    const { state, revision } =
      attempt === 0 && args.loaded
        ? args.loaded
        : await loadAggregate(deps.eventStore, args.stream, args.decider);
    const command =
      typeof args.command === 'function'
        ? await (args.command as (s: State) => Command | Promise<Command>)(state)
        : args.command;
    const events = args.decider.decide(command, state);
    if (events.length === 0) return { state, before: state, events, revision, position: null };

    const next = fold({ initialState: state, evolve: args.decider.evolve }, events);
    const outcomeBase = { state: next, before: state, events, revision: (revision ?? -1) + events.length };
    const newEvents: NewEvent[] = events.map((event, index) => ({
      id: args.eventId?.(event, index, (revision ?? -1) + 1 + index) ?? randomUUID(),
      type: event.type,
      data: event.data,
      metadata: {
        orgId: args.metadata.orgId,
        actor: args.metadata.actor,
        correlationId: args.metadata.correlationId,
        causationId: args.metadata.causationId ?? null,
        occurredAt: args.metadata.now,
        schemaVersion: args.schemaVersion ?? 1,
      },
    }));
    try {
      const sideWrite = args.sideWrite;
      const result = await deps.eventStore.appendToStream(args.stream, newEvents, {
        expectedRevision: revision ?? 'no_stream',
        sideWrite: sideWrite
          ? (trx: unknown) => sideWrite(trx, { ...outcomeBase, position: null })
          : undefined,
      });
      if (args.awaitReadModels !== false) await awaitReadModels(deps, result.position);
      return { ...outcomeBase, revision: result.nextExpectedRevision, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedVersion && attempt < maxRetries) {
        // Someone else wrote first: decide again against what they wrote, after a short jittered pause.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
        continue;
      }
      if (error instanceof WrongExpectedVersion) {
        throw new Conflict('The resource was changed concurrently; try again', 'concurrency_conflict');
      }
      throw error;
    }
  }
}

export async function awaitReadModels(deps: CommandDeps, position: Checkpoint): Promise<void> {
  if (!deps.waitForProjections) return;
  const timeoutMs = deps.readYourWritesTimeoutMs ?? 5000;
  const visible = await deps.waitForProjections(position, { timeoutMs });
  if (!visible) {
    throw new ServiceUnavailable(
      `The change was recorded, but the read models did not show it within ${timeoutMs} ms; it will appear shortly`,
      'read_models_lagging',
    );
  }
}
