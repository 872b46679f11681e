// Follower-count commands: record a reading of an account's audience, or that it cannot be read, and load what is
// recorded. One stream per social account, `accountAudience-<socialAccountId>` (domain/analytics/follower-counts.ts).
import {
  accountAudienceCategory,
  accountAudienceDecider,
  type AccountAudienceCommand,
  type AccountAudienceState,
  type AudienceEvent,
} from '../../domain/analytics/follower-counts.js';
import { streamName, type Checkpoint } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';

export const accountAudienceStream = (socialAccountId: string) =>
  streamName(accountAudienceCategory, socialAccountId);

export async function loadAccountAudience(
  deps: Pick<CommandDeps, 'eventStore'>,
  socialAccountId: string,
): Promise<{ state: AccountAudienceState; revision: number | null }> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    accountAudienceStream(socialAccountId),
    accountAudienceDecider,
  );
  return { state, revision };
}

export interface RecordedAudience {
  /** The event appended; null when the command decided nothing. */
  event: AudienceEvent | null;
  state: AccountAudienceState;
  position: Checkpoint | null;
}

/** Records a reading or an unavailability; the background reader has nobody waiting for the read model. */
export async function recordAccountAudience(
  deps: CommandDeps,
  command: AccountAudienceCommand,
  metadata: CommandMetadata,
  options: { awaitReadModels?: boolean } = {},
): Promise<RecordedAudience> {
  const outcome = await handleCommand(deps, {
    stream: accountAudienceStream(command.socialAccountId),
    decider: accountAudienceDecider,
    command,
    metadata: { ...metadata, orgId: command.orgId },
    ...(options.awaitReadModels === false ? { awaitReadModels: false } : {}),
  });
  return { event: outcome.events[0] ?? null, state: outcome.state, position: outcome.position };
}
