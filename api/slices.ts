// Every slice of the service, in order: the runtime runs their migrations, projections, process managers and
// workers, and installs their routes in this order (the OpenAPI document lists paths in it); the environment
// schema is composed from their settings (api/env.ts). A new slice is one module (api/<slice>/slice.ts) and one
// line here; see docs/adding-a-slice.md.
import { aiSlice } from './ai/slice.js';
import { aiTextSlice } from './ai-text/slice.js';
import { analyticsSlice } from './analytics/slice.js';
import { automationSlice } from './automation/slice.js';
import { billingSlice } from './billing/slice.js';
import { brandSlice } from './brand/slice.js';
import { brandProfileSlice } from './brand-profile/slice.js';
import { contextSlice } from './context/slice.js';
import { engagementSlice } from './engagement/slice.js';
import { authSlice } from './auth/slice.js';
import { homeSlice } from './home/slice.js';
import { inspirationSlice } from './inspiration/slice.js';
import { invitationsSlice } from './invitations/slice.js';
import { launchKitsSlice } from './launch-kits/slice.js';
import { mcpSlice } from './mcp/slice.js';
import { mediaSlice } from './media/slice.js';
import { notificationsSlice } from './notifications/slice.js';
import { oauthSlice } from './oauth/slice.js';
import { onboardingSlice } from './onboarding/slice.js';
import { performanceSlice } from './performance/slice.js';
import { platformSlice } from './platform/slice.js';
import { postGroupsSlice } from './post-groups/slice.js';
import { publishingSlice } from './publishing/slice.js';
import { researchSlice } from './research/slice.js';
import { schedulingSlice } from './scheduling/slice.js';
import type { AnyOperation } from './shared/operation.js';
import type { Slice } from './shared/slice.js';
import { signInSlice } from './sign-in/slice.js';
import { socialAccountsSlice } from './social-accounts/slice.js';
import { storageSlice } from './storage/slice.js';
import { strategySlice } from './strategy/slice.js';
import { tagsSlice } from './tags/slice.js';
import { thoughtsSlice } from './thoughts/slice.js';
import { usersSlice } from './users/slice.js';
import { visualsSlice } from './visuals/slice.js';
import { workspacesSlice } from './workspaces/slice.js';
import { xPostsSlice } from './x-posts/slice.js';

export const slices = [
  platformSlice,
  workspacesSlice,
  usersSlice,
  invitationsSlice,
  onboardingSlice,
  tagsSlice,
  postGroupsSlice,
  mediaSlice,
  brandSlice,
  brandProfileSlice,
  visualsSlice,
  schedulingSlice,
  strategySlice,
  thoughtsSlice,
  contextSlice,
  launchKitsSlice,
  engagementSlice,
  researchSlice,
  inspirationSlice,
  xPostsSlice,
  socialAccountsSlice,
  authSlice,
  storageSlice,
  publishingSlice,
  analyticsSlice,
  performanceSlice,
  automationSlice,
  notificationsSlice,
  billingSlice,
  homeSlice,
  aiSlice,
  aiTextSlice,
  signInSlice,
  oauthSlice,
  mcpSlice,
] as const satisfies readonly Slice[];

/**
 * Every slice's operations (api/shared/operation.ts), in slice order: what the runtime makes its routes and tools
 * from, and what the tests (the OpenAPI document's ids, the role matrix, the tool lists) read.
 */
export const operations: readonly AnyOperation[] = slices.flatMap((slice) =>
  (slice.operations ?? []).flatMap((group) => group.operations),
);
