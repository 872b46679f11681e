// Workspace slugs are unique across the service: each slug is an aggregate of its own (`workspaceSlug-<slug>`),
// reserved for one workspace id before that workspace is created. See docs/decisions.md, "Uniqueness".
import { Conflict } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { slugReservationEventCodec } from './event-codec.js';

export const slugReservationCategory = 'workspaceSlug';

/** A reservation whose workspace never came into being (a crash between the two appends) may be taken over after this. */
export const abandonedReservationMs = 60_000;

export type SlugReservationEvent = {
  type: 'SlugReserved';
  data: { slug: string; orgId: string; reservedAt: string };
};

export type SlugReservationCommand = {
  type: 'ReserveSlug';
  slug: string;
  orgId: string;
  now: string;
  /** Whether the workspace currently holding the reservation exists (loaded by the handler). */
  holderExists: boolean;
};

export type SlugReservationState =
  { status: 'free' } | { status: 'reserved'; orgId: string; reservedAt: string };

export const slugReservationDecider: Decider<
  SlugReservationState,
  SlugReservationCommand,
  SlugReservationEvent
> = {
  initialState: { status: 'free' },
  codec: slugReservationEventCodec,
  decide(command, state) {
    switch (command.type) {
      case 'ReserveSlug': {
        const event: SlugReservationEvent = {
          type: 'SlugReserved',
          data: { slug: command.slug, orgId: command.orgId, reservedAt: command.now },
        };
        if (state.status === 'free') return [event];
        if (state.orgId === command.orgId) return [];
        const abandoned =
          !command.holderExists &&
          Date.parse(command.now) - Date.parse(state.reservedAt) >= abandonedReservationMs;
        if (abandoned) return [event];
        throw new Conflict(`The slug "${command.slug}" is already taken`, 'slug_taken');
      }
      default:
        return assertNever(command.type);
    }
  },
  evolve(_state, event) {
    return { status: 'reserved', orgId: event.data.orgId, reservedAt: event.data.reservedAt };
  },
};
