// Brand kit use cases for a caller (a member, or an assistant): read the kit, and edit it. An edit is checked
// field by field before anything is saved (422 with one problem per bad field); a logo link is downloaded
// through the SSRF-safe fetcher, judged by its bytes, an SVG sanitised, and stored in the workspace's media
// library. `dryRun` does all the checking (the logo too) and answers the kit as it would be, saving nothing.
import { createHash } from 'node:crypto';
import {
  applyChanges,
  assertFresh,
  effectiveChanges,
  missingParts,
  type BrandKitChanges,
  type BrandLogo,
  type BrandKitState,
} from '../../domain/brand/brand-kit.js';
import {
  checkEdit,
  kitWarnings,
  type BrandKitEdit,
  type KitWarning,
  type LogoReference,
} from '../../domain/brand/kit-fields.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  ServiceUnavailable,
  Unprocessable,
  ValidationError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import type { LogoFile, LogoReader } from '../../infra/brand/logo-image.js';
import { NotALogo } from '../../infra/brand/not-a-logo.js';
import {
  checkUrl,
  fetchFailedMessage,
  fetchFailureReason,
  ResponseTooLargeError,
  safeFetch,
  UnsafeUrlError,
  type OutboundPolicy,
  type SafeFetchResult,
} from '../../infra/http/safe-fetch.js';
import {
  readWebsite,
  WebsiteParseFailed,
  WebsiteRefused,
  type WebsiteCandidates,
} from '../../infra/brand/website-reader.js';
import type { Logger } from '../../infra/logging/logger.js';
import { workspaceObjectPrefix, type ObjectStorage } from '../../infra/object-storage/port.js';
import type { MediaItem, MediaLibrary } from '../media/library.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import { brandKitView, loadBrandKit, updateBrandKit as appendUpdate } from './brand-kit-commands.js';
import type { BrandKit } from './brand-kit-port.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A logo file may be at most this large (a logo is small; this leaves room for detailed SVGs). */
export const maxLogoBytes = 5 * 1024 * 1024;
/** Everything of a logo download (resolving, connecting, redirects, the whole body) within this time. */
export const logoFetchTimeoutMs = 10_000;

export interface BrandKitDeps extends WriteDeps {
  media: MediaLibrary;
  storage: ObjectStorage;
  /** Tests only (api/runtime.ts `outbound`): which private servers a fetch may reach, and a resolver. */
  outbound: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  /** Reads a downloaded logo off the request thread (the render pool), within its pixel cap and deadline. */
  logos: Pick<LogoReader, 'read'>;
  /** Why a website could not be read is logged here, never answered (the answer says only `reachable: false`). */
  logger?: Pick<Logger, 'info'>;
  /**
   * Tests only (RuntimeOptions.fetchTimeoutMs): the deadline of a logo download and of a website's page and
   * stylesheets, in place of logoFetchTimeoutMs and the website reader's own.
   */
  fetchTimeoutMs?: number;
}

const reading = (orgId: string) =>
  ({ orgId, permission: ['workspace:read', 'posts:read'], scope: 'mcp:read' }) as const;
const writing = (orgId: string) => ({ orgId, permission: 'brand:write', scope: 'brand:write' }) as const;

export async function getBrandKit(
  deps: Pick<WriteDeps, 'commands'>,
  caller: Caller,
  input: { orgId: string },
): Promise<BrandKit> {
  authorize(caller, reading(input.orgId));
  return brandKitView((await loadBrandKit(deps.commands, input.orgId)).state);
}

export interface UpdateBrandKitInput {
  orgId: string;
  edit: BrandKitEdit;
  /** The `updatedAt` the caller read (null: a kit never edited); refused with 409 when the kit moved on. */
  ifUpdatedAt?: string | null;
  dryRun?: boolean;
}

export interface BrandKitUpdateResult {
  saved: boolean;
  kit: BrandKit;
  /** The fields the edit changed (or would change, for a dry run), e.g. `colors.primary`, `logo`. */
  changed: string[];
  warnings: KitWarning[];
  missing: string[];
  previewHint: string;
}

