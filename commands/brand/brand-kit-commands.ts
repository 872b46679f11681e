// Brand kit commands: load the workspace's kit from its stream (`brandKit-<orgId>`) and record an edit.
import {
  brandKitCategory,
  brandKitDecider,
  missingParts,
  type BrandKitChanges,
  type BrandKitEvent,
  type BrandKitState,
} from '../../domain/brand/brand-kit.js';
import { streamName } from '../../infra/event-store/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type CommandOutcome,
  type SideWriteOption,
} from '../shared/command-handler.js';
import type { BrandKit } from './brand-kit-port.js';

export const brandKitStream = (orgId: string) => streamName(brandKitCategory, orgId);

/** The kit as the spec shows it: every field, `updatedAt` and the unset parts. */
export function brandKitView(state: BrandKitState): BrandKit {
  return {
    colors: { ...state.colors },
    headingFont: state.headingFont,
    bodyFont: state.bodyFont,
    logo: state.logo ? { ...state.logo } : null,
    tagline: state.tagline,
    website: state.website,
    updatedAt: state.updatedAt,
    missing: missingParts(state),
  };
}

/** The workspace's kit from the event store (the empty kit before the first edit), with its stream revision. */
export async function loadBrandKit(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
): Promise<{ state: BrandKitState; revision: number | null }> {
  const { state, revision } = await loadAggregate(deps.eventStore, brandKitStream(orgId), brandKitDecider);
  return { state, revision };
}

export interface BrandKitWrite {
  changes: BrandKitChanges;
  ifUpdatedAt?: string | null;
}

/**
 * Records the edit (nothing when it changes nothing); `sideWrite` is committed with the append and gets the
 * outcome. Refused with 409 `stale_brand_kit` when `ifUpdatedAt` is not the kit's current `updatedAt`.
 */
export async function updateBrandKit(
  deps: CommandDeps,
  orgId: string,
  write: BrandKitWrite,
  metadata: CommandMetadata,
  options: SideWriteOption<CommandOutcome<BrandKitState, BrandKitEvent>> & {
    loaded?: { state: BrandKitState; revision: number | null };
  } = {},
): Promise<CommandOutcome<BrandKitState, BrandKitEvent>> {
  return handleCommand(deps, {
    stream: brandKitStream(orgId),
    decider: brandKitDecider,
    command: {
      type: 'UpdateBrandKit',
      orgId,
      changes: write.changes,
      ...(write.ifUpdatedAt !== undefined ? { ifUpdatedAt: write.ifUpdatedAt } : {}),
      by: metadata.userId ?? metadata.actor,
      now: metadata.now,
    },
    metadata: { ...metadata, orgId },
    ...(options.sideWrite ? { sideWrite: options.sideWrite } : {}),
    ...(options.loaded ? { loaded: options.loaded } : {}),
  });
}
