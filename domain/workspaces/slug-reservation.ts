// Workspace slugs are unique across the service: each slug is an aggregate of its own (`workspaceSlug-<slug>`),
// reserved for one workspace id before that workspace is created or renamed to it. See docs/decisions.md,
// "Uniqueness" and "Workspace administration": a slug its holder no longer uses (renamed, deleted) is free again.
import { Conflict } from '../shared/errors.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { slugReservationEventCodec, type SlugReservationEvent } from './event-codec.js';

export const slugReservationCategory = 'workspaceSlug';

export type { SlugReservationEvent } from './event-codec.js';

/**
 * A reservation its workspace does not use (a crash between the two appends, a rename away, a deletion) may be
 * taken over once it is this old; a younger one may still be on its way into the workspace.
 */
export const abandonedReservationMs = 60_000;

export type SlugReservationCommand = {
  type: 'ReserveSlug';
  slug: string;
  orgId: string;
  now: string;
  /** Whether the workspace holding the reservation exists, is not deleted and has this slug (loaded by the handler). */
  holderUsesSlug: boolean;
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
          !command.holderUsesSlug &&
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
