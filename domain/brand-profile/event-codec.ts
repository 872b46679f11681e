// The brand profile's events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts)
// and the event union read off them. The profile's own fields only: the brand kit's facts (colours, fonts, logo)
// are read from the kit when the profile is shown, never copied into these events.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const nullableString = z.string().nullable();

export const brandTypes = ['personal', 'business', 'unknown'] as const;
export const knowledgeKinds = ['claim', 'fact', 'opinion', 'preference', 'topic'] as const;
export const provenanceOrigins = ['user', 'inferred', 'imported', 'learned'] as const;
export const confidences = ['high', 'medium', 'low'] as const;
export const disclosures = ['public', 'private', 'restricted'] as const;
export const guardrailDisclosures = ['private', 'restricted'] as const;
export const durabilities = ['durable', 'time_sensitive'] as const;
export const signalKinds = ['approval', 'edit', 'reject', 'explicit'] as const;

const voice = z.object({
  tone: z.string(),
  personalityTraits: z.array(z.string()),
  writingGuidelines: z.array(z.string()),
  bannedPhrases: z.array(z.string()),
});

const businessOutline = z.object({
  overview: z.string(),
  productsOrServices: z.array(z.string()),
  targetAudience: z.array(z.string()),
  valueProposition: z.string(),
  differentiators: z.array(z.string()),
});

const provenance = z.object({
  origin: z.enum(provenanceOrigins),
  sourceType: nullableString.optional(),
  sourceUrl: nullableString.optional(),
  sourceExternalId: nullableString.optional(),
  fetchedAt: nullableString.optional(),
  updatedAt: nullableString.optional(),
  confidence: z.enum(confidences).optional(),
  userSupplied: z.boolean().optional(),
});

const knowledgeItem = z.object({
  id: z.string(),
  kind: z.enum(knowledgeKinds),
  text: z.string(),
  provenance,
  disclosure: z.enum(disclosures).optional(),
  durability: z.enum(durabilities).optional(),
  confirmed: z.boolean().optional(),
});
export type KnowledgeItem = z.output<typeof knowledgeItem>;

const guardrail = z.object({ id: z.string(), text: z.string(), disclosure: z.enum(guardrailDisclosures) });
export type Guardrail = z.output<typeof guardrail>;

const preferenceSignal = z.object({
  id: z.string(),
  signal: z.string(),
  kind: z.enum(signalKinds),
  lastSeenAt: z.string(),
  confidence: z.enum(confidences).optional(),
  occurrences: z.number().int().optional(),
  promoted: z.boolean().optional(),
});
export type PreferenceSignal = z.output<typeof preferenceSignal>;

/** The profile's own fields; an event carries the new values of those it changed (omitted stay, null clears). */
export const profileChanges = z.object({
  websiteUrl: nullableString.optional(),
  tagline: nullableString.optional(),
  mission: nullableString.optional(),
  voice: voice.optional(),
  businessOutline: businessOutline.optional(),
  brandType: z.enum(brandTypes).optional(),
  identity: nullableString.optional(),
  expertise: z.array(z.string()).optional(),
  goals: z.array(z.string()).optional(),
  topics: z.array(z.string()).optional(),
  opinions: z.array(z.string()).optional(),
  guardrails: z.array(guardrail).optional(),
  knowledgeItems: z.array(knowledgeItem).optional(),
  /** The profile's own signals (explicit ones a person set); learned ones are counted by a read model. */
  preferenceSignals: z.array(preferenceSignal).optional(),
  profileDisclosure: z.enum(disclosures).optional(),
});
export type BrandProfileChanges = z.output<typeof profileChanges>;

const schemas = {
  /** A person's edit (PATCH): the fields it changed. */
  BrandProfileEdited: z.object({
    orgId: z.string(),
    changes: profileChanges,
    by: z.string(),
    at: z.string(),
  }),
  /** A person confirmed the profile as the brand's context (`confirmBrandContext`). */
  BrandProfileConfirmed: z.object({ orgId: z.string(), by: z.string(), at: z.string() }),
  /** The profile inferred from a website: the fields it set (never those a person edited), unconfirmed. */
  BrandProfileInferred: z.object({
    orgId: z.string(),
    changes: profileChanges,
    websiteUrl: z.string(),
    source: z.enum(['ai', 'heuristic']),
    providerModel: z.string(),
    runId: z.string(),
    pages: z.array(z.string()),
    by: z.string(),
    at: z.string(),
  }),
};

export type BrandProfileEvent = EventsOf<typeof schemas>;

export const brandProfileEventCodec = zodEventCodec('brand-profile', schemas);
