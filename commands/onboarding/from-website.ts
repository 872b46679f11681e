// POST ORG/onboarding/from-website (issue 27): a first run from a website address. The brand profile is inferred
// from the site's home, about and pricing pages and saved unconfirmed; then a draft content strategy is generated
// from the notes (as its goal) and that profile's public context, and saved without activating it. Each part is
// idempotent on its own (the agent runs are keyed by the request's Idempotency-Key), so a retry after a failure
// between them redoes nothing that was saved.
import {
  inferBrandProfileFromWebsite,
  type BrandProfileDeps,
  type FromWebsiteResult,
} from '../brand-profile/brand-profile-use-cases.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import type { StrategyView } from '../../domain/strategy/views.js';
import type { StrategyDrafts } from '../strategy/strategy-use-cases.js';
import { runWrite, type WriteRequest, type Written } from '../shared/write-pipeline.js';

export interface OnboardingFromWebsiteDeps {
  brandProfile: BrandProfileDeps;
  strategies: StrategyDrafts;
}

export interface OnboardingFromWebsite {
  brand: { profile: FromWebsiteResult['profile']; source: FromWebsiteResult['source'] };
  strategy: StrategyView;
}

export async function onboardFromWebsite(
  deps: OnboardingFromWebsiteDeps,
  caller: Caller,
  input: { orgId: string; websiteUrl: string; notes?: string | undefined },
  request: WriteRequest,
): Promise<Written<OnboardingFromWebsite>> {
  authorize(caller, { orgId: input.orgId, permission: 'workspace:manage', scope: null });
  const key = request.idempotency?.key ?? null;
  return runWrite(deps.brandProfile.idempotency, caller, request, async ({ metadata }) => {
    const brand = await inferBrandProfileFromWebsite(
      deps.brandProfile,
      caller,
      { orgId: input.orgId, websiteUrl: input.websiteUrl },
      metadata,
      { idempotencyKey: key === null ? null : `onboarding:${key}` },
    );
    const goal = input.notes?.trim() ? input.notes.trim() : null;
    const strategy = await deps.strategies.propose(
      input.orgId,
      { goal, idempotencyKey: key === null ? null : `onboarding:${key}` },
      metadata,
    );
    return { brand: { profile: brand.profile, source: brand.source }, strategy };
  });
}
