// The workspace's brand kit (spec part 2, "Brand kit"): colours, fonts, logo, tagline and website, one stream per
// workspace (`brandKit-<orgId>`). Every edit is one `BrandKitUpdated` carrying the new values of the fields it
// changed; an edit that changes nothing records nothing. `ifUpdatedAt` refuses an edit made against an older kit.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, InvalidFields, type ErrorDetail } from '../shared/errors.js';
import {
  brandKitEventCodec,
  type BrandKitChanges,
  type BrandKitEvent,
  type BrandLogo,
} from './event-codec.js';

export type { BrandKitChanges, BrandKitEvent, BrandLogo } from './event-codec.js';

export const brandKitCategory = 'brandKit';

export const brandColorKeys = ['primary', 'secondary', 'accent', 'background'] as const;
export type BrandColorKey = (typeof brandColorKeys)[number];

/** Stored colours are `#rrggbb`, lower-case. */
export const storedColorPattern = /^#[0-9a-f]{6}$/;
export const maxTaglineLength = 200;

export type BrandColors = Record<BrandColorKey, string | null>;

/** The kit's own fields (what an edit may change). */
export interface BrandKitFields {
  colors: BrandColors;
  headingFont: string | null;
  bodyFont: string | null;
  logo: BrandLogo | null;
  tagline: string | null;
  website: string | null;
}

export interface BrandKitState extends BrandKitFields {
  /** When the kit was last changed; null before the first edit. */
  updatedAt: string | null;
}

export type BrandKitCommand = {
  type: 'UpdateBrandKit';
  orgId: string;
  /** Validated and normalised by the use case (domain/brand/kit-fields.ts, the logo checked and stored). */
  changes: BrandKitChanges;
  /**
   * The `updatedAt` the caller read: the edit is refused unless the kit is still that one. `null` means "a kit
   * never edited". Absent: no check.
   */
  ifUpdatedAt?: string | null;
  by: string;
  now: string;
};

export const emptyBrandKit: BrandKitState = {
  colors: { primary: null, secondary: null, accent: null, background: null },
  headingFont: null,
  bodyFont: null,
  logo: null,
  tagline: null,
  website: null,
  updatedAt: null,
};

/** The names of the kit's parts that are unset, in the kit's order (`colors.primary`, …, `website`). */
export function missingParts(kit: BrandKitFields): string[] {
  const missing: string[] = [];
  for (const key of brandColorKeys) if (kit.colors[key] === null) missing.push(`colors.${key}`);
  if (kit.headingFont === null) missing.push('headingFont');
  if (kit.bodyFont === null) missing.push('bodyFont');
  if (kit.logo === null) missing.push('logo');
  if (kit.tagline === null) missing.push('tagline');
  if (kit.website === null) missing.push('website');
  return missing;
}

function sameLogo(a: BrandLogo | null, b: BrandLogo | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.assetId === b.assetId &&
    a.url === b.url &&
    a.sourceUrl === b.sourceUrl &&
    a.width === b.width &&
    a.height === b.height &&
    a.contentType === b.contentType
  );
}

/**
 * What `changes` would really change in `kit`: the changes reduced to the fields whose value differs, and those
 * fields' names (`colors.primary`, `logo`, …) in the kit's order.
 */
export function effectiveChanges(
  kit: BrandKitFields,
  changes: BrandKitChanges,
): { changes: BrandKitChanges; changed: string[] } {
  const out: BrandKitChanges = {};
  const changed: string[] = [];
  const colors: Partial<BrandColors> = {};
  for (const key of brandColorKeys) {
    const value = changes.colors?.[key];
    if (value !== undefined && value !== kit.colors[key]) {
      colors[key] = value;
      changed.push(`colors.${key}`);
    }
  }
  if (Object.keys(colors).length > 0) out.colors = colors;
  for (const key of ['headingFont', 'bodyFont'] as const) {
    const value = changes[key];
    if (value !== undefined && value !== kit[key]) {
      out[key] = value;
      changed.push(key);
    }
  }
  if (changes.logo !== undefined && !sameLogo(changes.logo, kit.logo)) {
    out.logo = changes.logo;
    changed.push('logo');
  }
  for (const key of ['tagline', 'website'] as const) {
    const value = changes[key];
    if (value !== undefined && value !== kit[key]) {
      out[key] = value;
      changed.push(key);
    }
  }
  return { changes: out, changed };
}

/** The kit with `changes` applied (omitted fields stay). */
export function applyChanges<K extends BrandKitFields>(kit: K, changes: BrandKitChanges): K {
  return {
    ...kit,
    colors: { ...kit.colors, ...changes.colors },
    ...(changes.headingFont !== undefined ? { headingFont: changes.headingFont } : {}),
    ...(changes.bodyFont !== undefined ? { bodyFont: changes.bodyFont } : {}),
    ...(changes.logo !== undefined ? { logo: changes.logo } : {}),
    ...(changes.tagline !== undefined ? { tagline: changes.tagline } : {}),
    ...(changes.website !== undefined ? { website: changes.website } : {}),
  };
}

/** The same instant (`2026-01-01T00:00:00Z` and `2026-01-01T00:00:00.000Z` are one time). */
function sameInstant(a: string, b: string): boolean {
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isNaN(x) || Number.isNaN(y) ? a === b : x === y;
}

/** Refuses a stale edit: 409 `stale_brand_kit` naming the kit's current `updatedAt`. */
export function assertFresh(state: BrandKitState, ifUpdatedAt: string | null | undefined): void {
  if (ifUpdatedAt === undefined) return;
  const current = state.updatedAt;
  const fresh =
    current === null ? ifUpdatedAt === null : ifUpdatedAt !== null && sameInstant(ifUpdatedAt, current);
  if (fresh) return;
  throw new Conflict(
    current === null
      ? `The brand kit has never been edited, but ifUpdatedAt is ${ifUpdatedAt}; read it again (send ifUpdatedAt null or leave it out)`
      : `The brand kit changed since you read it: it was last updated at ${current}; read it again and send ifUpdatedAt ${current}`,
    'stale_brand_kit',
  );
}

/** What the decider insists on whatever the use case checked: stored forms only. */
function assertStoredForms(changes: BrandKitChanges): void {
  const details: ErrorDetail[] = [];
  for (const key of brandColorKeys) {
    const value = changes.colors?.[key];
    if (value !== undefined && value !== null && !storedColorPattern.test(value))
      details.push({ path: `colors.${key}`, message: 'a colour stored as #rrggbb' });
  }
  if (typeof changes.tagline === 'string' && changes.tagline.length > maxTaglineLength)
    details.push({ path: 'tagline', message: `at most ${maxTaglineLength} characters` });
  if (details.length > 0) throw new InvalidFields('Invalid brand kit', details);
}

export const brandKitDecider: Decider<BrandKitState, BrandKitCommand, BrandKitEvent> = {
  initialState: emptyBrandKit,
  codec: brandKitEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'UpdateBrandKit': {
        assertFresh(state, command.ifUpdatedAt);
        assertStoredForms(command.changes);
        const { changes, changed } = effectiveChanges(state, command.changes);
        if (changed.length === 0) return [];
        return [
          {
            type: 'BrandKitUpdated',
            data: { orgId: command.orgId, changes, by: command.by, at: command.now },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'BrandKitUpdated':
        return { ...applyChanges(state, event.data.changes), updatedAt: event.data.at };
      default:
        return assertNever(event.type);
    }
  },
};