/** The 422 of a refused edit: every bad field, named as in the edit (`colors.primary`, `logo.url`). */
export class BrandKitRefused extends Unprocessable {
  constructor(problems: ErrorDetail[]) {
    const list = problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    super(
      `The brand kit was not saved: ${problems.length === 1 ? 'one field is' : `${problems.length} fields are`} invalid (${list})`,
      'invalid_brand_kit',
      problems.map((p) => ({ path: p.path, message: p.message })),
    );
  }
}

/** A logo to set: the checked file (to store), or an asset of the library (already stored). */
type ResolvedLogo =
  | { from: 'url'; sourceUrl: string; file: LogoFile; bytesSha256: string }
  | { from: 'asset'; item: MediaItem };

function refusedLink(message: string): ValidationError {
  return new ValidationError(`The logo link cannot be fetched: ${message}`, 'logo_url_refused', [
    { path: 'logo.url', message },
  ]);
}

/**
 * A 400 for what the link's own server did (too large, too slow); for whatever the network said (no such name, a
 * private address behind a name or a redirect, a refusal) one problem of the field, its reason only logged.
 */
function fetchProblem(
  error: unknown,
  unfetchable: (reason: unknown) => string,
  timeoutMs: number,
): ValidationError | string {
  if (error instanceof ResponseTooLargeError) return refusedLink(error.message);
  if ((error as { name?: string }).name === 'TimeoutError')
    return refusedLink(`it did not answer in full within ${timeoutMs / 1000} s`);
  return unfetchable(error);
}

/**
 * Downloads and reads the logo at `url`. A link refused by itself (scheme, port, a private address literal), an
 * oversized body and a download past the deadline are 400s (thrown); a link that cannot be fetched (whatever
 * the network said, or an error status: one problem, the reason logged) or a file that is not an image are
 * problems of the field (returned).
 */
async function downloadLogo(
  deps: Pick<BrandKitDeps, 'outbound' | 'logos' | 'logger' | 'fetchTimeoutMs'>,
  url: string,
): Promise<{ logo: ResolvedLogo } | { problem: string }> {
  try {
    checkUrl(new URL(url), deps.outbound);
  } catch (error) {
    if (error instanceof UnsafeUrlError) throw refusedLink(error.message);
    throw refusedLink('it is not a URL');
  }
  const unfetchable = (reason: unknown) => {
    deps.logger?.info(
      { url, reason: fetchFailureReason(reason) },
      'brand kit logo link could not be fetched',
    );
    return `the link ${fetchFailedMessage}`;
  };
  const timeoutMs = deps.fetchTimeoutMs ?? logoFetchTimeoutMs;
  let fetched: SafeFetchResult;
  try {
    fetched = await safeFetch(url, {
      ...deps.outbound,
      maxBytes: maxLogoBytes,
      timeoutMs,
      headers: { accept: 'image/svg+xml,image/png,image/webp,image/jpeg;q=0.9,image/*;q=0.8,*/*;q=0.1' },
    });
  } catch (error) {
    const problem = fetchProblem(error, unfetchable, timeoutMs);
    if (typeof problem === 'string') return { problem };
    throw problem;
  }
  if (fetched.status < 200 || fetched.status > 299)
    return { problem: unfetchable(new Error(`it answered HTTP ${fetched.status}`)) };
  try {
    const file = await deps.logos.read(fetched.body);
    const bytesSha256 = createHash('sha256').update(fetched.body).digest('hex');
    return { logo: { from: 'url', sourceUrl: url, file, bytesSha256 } };
  } catch (error) {
    if (error instanceof NotALogo)
      return { problem: `the link does not give a usable logo: ${error.message}` };
    throw error;
  }
}

async function libraryLogo(
  deps: Pick<BrandKitDeps, 'media'>,
  orgId: string,
  assetId: string,
): Promise<{ logo: ResolvedLogo } | { problem: string }> {
  if (!uuidPattern.test(assetId)) return { problem: `"${assetId}" is not a media asset id (a UUID)` };
  const item = await deps.media.get(orgId, assetId.toLowerCase());
  if (!item) return { problem: `no media asset ${assetId} in this workspace` };
  if (item.asset.kind !== 'image')
    return { problem: `media asset ${assetId} is a ${item.asset.kind}, not an image` };
  return { logo: { from: 'asset', item } };
}

