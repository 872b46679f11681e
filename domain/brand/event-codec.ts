// The brand kit's events as stored (domain/shared/event-codec.ts).
import { z } from 'zod';
import { defineEventCodec, zodSpecs, type SchemasMatch } from '../shared/event-codec.js';
import type { BrandKitEvent } from './brand-kit.js';

const nullableString = z.string().nullable();

const logo = z.object({
  assetId: nullableString,
  url: nullableString,
  sourceUrl: nullableString,
  width: z.number().nullable(),
  height: z.number().nullable(),
  contentType: nullableString,
});

const changes = z.object({
  colors: z
    .object({
      primary: nullableString.optional(),
      secondary: nullableString.optional(),
      accent: nullableString.optional(),
      background: nullableString.optional(),
    })
    .optional(),
  headingFont: nullableString.optional(),
  bodyFont: nullableString.optional(),
  logo: logo.nullable().optional(),
  tagline: nullableString.optional(),
  website: nullableString.optional(),
});

const schemas = {
  BrandKitUpdated: z.object({ orgId: z.string(), changes, by: z.string(), at: z.string() }),
};
const exact: SchemasMatch<BrandKitEvent, typeof schemas> = true;
void exact;

export const brandKitEventCodec = defineEventCodec<BrandKitEvent>('brand-kit', zodSpecs(schemas));
