// Recording an asset of the media library: one stream per asset (`media-<assetId>`, domain/media/media-asset.ts).
import { mediaCategory, mediaDecider, type StoredMediaAsset } from '../../domain/media/media-asset.js';
import { streamName } from '../../infra/event-store/port.js';
import { workspaceObjectPrefix, type ObjectStorage } from '../../infra/object-storage/port.js';
import { isMediaKey } from '../shared/image-uploads.js';
import {
  handleCommand,
  loadAggregate,
  type CommandDeps,
  type CommandMetadata,
  type SideWriteOption,
} from '../shared/command-handler.js';
import { deterministicEventIds } from '../shared/ids.js';

export const mediaStream = (assetId: string) => streamName(mediaCategory, assetId);

/** Where an asset's bytes are kept: `orgs/<orgId>/media/<assetId>.<ext>` (unguessable: the id is a uuid). */
export function mediaKeyOf(orgId: string, assetId: string, extension: string): string {
  return `${workspaceObjectPrefix(orgId)}media/${assetId}.${extension}`;
}

/**
 * Where an upload slot puts a file before it is completed: `uploads/media/<orgId>/<assetId>.<ext>`. Completing
 * copies the bytes to the asset's own key (mediaKeyOf), which no signed PUT ever names, and deletes this one:
 * a slot's URL, valid for its hour, can never change an asset's bytes. Nothing serves keys under `uploads/`.
 */
export function uploadKeyOf(orgId: string, assetId: string, extension: string): string {
  workspaceObjectPrefix(orgId);
  return `${pendingUploadsPrefix}media/${orgId}/${assetId}.${extension}`;
}

/** Every key of an upload not yet completed starts with this. */
export const pendingUploadsPrefix = 'uploads/';

const uploadKey = /^uploads\/media\/([0-9a-f-]{36})\/([0-9a-f-]{36})\.([a-z0-9]+)$/;

/**
 * Why the storage's PUT route refuses to write `key`, or null: an asset's own key is written once by the
 * service (`object_immutable`); an upload's key once its asset's key holds the completed upload (`upload_completed`).
 */
export async function refusedMediaWrite(
  storage: Pick<ObjectStorage, 'head'>,
  key: string,
): Promise<{ code: string; message: string } | null> {
  if (isMediaKey(key))
    return {
      code: 'object_immutable',
      message: 'A media asset is stored for good; its bytes cannot be replaced',
    };
  const upload = uploadKey.exec(key);
  if (upload && (await storage.head(mediaKeyOf(upload[1]!, upload[2]!, upload[3]!))))
    return { code: 'upload_completed', message: 'This upload was completed; its URL cannot be used again' };
  return null;
}

/** The side write (the idempotency record) receives the asset the write answers with. */
export interface RecordOptions extends SideWriteOption<StoredMediaAsset> {
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