async function resolveLogo(
  deps: BrandKitDeps,
  orgId: string,
  reference: LogoReference,
): Promise<{ logo: ResolvedLogo } | { problem: ErrorDetail }> {
  const result =
    'url' in reference
      ? await downloadLogo(deps, reference.url)
      : await libraryLogo(deps, orgId, reference.assetId);
  if ('logo' in result) return result;
  return { problem: { path: 'url' in reference ? 'logo.url' : 'logo.assetId', message: result.problem } };
}

/** The kit's logo for an asset of the library. */
function logoOfItem(item: MediaItem, sourceUrl: string | null): BrandLogo {
  const asset = item.asset;
  if (asset.kind !== 'image') throw new Error(`asset ${item.id} is not an image`);
  return {
    assetId: item.id,
    url: asset.url,
    sourceUrl,
    width: asset.width ?? null,
    height: asset.height ?? null,
    contentType: asset.contentType,
  };
}

/**
 * The logo as a dry run shows it: where it came from and what it is, without an asset (nothing is stored).
 * An SVG is shown as the PNG rendition the library would store.
 */
function previewLogo(logo: ResolvedLogo): BrandLogo {
  if (logo.from === 'asset') return logoOfItem(logo.item, null);
  const file = logo.file;
  return {
    assetId: null,
    url: null,
    sourceUrl: logo.sourceUrl,
    width: file.kind === 'svg' ? file.png.width : file.width,
    height: file.kind === 'svg' ? file.png.height : file.height,
    contentType: file.kind === 'svg' ? 'image/png' : file.contentType,
  };
}

/**
 * Stores a downloaded logo in the workspace's media library (source `import`, title `Logo`). An SVG is stored
 * as its PNG rendition (what visuals and posts can use; the library keeps raster images), and the sanitised SVG
 * itself beside it in the workspace's storage (`orgs/<orgId>/brand/logo-<assetId>.svg`). The asset id comes
 * from the file's bytes, so storing the same logo again (a retry) stores nothing twice.
 */
async function storeLogo(
  deps: BrandKitDeps,
  caller: Caller,
  orgId: string,
  logo: ResolvedLogo,
): Promise<BrandLogo> {
  if (logo.from === 'asset') return logoOfItem(logo.item, null);
  const file = logo.file;
  const item = await deps.media
    .store({
      orgId,
      caller,
      source: 'import',
      title: 'Logo',
      altText: 'Logo',
      idSeed: `brand-logo:${logo.bytesSha256}`,
      ...(file.kind === 'svg'
        ? {
            bytes: file.png.bytes,
            contentType: 'image/png',
            width: file.png.width,
            height: file.png.height,
          }
        : { bytes: file.bytes, contentType: file.contentType, width: file.width, height: file.height }),
    })
    .catch((error: unknown) => {
      // The library has limits of its own (size per kind): a logo it refuses is a problem of the field.
      if (error instanceof Unprocessable)
        throw new BrandKitRefused([{ path: 'logo.url', message: error.message }]);
      throw error;
    });
  if (file.kind === 'svg')
    await deps.storage.put(
      `${workspaceObjectPrefix(orgId)}brand/logo-${item.id}.svg`,
      new TextEncoder().encode(file.svg),
      'image/svg+xml',
    );
  return logoOfItem(item, logo.sourceUrl);
}

/** The preview request the hint shows, as JSON: what a caller can send as it is. */
const previewHintBody = JSON.stringify({
  kind: 'image',
  content: { title: 'Your headline', theme: 'brand' },
});

function previewHint(orgId: string, kit: BrandKitState): string {
  const missing = missingParts(kit);
  const base =
    `To see the kit on a visual, POST /v1/orgs/${orgId}/marketing/visuals/preview with the body ` +
    `${previewHintBody} (or call create_branded_image): it renders a small preview in these colours, fonts ` +
    'and logo and stores nothing.';
  return missing.length === 0
    ? base
    : `${base} Unset parts (${missing.join(', ')}) use the service's defaults.`;
}

function resultOf(
  orgId: string,
  kit: BrandKitState,
  saved: boolean,
  changed: string[],
): BrandKitUpdateResult {
  const view = brandKitView(kit);
  return {
    saved,
    kit: view,
    changed,
    warnings: kitWarnings(kit),
    missing: view.missing,
    previewHint: previewHint(orgId, kit),
  };
}

