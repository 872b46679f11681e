// Brand profile use cases for a caller: read the profile (with the kit's facts and the learned preference
// signals), edit it (omitted fields stay, null clears, nested voice and outline merge, ids given to new items), and
// infer it from a website (a few pages read through the SSRF-safe fetcher, the `brand_profile.infer` AI job, saved
// unconfirmed). `inferBrandProfileFromWebsite` is the use case onboarding calls too.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AiJobRunner, AiSource } from '../../domain/ai/job.js';
import {
  profileLimits,
  type BrandProfileChanges,
  type BrandProfileState,
  type KnowledgeItem,
  type PreferenceSignal,
} from '../../domain/brand-profile/brand-profile.js';
import {
  inferBrandProfileJob,
  type InferredProfile,
  type SitePage,
  type SitePageKind,
} from '../../domain/brand-profile/infer-job.js';
import { brandProfileView, type BrandProfileView } from '../../domain/brand-profile/views.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import {
  InvalidFields,
  ServiceUnavailable,
  Unprocessable,
  ValidationError,
  type ErrorDetail,
} from '../../domain/shared/errors.js';
import type { PageTextParser } from '../../infra/brand-profile/page-text-parser.js';
import {
  readSite,
  SiteUnreachable,
  WebsiteParseFailed,
  WebsiteRefused,
} from '../../infra/brand-profile/site-reader.js';
import type { OutboundPolicy } from '../../infra/http/safe-fetch.js';
import type { Logger } from '../../infra/logging/logger.js';
import { learnedSignals } from '../../projections/brand-profile/queries.js';
import type { ReadModels } from '../../projections/read-models.js';
import type { BrandKitReader } from '../brand/brand-kit-port.js';
import type { CommandMetadata, SideWriteOf } from '../shared/command-handler.js';
import { runWrite, type WriteDeps, type WriteRequest, type Written } from '../shared/write-pipeline.js';
import {
  handleBrandProfileCommand,
  loadBrandProfile,
  type BrandProfileOutcome,
} from './brand-profile-commands.js';

export interface BrandProfileDeps extends WriteDeps {
  readModels: Kysely<ReadModels>;
  /** The brand kit, whose colours, fonts and logo the profile shows. */
  kit: Pick<BrandKitReader, 'get'>;
  /** The AI runtime (the `ai jobs` service). */
  aiJobs: AiJobRunner;
  /** Tests only (api/runtime.ts `outbound`): which private servers a fetch may reach, and a resolver. */
  outbound: Pick<OutboundPolicy, 'allowPrivate' | 'resolve'>;
  /** Tests only: each page's deadline. */
  fetchTimeoutMs?: number;
  /** Where pages are parsed (default: the process's shared page-text pool). */
  parser?: PageTextParser;
  logger?: Pick<Logger, 'info'>;
}

const reading = (orgId: string) =>
  ({ orgId, permission: ['workspace:read', 'posts:read'], scope: 'mcp:read' }) as const;
const writing = (orgId: string) => ({ orgId, permission: 'brand:write', scope: 'brand:write' }) as const;

/** The profile as answered: its own fields, the kit's facts, every signal. */
export async function profileViewOf(
  deps: Pick<BrandProfileDeps, 'readModels' | 'kit'>,
  orgId: string,
  state: BrandProfileState,
): Promise<BrandProfileView> {
  const [kit, learned] = await Promise.all([deps.kit.get(orgId), learnedSignals(deps.readModels, orgId)]);
  return brandProfileView(state, kit, learned);
}

/** The workspace's profile; a workspace without one answers the empty profile (meta dates null). */
export async function getBrandProfile(
  deps: Pick<BrandProfileDeps, 'commands' | 'readModels' | 'kit'>,
  caller: Caller,
  input: { orgId: string },
): Promise<BrandProfileView> {
  authorize(caller, reading(input.orgId));
  const { state } = await loadBrandProfile(deps.commands, input.orgId);
  return profileViewOf(deps, input.orgId, state);
}

// ---- Editing -------------------------------------------------------------------------------------------------

type Provenance = KnowledgeItem['provenance'];

