// Brand profile commands: load the workspace's profile from its stream (`brandProfile-<orgId>`) and record an edit
// or an inference.
import {
  brandProfileCategory,
  brandProfileDecider,
  type BrandProfileCommand,
  type BrandProfileEvent,
  type BrandProfileState,
} from '../../domain/brand-profile/brand-profile.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
  type SideWriteOf,
} from '../shared/command-handler.js';

export const brandProfileStream = (orgId: string) => streamName(brandProfileCategory, orgId);

export async function loadBrandProfile(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<{ state: BrandProfileState; revision: number | null }> {
  const { state, revision } = await loadAggregate(
    deps.eventStore,
    brandProfileStream(orgId),
    brandProfileDecider,
  );
  return { state, revision };
}

export type BrandProfileOutcome = CommandOutcome<BrandProfileState, BrandProfileEvent>;

/** Decides `command` against the current profile and appends what it decided; `sideWrite` commits with it. */
export async function handleBrandProfileCommand(
  deps: CommandDeps,
  orgId: string,
  command: BrandProfileCommand,
  metadata: CommandMetadata,
  sideWrite?: SideWriteOf<BrandProfileOutcome>,
): Promise<BrandProfileOutcome> {
  return handleCommand(deps, {
    stream: brandProfileStream(orgId),
    decider: brandProfileDecider,
    command,
    metadata: { ...metadata, orgId },
    ...(sideWrite ? { sideWrite } : {}),
  });
}
