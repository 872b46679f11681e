// The brand profile's request and response shapes (spec part 2, "Brand profile" and the Brand endpoints), typed
// once: validation, TypeScript types and the OpenAPI document come from these. Types and sizes are checked here
// (400 naming `body.<field>`); what a value means (an http(s) address, unique ids, the kit's facts) by the use case.
import { z } from '@hono/zod-openapi';
import {
  brandTypes,
  confidences,
  disclosures,
  durabilities,
  guardrailDisclosures,
  knowledgeKinds,
  provenanceOrigins,
  signalKinds,
} from '../../domain/brand-profile/brand-profile.js';

const text = (max = 4000) => z.string().max(max);
const list = () => z.array(text(1000)).max(200);
const nullableText = (max = 4000) => text(max).nullable();

const voice = z.object({
  tone: text(1000),
  personalityTraits: list(),
  writingGuidelines: list(),
  bannedPhrases: list(),
});
const businessOutline = z.object({
  overview: text(8000),
  productsOrServices: list(),
  targetAudience: list(),
  valueProposition: text(2000),
  differentiators: list(),
});
const provenance = z.object({
  origin: z.enum(provenanceOrigins),
  sourceType: nullableText(200).optional(),
  sourceUrl: nullableText(2048).optional(),
  sourceExternalId: nullableText(500).optional(),
  fetchedAt: nullableText(100).optional(),
  updatedAt: nullableText(100).optional(),
  confidence: z.enum(confidences).optional(),
  userSupplied: z.boolean().optional(),
});
const knowledgeItem = z.object({
  id: text(100),
  kind: z.enum(knowledgeKinds),
  text: text(),
  provenance,
  disclosure: z.enum(disclosures).optional(),
  durability: z.enum(durabilities).optional(),
  confirmed: z.boolean().optional(),
});
const guardrail = z.object({ id: text(100), text: text(), disclosure: z.enum(guardrailDisclosures) });
const preferenceSignal = z.object({
  id: text(100),
  signal: text(1000),
  kind: z.enum(signalKinds),
  lastSeenAt: text(100),
  confidence: z.enum(confidences).optional(),
  occurrences: z.number().int().optional(),
  promoted: z.boolean().optional(),
});
const logoAsset = z.object({
  assetId: z.string(),
  contentType: z.string(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  sourceAssetId: z.string().optional(),
});

export const brandProfileSchema = z
  .object({
    websiteUrl: z.string().nullable(),
    logoUrl: z.string().nullable(),
    primaryFont: z.string().nullable(),
    secondaryFont: z.string().nullable(),
    colorPalette: z.array(z.string()),
    tagline: z.string().nullable(),
    mission: z.string().nullable(),
    voice,
    businessOutline,
    backgroundColor: z.string().nullable(),
    logoAsset: logoAsset.nullable(),
    kitUpdatedAt: z.string().nullable(),
    brandType: z.enum(brandTypes),
    identity: z.string().nullable(),
    expertise: z.array(z.string()),
    goals: z.array(z.string()),
    topics: z.array(z.string()),
    opinions: z.array(z.string()),
    guardrails: z.array(guardrail),
    knowledgeItems: z.array(knowledgeItem),
    preferenceSignals: z.array(preferenceSignal),
    profileDisclosure: z.enum(disclosures),
    meta: z.object({
      schemaVersion: z.number().int(),
      confirmedAt: z.string().nullable(),
      lastInferredAt: z.string().nullable(),
      lastRefreshedAt: z.string().nullable(),
    }),
  })
  .openapi('BrandProfile', {
    description:
      "The workspace's brand profile. The colours, fonts and logo (colorPalette, primaryFont, secondaryFont, " +
      "backgroundColor, logoUrl, logoAsset, kitUpdatedAt) are the brand kit's, read from it. A workspace without " +
      'a profile answers the empty profile (empty texts and lists, brandType unknown, meta dates null).',
  });

export const updateBrandProfileBody = z
  .object({
    websiteUrl: nullableText(2048).optional().openapi({ description: 'An http(s) address; null clears' }),
    tagline: nullableText(1000).optional(),
    mission: nullableText().optional(),
    voice: voice.partial().strict().optional().openapi({ description: 'Omitted parts stay' }),
    businessOutline: businessOutline
      .partial()
      .strict()
      .optional()
      .openapi({ description: 'Omitted parts stay' }),
    brandType: z.enum(brandTypes).optional(),
    identity: nullableText().optional(),
    expertise: list().optional(),
    goals: list().optional(),
    topics: list().optional(),
    opinions: list().optional(),
    guardrails: z
      .array(guardrail.extend({ id: text(100).optional() }).strict())
      .max(500)
      .optional()
      .openapi({ description: 'Replaces the list; an id is given to each new one. Never shown to a model.' }),
    knowledgeItems: z
      .array(knowledgeItem.extend({ id: text(100).optional(), provenance: provenance.optional() }).strict())
      .max(1000)
      .optional()
      .openapi({
        description:
          'Replaces the list; an id is given to each new one; provenance defaults to {origin: user}. Private and ' +
          'restricted items (or any item of a private or restricted profile without a disclosure of its own) ' +
          'never reach generated text.',
      }),
    preferenceSignals: z
      .array(preferenceSignal.extend({ id: text(100).optional(), lastSeenAt: text(100).optional() }).strict())
      .max(500)
      .optional()
      .openapi({
        description:
          "The profile's explicit signals (replaces them). Learned signals (approval, edit, reject) are counted by " +
          'the service: sent back as read they are left alone; others are refused.',
      }),
    profileDisclosure: z.enum(disclosures).optional(),
    logoUrl: nullableText(2048).optional(),
    primaryFont: nullableText(200).optional(),
    secondaryFont: nullableText(200).optional(),
    colorPalette: z.array(text(100)).max(20).optional(),
    backgroundColor: nullableText(100).optional(),
    logoAsset: logoAsset.nullable().optional(),
    kitUpdatedAt: nullableText(100).optional(),
    meta: z.unknown().optional().openapi({ description: 'Kept by the service; ignored' }),
    confirmBrandContext: z
      .boolean()
      .optional()
      .openapi({ description: 'true: confirms the profile as the brand context (sets meta.confirmedAt)' }),
  })
  .strict()
  .openapi({
    description:
      "Any brand-profile fields: omitted fields stay, null clears a nullable one. The kit's facts are edited on " +
      "the brand kit (a value equal to the kit's is accepted, another refused).",
  });

export const fromWebsiteBody = z
  .object({
    websiteUrl: z.string().min(1).max(2048).openapi({ example: 'https://example.com' }),
  })
  .strict();

export const fromWebsiteSchema = z
  .object({
    profile: brandProfileSchema,
    source: z.enum(['ai', 'heuristic']),
    providerModel: z.string(),
    runId: z.string(),
    creditsUsed: z.number(),
    pages: z.array(
      z.object({ url: z.string(), kind: z.enum(['home', 'about', 'pricing']), title: z.string().nullable() }),
    ),
  })
  .openapi('BrandProfileFromWebsite');