/** What a PATCH body may carry: every profile field, partial nested objects, items without ids. */
export interface BrandProfileEdit {
  websiteUrl?: string | null;
  tagline?: string | null;
  mission?: string | null;
  voice?: Partial<BrandProfileState['voice']>;
  businessOutline?: Partial<BrandProfileState['businessOutline']>;
  brandType?: BrandProfileState['brandType'];
  identity?: string | null;
  expertise?: string[];
  goals?: string[];
  topics?: string[];
  opinions?: string[];
  guardrails?: { id?: string; text: string; disclosure: 'private' | 'restricted' }[];
  knowledgeItems?: (Omit<KnowledgeItem, 'id' | 'provenance'> & { id?: string; provenance?: Provenance })[];
  preferenceSignals?: (Omit<PreferenceSignal, 'id' | 'lastSeenAt'> & { id?: string; lastSeenAt?: string })[];
  profileDisclosure?: BrandProfileState['profileDisclosure'];
  /** The kit's facts: shown on the profile, edited on the kit (a value equal to the kit's is accepted). */
  logoUrl?: string | null;
  primaryFont?: string | null;
  secondaryFont?: string | null;
  colorPalette?: string[];
  backgroundColor?: string | null;
  logoAsset?: unknown;
  kitUpdatedAt?: string | null;
  /** Kept by the service; ignored in an edit. */
  meta?: unknown;
}

export const kitFacts = [
  'logoUrl',
  'primaryFont',
  'secondaryFont',
  'colorPalette',
  'backgroundColor',
  'logoAsset',
  'kitUpdatedAt',
] as const;

const trim = (value: string) => value.trim();
const trimNullable = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null ? null : value.trim() || null;
const trimList = (values: string[] | undefined) => values?.map(trim);

/**
 * The edit as the decider takes it: trimmed, nested objects merged onto the profile's, ids given to new items,
 * guardrails and explicit signals, provenance `user` for items that say none. Problems of the kit's facts and of
 * learned signals are collected (the decider checks the rest).
 */
export function normaliseEdit(
  edit: BrandProfileEdit,
  state: BrandProfileState,
  view: BrandProfileView,
  learned: ReadonlySet<string>,
  context: { now: string; newId: () => string },
): { changes: BrandProfileChanges; problems: ErrorDetail[] } {
  const problems: ErrorDetail[] = [];
  for (const key of kitFacts)
    if (edit[key] !== undefined && JSON.stringify(edit[key]) !== JSON.stringify(view[key]))
      problems.push({
        path: key,
        message: `comes from the brand kit; change it with PATCH brand/kit (it is ${JSON.stringify(view[key])})`,
      });
  const changes: BrandProfileChanges = {};
  const websiteUrl = trimNullable(edit.websiteUrl);
  if (websiteUrl !== undefined) changes.websiteUrl = websiteUrl;
  for (const key of ['tagline', 'mission', 'identity'] as const) {
    const value = trimNullable(edit[key]);
    if (value !== undefined) changes[key] = value;
  }
  if (edit.voice) {
    const v = { ...state.voice, ...edit.voice };
    changes.voice = {
      tone: v.tone.trim(),
      personalityTraits: v.personalityTraits.map(trim),
      writingGuidelines: v.writingGuidelines.map(trim),
      bannedPhrases: v.bannedPhrases.map(trim),
    };
  }
  if (edit.businessOutline) {
    const o = { ...state.businessOutline, ...edit.businessOutline };
    changes.businessOutline = {
      overview: o.overview.trim(),
      productsOrServices: o.productsOrServices.map(trim),
      targetAudience: o.targetAudience.map(trim),
      valueProposition: o.valueProposition.trim(),
      differentiators: o.differentiators.map(trim),
    };
  }
  if (edit.brandType !== undefined) changes.brandType = edit.brandType;
  if (edit.profileDisclosure !== undefined) changes.profileDisclosure = edit.profileDisclosure;
  for (const key of ['expertise', 'goals', 'topics', 'opinions'] as const) {
    const value = trimList(edit[key]);
    if (value !== undefined) changes[key] = value;
  }
  if (edit.guardrails)
    changes.guardrails = edit.guardrails.map((g) => ({
      id: g.id?.trim() || context.newId(),
      text: g.text.trim(),
      disclosure: g.disclosure,
    }));
  if (edit.knowledgeItems)
    changes.knowledgeItems = edit.knowledgeItems.map((k) => {
      const previous = state.knowledgeItems.find((p) => p.id === k.id);
      const textChanged = previous !== undefined && previous.text !== k.text.trim();
      return {
        ...k,
        id: k.id?.trim() || context.newId(),
        text: k.text.trim(),
        // A new item without provenance is the person's own; an item they reworded is theirs from now on.
        provenance:
          k.provenance ??
          (previous && !textChanged
            ? previous.provenance
            : { origin: 'user', userSupplied: true, updatedAt: context.now }),
      };
    });
  if (edit.preferenceSignals) {
    const own: PreferenceSignal[] = [];
    edit.preferenceSignals.forEach((s, i) => {
      if (s.kind === 'explicit') {
        own.push({
          ...s,
          id: s.id?.trim() || context.newId(),
          signal: s.signal.trim(),
          lastSeenAt: s.lastSeenAt ?? context.now,
        });
        return;
      }
      // A learned signal sent back as it was read is left to its count; one the service never learned is refused.
      if (s.id !== undefined && learned.has(s.id)) return;
      problems.push({
        path: `preferenceSignals.${i}.kind`,
        message: `${s.kind} signals are learned from review and counted by the service; only explicit ones can be set`,
      });
    });
    changes.preferenceSignals = own;
  }
  return { changes, problems };
}

