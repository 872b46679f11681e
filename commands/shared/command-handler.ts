// The one write path: load stream → decide → append with the expected revision → bounded retry on conflict,
// then wait until the read models show the change (read-your-writes) before the caller answers 2xx.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fold, type Decider, type DomainEvent } from '../../domain/shared/decider.js';
import { AppError, Conflict, ServiceUnavailable } from '../../domain/shared/errors.js';
import type { CommandMetrics, CommandOutcomeLabel } from '../../infra/metrics/metrics.js';
import {
  WrongExpectedVersion,
  type Checkpoint,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../infra/event-store/port.js';
import type { ReadModels } from '../../projections/read-models.js';

export interface CommandDeps {
  eventStore: EventStore<unknown>;
  /**
   * Resolves true once every serving read model has passed the position (false on timeout); with `eventTypes`,
   * only the read models that fold one of those types (the others have nothing of the write to show).
   */
  waitForProjections?: (
    position: Checkpoint,
    options: { timeoutMs: number; eventTypes?: readonly string[] },
  ) => Promise<boolean>;
  readYourWritesTimeoutMs?: number;
  /** Attempts after a concurrency conflict before answering 409. */
  maxRetries?: number;
  /** Counts each command's outcome (`/metrics`). */
  metrics?: CommandMetrics;
}

export interface CommandMetadata {
  orgId: string | null;
  /** A user id, `system`, or `assistant:<clientId>`. */
  actor: string;
  /** The user acting, or the user an assistant acts for (`by` in events); absent for the service's own work. */
  userId?: string;
  correlationId: string;
  causationId?: string | null;
  now: string;
  /** For an assistant's write: its client, the connection and the user it acts for (kept in every event's metadata). */
  assistant?: AssistantMetadata;
}

/** Who an assistant's event came from, in its metadata: "assistant <clientName> on behalf of <onBehalfOf>". */
export interface AssistantMetadata {
  clientId: string;
  clientName: string;
  connectionId: string;
  onBehalfOf: string;
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

/**
 * The handle work committed with an append gets: the append's transaction on the PostgreSQL store, the database
 * right after the append on EventStoreDB (`transactionalSideWrites`). Either way the service's one database.
 */
export type SideWriteDb = Kysely<ReadModels>;

/** Work committed with an append, given what the command decided (its outcome, the aggregate, the answer). */
export type SideWriteOf<Value = void> = (trx: SideWriteDb, value: Value) => Promise<void>;

/** The option of a command that can commit work with its append (the idempotency record, mostly). */
export interface SideWriteOption<Value = void> {
  /** Committed with the append; receives what the write will answer with (or what it answers from). */
  sideWrite?: SideWriteOf<Value>;
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
  sideWrite?: SideWriteOf<CommandOutcome<State, Event>>;
  /** The aggregate as the caller already read it: the first decision uses it instead of reading again. */
  loaded?: { state: State; revision: number | null };
  /** Skip the read-your-writes wait for intermediate steps of a multi-step command. */
  awaitReadModels?: boolean;
}

/** Reads and folds a stream; its events are decoded by the decider's codec (upcast, checked) on the way in. */
export async function loadAggregate<State, Event extends DomainEvent>(
  eventStore: EventStore<unknown>,
  stream: string,
  decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve' | 'codec'>,
  options: { toRevision?: number } = {},
): Promise<{ state: State; revision: number | null; events: RecordedEvent[] }> {
  const events = await eventStore.readStream(stream, { toRevision: options.toRevision });
  const state = fold(decider, decider.codec.decodeAll(events));
  const last = events[events.length - 1];
  return { state, revision: last ? last.revision : null, events };
}

export async function handleCommand<State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  args: HandleCommandArgs<State, Command, Event>,
): Promise<CommandOutcome<State, Event>> {
  if (!deps.metrics) return decideAndAppend(deps, args);
  const metrics = deps.metrics;
  let type = 'unknown';
  let retries = 0;
  const counted = {
    ...args,
    onDecided: (command: Command, attempt: number) => {
      type = commandType(command);
      retries = attempt;
    },
  };
  try {
    const outcome = await decideAndAppend(deps, counted);
    metrics.commandHandled(type, outcome.position ? 'appended' : 'unchanged', retries);
    return outcome;
  } catch (error) {
    metrics.commandHandled(type, failureLabel(error), retries);
    throw error;
  }
}

/** The command's `type`; several steps decided together (an array) are named `A+B`. */
function commandType(command: unknown): string {
  if (Array.isArray(command)) return [...new Set(command.map(commandType))].join('+') || 'none';
  const type =
    typeof command === 'object' && command !== null ? (command as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'unknown';
}

function failureLabel(error: unknown): CommandOutcomeLabel {
  if (error instanceof Conflict && error.code === 'concurrency_conflict') return 'conflict';
  // Recorded, only not yet visible in the read models.
  if (error instanceof ServiceUnavailable && error.code === 'read_models_lagging') return 'appended';
  return error instanceof AppError && !(error instanceof ServiceUnavailable) ? 'refused' : 'failed';
}

async function decideAndAppend<State, Command, Event extends DomainEvent>(
  deps: CommandDeps,
  args: HandleCommandArgs<State, Command, Event> & {
    onDecided?: (command: Command, attempt: number) => void;
  },
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
    args.onDecided?.(command, attempt);
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
        schemaVersion: args.decider.codec.schemaVersion(event.type),
        ...(args.metadata.assistant ? { assistant: args.metadata.assistant } : {}),
      },
    }));
    try {
      const sideWrite = args.sideWrite;
      const result = await deps.eventStore.appendToStream(args.stream, newEvents, {
        expectedRevision: revision ?? 'no_stream',
        sideWrite: sideWrite
          ? // The stores the service builds hand their Kysely<ReadModels> handle (or its transaction) here.
            (trx) => sideWrite(trx as SideWriteDb, { ...outcomeBase, position: null })
          : undefined,
      });
      if (args.awaitReadModels !== false)
        await awaitReadModels(
          deps,
          result.position,
          newEvents.map((e) => e.type),
        );
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

/** Waits for the read models to show a write; `eventTypes` (what it appended) narrows which read models. */
export async function awaitReadModels(
  deps: CommandDeps,
  position: Checkpoint,
  eventTypes?: readonly string[],
): Promise<void> {
  if (!deps.waitForProjections) return;
  const timeoutMs = deps.readYourWritesTimeoutMs ?? 5000;
  const visible = await deps.waitForProjections(position, {
    timeoutMs,
    ...(eventTypes !== undefined ? { eventTypes } : {}),
  });
  if (!visible) {
    throw new ServiceUnavailable(
      `The change was recorded, but the read models did not show it within ${timeoutMs} ms; it will appear shortly`,
      'read_models_lagging',
    );
  }
}
