// Recording an asset of the media library: one stream per asset (`media-<assetId>`, domain/media/media-asset.ts).
import { mediaCategory, mediaDecider, type StoredMediaAsset } from '../../domain/media/media-asset.js';
import { streamName } from '../../infra/event-store/port.js';
import { workspaceObjectPrefix } from '../../infra/object-storage/port.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
} from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';

export const mediaStream = (assetId: string) => streamName(mediaCategory, assetId);

/** Where an asset's bytes are kept: `orgs/<orgId>/media/<assetId>.<ext>` (unguessable: the id is a uuid). */
export function mediaKeyOf(orgId: string, assetId: string, extension: string): string {
  return `${workspaceObjectPrefix(orgId)}media/${assetId}.${extension}`;
}

export interface RecordOptions {
  /** Committed with the append (the idempotency record); receives the asset the write answers with. */
  sideWrite?: (trx: unknown, asset: StoredMediaAsset) => Promise<void>;
  idempotencySeed?: string;
}

/**
 * Records the asset; answers with the asset as recorded (the first recording when it was stored before, e.g. a
 * completed upload completed again). 404 when the id is another workspace's asset.
 */
export async function recordMediaAsset(
  deps: CommandDeps,
  asset: StoredMediaAsset,
  metadata: CommandMetadata,
  options: RecordOptions = {},
): Promise<{ asset: StoredMediaAsset; appended: boolean }> {
  const stored = (state: { status: string; asset?: StoredMediaAsset }) => {
    if (state.status !== 'stored' || !state.asset)
      throw new Error(`Media asset ${asset.assetId} missing after it was stored`);
    return state.asset;
  };
  const sideWrite = options.sideWrite;
  const outcome = await handleCommand(deps, {
    stream: mediaStream(asset.assetId),
    decider: mediaDecider,
    command: { type: 'StoreMediaAsset', asset },
    metadata: { ...metadata, orgId: asset.orgId },
    eventId: deterministicEventIds(options.idempotencySeed, 'media', asset.assetId),
    sideWrite: sideWrite ? (trx, o) => sideWrite(trx, stored(o.state)) : undefined,
  });
  return { asset: stored(outcome.state), appended: outcome.events.length > 0 };
}

/** The asset as recorded in the event store, whichever workspace it is of, or null. */
export async function loadAnyMediaAsset(
  deps: Pick<CommandDeps, 'eventStore'>,
  assetId: string,
): Promise<StoredMediaAsset | null> {
  const { state } = await loadAggregate(deps.eventStore, mediaStream(assetId), mediaDecider);
  return state.status === 'stored' ? state.asset : null;
}

/** The asset as recorded in the event store, or null (also when it is another workspace's). */
export async function loadMediaAsset(
  deps: Pick<CommandDeps, 'eventStore'>,
  orgId: string,
  assetId: string,
): Promise<StoredMediaAsset | null> {
  const asset = await loadAnyMediaAsset(deps, assetId);
  return asset && asset.orgId === orgId ? asset : null;
}