export interface UpdateBrandProfileInput {
  orgId: string;
  edit: BrandProfileEdit;
  confirmBrandContext?: boolean;
}

/**
 * Edits the profile: 400 with one detail per bad field (nothing saved); `confirmBrandContext: true` sets
 * meta.confirmedAt (unless it is confirmed already). Answers the profile as saved.
 */
export async function updateBrandProfile(
  deps: BrandProfileDeps,
  caller: Caller,
  input: UpdateBrandProfileInput,
  request: WriteRequest,
): Promise<Written<BrandProfileView>> {
  authorize(caller, writing(input.orgId));
  const { orgId } = input;
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) => {
    const { state } = await loadBrandProfile(deps.commands, orgId);
    const [kit, learned] = await Promise.all([deps.kit.get(orgId), learnedSignals(deps.readModels, orgId)]);
    const view = brandProfileView(state, kit, learned);
    const { changes, problems } = normaliseEdit(input.edit, state, view, new Set(learned.map((s) => s.id)), {
      now: metadata.now,
      newId: randomUUID,
    });
    if (problems.length > 0) throw new InvalidFields('Invalid brand profile', problems);
    const outcome = await handleBrandProfileCommand(
      deps.commands,
      orgId,
      {
        type: 'EditBrandProfile',
        orgId,
        changes,
        confirm: input.confirmBrandContext === true,
        by: metadata.userId ?? metadata.actor,
        now: metadata.now,
      },
      metadata,
      record ? (trx, o) => record(trx, brandProfileView(o.state, kit, learned)) : undefined,
    );
    return brandProfileView(outcome.state, kit, learned);
  });
}

// ---- From a website ------------------------------------------------------------------------------------------

export interface FromWebsiteResult {
  profile: BrandProfileView;
  source: AiSource;
  /** `provider:model`, or `offline` for the offline writer. */
  providerModel: string;
  /** The agent run that inferred it (GET agent-runs). */
  runId: string;
  creditsUsed: number;
  /** The pages read, home first. */
  pages: { url: string; kind: SitePageKind; title: string | null }[];
}

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
const clipList = (values: string[]) =>
  values
    .map((v) => v.trim())
    .filter((v) => v.length > 0)
    .slice(0, profileLimits.listEntries)
    .map((v) => clip(v, profileLimits.listItem));
const httpOrNull = (value: string | null) => {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.toString() : null;
  } catch {
    return null;
  }
};

/** What an inference proposes: fields clipped to the profile's limits, facts as knowledge items with provenance. */
export function inferredChanges(
  output: InferredProfile,
  websiteUrl: string,
  pages: readonly SitePage[],
  context: { now: string; newId: () => string },
): Omit<BrandProfileChanges, 'knowledgeItems'> & { knowledgeItems: KnowledgeItem[] } {
  const nullable = (value: string | null, max: number) =>
    value && value.trim() ? clip(value.trim(), max) : null;
  const pricing = pages.find((p) => p.kind === 'pricing')?.url;
  return {
    websiteUrl,
    brandType: output.brandType,
    identity: nullable(output.name, profileLimits.text),
    tagline: nullable(output.tagline, profileLimits.shortText),
    mission: nullable(output.mission, profileLimits.text),
    voice: {
      tone: clip(output.tone.trim(), profileLimits.shortText),
      personalityTraits: clipList(output.personalityTraits),
      writingGuidelines: clipList(output.writingGuidelines),
      bannedPhrases: [],
    },
    businessOutline: {
      overview: clip(output.overview.trim(), profileLimits.longText),
      productsOrServices: clipList(output.productsOrServices),
      targetAudience: clipList(output.targetAudience),
      valueProposition: clip(output.valueProposition.trim(), profileLimits.text),
      differentiators: clipList(output.differentiators),
    },
    topics: clipList(output.topics),
    knowledgeItems: output.facts
      .filter((f) => f.text.trim().length > 0)
      .slice(0, 50)
      .map((f) => {
        const sourceUrl = httpOrNull(f.sourceUrl) ?? websiteUrl;
        return {
          id: context.newId(),
          kind: f.kind,
          text: clip(f.text.trim(), profileLimits.knowledgeText),
          provenance: {
            origin: 'inferred' as const,
            sourceType: 'website',
            sourceUrl,
            fetchedAt: context.now,
            confidence: f.confidence,
            userSupplied: false,
          },
          // The site's own words: public already.
          disclosure: 'public' as const,
          durability: sourceUrl === pricing ? ('time_sensitive' as const) : ('durable' as const),
          confirmed: false,
        };
      }),
  };
}