/**
 * Checks every field (collecting every problem: 422 `invalid_brand_kit` with one detail per bad field), then
 * records the edit (nothing when it changes nothing) or, with `dryRun`, answers the kit as it would be.
 * 409 `stale_brand_kit` when `ifUpdatedAt` is not the kit's current `updatedAt`.
 */
export async function updateBrandKit(
  deps: BrandKitDeps,
  caller: Caller,
  input: UpdateBrandKitInput,
  request: WriteRequest,
): Promise<Written<BrandKitUpdateResult>> {
  authorize(caller, writing(input.orgId));
  const { orgId } = input;

  const check = async (): Promise<{ changes: Omit<BrandKitChanges, 'logo'>; logo?: ResolvedLogo | null }> => {
    const checked = checkEdit(input.edit);
    const problems = [...checked.problems];
    let logo: ResolvedLogo | null | undefined = checked.logo === null ? null : undefined;
    if (checked.logo) {
      const resolved = await resolveLogo(deps, orgId, checked.logo);
      if ('problem' in resolved) problems.push(resolved.problem);
      else logo = resolved.logo;
    }
    if (problems.length > 0) throw new BrandKitRefused(problems);
    return { changes: checked.changes, ...(logo !== undefined ? { logo } : {}) };
  };

  if (input.dryRun) {
    const { changes, logo } = await check();
    const { state } = await loadBrandKit(deps.commands, orgId);
    assertFresh(state, input.ifUpdatedAt);
    const all: BrandKitChanges = {
      ...changes,
      ...(logo !== undefined ? { logo: logo && previewLogo(logo) } : {}),
    };
    const effective = effectiveChanges(state, all);
    const after = applyChanges(state, effective.changes);
    return { output: resultOf(orgId, after, false, effective.changed), replayed: false };
  }

  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const { changes, logo } = await check();
    const loaded = await loadBrandKit(deps.commands, orgId);
    // Refused before the logo is stored: a stale edit leaves nothing behind.
    assertFresh(loaded.state, input.ifUpdatedAt);
    const all: BrandKitChanges = {
      ...changes,
      ...(logo !== undefined ? { logo: logo && (await storeLogo(deps, caller, orgId, logo)) } : {}),
    };
    const outcome = await appendUpdate(
      deps.commands,
      orgId,
      { changes: all, ...(input.ifUpdatedAt !== undefined ? { ifUpdatedAt: input.ifUpdatedAt } : {}) },
      metadata,
      {
        loaded,
        ...(record
          ? {
              sideWrite: (trx, o) =>
                record(trx, resultOf(orgId, o.state, true, effectiveChanges(o.before, all).changed)),
            }
          : {}),
      },
    );
    return resultOf(orgId, outcome.state, true, effectiveChanges(outcome.before, all).changed);
  });
}

/**
 * Reads a public website for brand-kit candidates (saves nothing). 400 for a URL that is refused by itself (not
 * http(s), a private address literal, a port) or a page too large or complex to parse in time; a site that
 * cannot be fetched, for whatever reason (logged, not answered), answers `reachable: false`; 503 when too many
 * pages wait for a parser.
 */
export async function findBrandKitOnWebsite(
  deps: Pick<BrandKitDeps, 'outbound' | 'logger' | 'fetchTimeoutMs'>,
  caller: Caller,
  input: { orgId: string; url: string },
): Promise<WebsiteCandidates> {
  authorize(caller, reading(input.orgId));
  try {
    return await readWebsite(input.url, {
      policy: deps.outbound,
      ...(deps.fetchTimeoutMs ? { timeoutMs: deps.fetchTimeoutMs } : {}),
      onUnreadable: (url, reason) =>
        deps.logger?.info({ orgId: input.orgId, url, err: reason }, 'brand kit website could not be read'),
    });
  } catch (error) {
    if (error instanceof WebsiteRefused)
      throw new ValidationError(error.message, 'website_refused', [{ path: 'url', message: error.message }]);
    if (error instanceof WebsiteParseFailed)
      throw new ServiceUnavailable(error.message, 'website_reader_busy');
    throw error;
  }
}
