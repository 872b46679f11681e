// The brand profile as the spec shows it: the profile's own fields, the brand kit's facts (colours, fonts, logo;
// read from the kit, never stored twice), every preference signal (its own and the learned ones) and `meta`.
import type { BrandKitState } from '../brand/brand-kit.js';
import {
  brandProfileSchemaVersion,
  type BrandProfileFields,
  type BrandProfileState,
  type PreferenceSignal,
} from './brand-profile.js';
import { mergeSignals } from './preference-signals.js';

export interface BrandProfileView extends Omit<BrandProfileFields, 'preferenceSignals'> {
  logoUrl: string | null;
  primaryFont: string | null;
  secondaryFont: string | null;
  colorPalette: string[];
  backgroundColor: string | null;
  logoAsset: { assetId: string; contentType: string; width: number | null; height: number | null } | null;
  kitUpdatedAt: string | null;
  preferenceSignals: PreferenceSignal[];
  meta: {
    schemaVersion: number;
    confirmedAt: string | null;
    lastInferredAt: string | null;
    lastRefreshedAt: string | null;
  };
}

export type KitFacts = Pick<BrandKitState, 'colors' | 'headingFont' | 'bodyFont' | 'logo' | 'updatedAt'>;

const latest = (...times: (string | null)[]): string | null =>
  times.reduce<string | null>(
    (a, b) => (b !== null && (a === null || Date.parse(b) > Date.parse(a)) ? b : a),
    null,
  );

/**
 * The profile of `state` with the kit's facts and the learned signals. `meta.lastRefreshedAt` is the last time the
 * profile changed by itself rather than by a person's edit: an inference, or a learned signal seen.
 */
export function brandProfileView(
  state: BrandProfileState,
  kit: KitFacts,
  learned: readonly PreferenceSignal[],
): BrandProfileView {
  const palette = [kit.colors.primary, kit.colors.secondary, kit.colors.accent].filter(
    (c): c is string => c !== null,
  );
  const logo = kit.logo;
  return {
    websiteUrl: state.websiteUrl,
    logoUrl: logo?.url ?? null,
    primaryFont: kit.headingFont,
    secondaryFont: kit.bodyFont,
    colorPalette: palette,
    tagline: state.tagline,
    mission: state.mission,
    voice: structuredClone(state.voice),
    businessOutline: structuredClone(state.businessOutline),
    backgroundColor: kit.colors.background,
    logoAsset: logo?.assetId
      ? {
          assetId: logo.assetId,
          contentType: logo.contentType ?? 'application/octet-stream',
          width: logo.width,
          height: logo.height,
        }
      : null,
    kitUpdatedAt: kit.updatedAt,
    brandType: state.brandType,
    identity: state.identity,
    expertise: [...state.expertise],
    goals: [...state.goals],
    topics: [...state.topics],
    opinions: [...state.opinions],
    guardrails: state.guardrails.map((g) => ({ ...g })),
    knowledgeItems: structuredClone(state.knowledgeItems),
    preferenceSignals: mergeSignals(state.preferenceSignals, learned),
    profileDisclosure: state.profileDisclosure,
    meta: {
      schemaVersion: brandProfileSchemaVersion,
      confirmedAt: state.confirmedAt,
      lastInferredAt: state.lastInferredAt,
      lastRefreshedAt: latest(state.lastInferredAt, ...learned.map((s) => s.lastSeenAt)),
    },
  };
}