/** The errors of reading a site, in the API's terms (the field is `websiteUrl`). */
function siteError(error: unknown): unknown {
  if (error instanceof WebsiteRefused)
    return new ValidationError(error.message, 'website_refused', [
      { path: 'websiteUrl', message: error.message },
    ]);
  if (error instanceof SiteUnreachable)
    return new Unprocessable(
      `${error.message}: it did not answer, answered an error, or is not an HTML page`,
      'website_unreachable',
      [{ path: 'websiteUrl', message: 'the website could not be read' }],
    );
  if (error instanceof WebsiteParseFailed)
    return new ServiceUnavailable(error.message, 'website_reader_busy');
  return error;
}

/**
 * Reads the site, runs `brand_profile.infer` and saves what it inferred, unconfirmed, never over a field a person
 * set. The caller runs it inside its own write (metadata, idempotency record): onboarding from a website does.
 */
export async function inferBrandProfileFromWebsite(
  deps: BrandProfileDeps,
  caller: Caller,
  input: { orgId: string; websiteUrl: string },
  metadata: CommandMetadata,
  options: {
    idempotencyKey?: string | null;
    sideWrite?: SideWriteOf<BrandProfileOutcome & { result: FromWebsiteResult }>;
  } = {},
): Promise<FromWebsiteResult> {
  authorize(caller, writing(input.orgId));
  const { orgId } = input;
  let site: Awaited<ReturnType<typeof readSite>>;
  try {
    site = await readSite(input.websiteUrl, {
      policy: deps.outbound,
      ...(deps.parser ? { parser: deps.parser } : {}),
      ...(deps.fetchTimeoutMs ? { timeoutMs: deps.fetchTimeoutMs } : {}),
      onUnreadable: (url, reason) =>
        deps.logger?.info({ orgId, url, err: reason }, 'brand profile page could not be read'),
    });
  } catch (error) {
    throw siteError(error);
  }
  const run = await deps.aiJobs.run(inferBrandProfileJob, {
    orgId,
    input: { websiteUrl: site.websiteUrl, pages: site.pages },
    userId: caller.userId,
    ...(options.idempotencyKey ? { idempotencyKey: `brand_profile.infer:${options.idempotencyKey}` } : {}),
    payload: { websiteUrl: site.websiteUrl, pages: site.pages.map((p) => p.url) },
  });
  const pages = site.pages.map((p) => ({ url: p.url, kind: p.kind, title: p.title }));
  const [kit, learned] = await Promise.all([deps.kit.get(orgId), learnedSignals(deps.readModels, orgId)]);
  const resultOf = (state: BrandProfileState): FromWebsiteResult => ({
    profile: brandProfileView(state, kit, learned),
    source: run.source,
    providerModel: run.providerModel,
    runId: run.runId,
    creditsUsed: run.creditsUsed,
    pages,
  });
  const outcome = await handleBrandProfileCommand(
    deps.commands,
    orgId,
    {
      type: 'InferBrandProfile',
      orgId,
      inferred: inferredChanges(run.output, site.websiteUrl, site.pages, {
        now: metadata.now,
        newId: randomUUID,
      }),
      websiteUrl: site.websiteUrl,
      source: run.source,
      providerModel: run.providerModel,
      runId: run.runId,
      pages: pages.map((p) => p.url),
      by: metadata.userId ?? metadata.actor,
      now: metadata.now,
    },
    metadata,
    options.sideWrite ? (trx, o) => options.sideWrite!(trx, { ...o, result: resultOf(o.state) }) : undefined,
  );
  return resultOf(outcome.state);
}

/** POST ORG/brand/profile/from-website: the inference as its own write (Idempotency-Key, metadata). */
export async function brandProfileFromWebsite(
  deps: BrandProfileDeps,
  caller: Caller,
  input: { orgId: string; websiteUrl: string },
  request: WriteRequest,
): Promise<Written<FromWebsiteResult>> {
  authorize(caller, writing(input.orgId));
  return runWrite(deps.idempotency, caller, request, async ({ metadata, record }) =>
    inferBrandProfileFromWebsite(deps, caller, input, metadata, {
      idempotencyKey: request.idempotency?.key ?? null,
      ...(record ? { sideWrite: (trx, o) => record(trx, o.result) } : {}),
    }),
  );
}
