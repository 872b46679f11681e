// Invitation commands: decide and append on one invitation's stream (`invitation-<invitationId>`), and load it.
import {
  invitationCategory,
  invitationDecider,
  type Invitation,
  type InvitationCommand,
  type InvitationState,
} from '../../domain/invitations/invitation.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';

export const invitationStream = (invitationId: string) => streamName(invitationCategory, invitationId);

export interface LoadedInvitation {
  state: InvitationState;
  revision: number | null;
}

export async function loadInvitation(
  deps: Pick<CommandDeps, 'eventStore'>,
  invitationId: string,
): Promise<LoadedInvitation> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    invitationStream(invitationId),
    invitationDecider,
  );
  return { state, revision };
}

/**
 * Decides the command against the invitation and appends what it decided (retrying on a concurrent write);
 * `loaded` is the state the caller already checked, used for the first decision.
 */
export async function runInvitationCommand(
  deps: CommandDeps,
  invitationId: string,
  orgId: string,
  command: InvitationCommand,
  metadata: CommandMetadata,
  /** The side write (the idempotency record) receives the invitation the write answers with. */
  options: SideWriteOption<Invitation> & { loaded?: LoadedInvitation } = {},
): Promise<{ invitation: Invitation; appended: boolean }> {
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: invitationStream(invitationId),
    decider: invitationDecider,
    command,
    metadata: { ...metadata, orgId },
    ...(options.loaded ? { loaded: options.loaded } : {}),
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, invitationIn(o.state)) : undefined,
  });
  return { invitation: invitationIn(outcome.state), appended: outcome.events.length > 0 };
}

export function invitationIn(state: InvitationState): Invitation {
  // decide refused the command already when the invitation is missing; reaching this is a broken invariant.
  if (state.status !== 'present') throw new Error('Invitation missing from its state');
  return state.invitation;
}
