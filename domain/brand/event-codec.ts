// The brand kit's events, declared once: each type's schema of its data as stored (domain/shared/event-codec.ts)
// and the event union read off them.
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const nullableString = z.string().nullable();

const logo = z.object({
  /** The media-library asset holding the logo (an image of the workspace). */
  assetId: nullableString,
  /** Where the stored logo can be fetched. */
  url: nullableString,
  /** The link it was downloaded from (a logo given by `url`); null for one picked from the library. */
  sourceUrl: nullableString,
  width: z.number().nullable(),
  height: z.number().nullable(),
  contentType: nullableString,
});
export type BrandLogo = z.output<typeof logo>;

/** The new values of an edit's fields: omitted fields stay, null clears. */
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
export type BrandKitChanges = z.output<typeof changes>;

const schemas = {
  BrandKitUpdated: z.object({ orgId: z.string(), changes, by: z.string(), at: z.string() }),
};

export type BrandKitEvent = EventsOf<typeof schemas>;

export const brandKitEventCodec = zodEventCodec('brand-kit', schemas);
