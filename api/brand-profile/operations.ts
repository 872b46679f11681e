// The brand profile's operations (spec part 2, "Brand"): GET and PATCH ORG/brand/profile and POST
// ORG/brand/profile/from-website. The spec names no tool for them: assistants ground their writing in the brand
// context (the 'brand context' service), not in the raw profile with its private parts.
import {
  brandProfileFromWebsite,
  getBrandProfile,
  updateBrandProfile,
  type BrandProfileDeps,
} from '../../commands/brand-profile/brand-profile-use-cases.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import { brandProfileSchema, fromWebsiteBody, fromWebsiteSchema, updateBrandProfileBody } from './schemas.js';
import { brandProfileServices } from './services.js';

const operation = operationsWith<BrandProfileDeps>();
const path = '/v1/orgs/{orgId}/brand/profile';

export const brandProfileOperations = operationGroup(
  (ctx) => ctx.use(brandProfileServices),
  [
    operation({
      name: 'getBrandProfile',
      kind: 'read',
      method: 'get',
      path,
      tags: ['brand'],
      summary:
        "The workspace's brand profile, with the brand kit's colours, fonts and logo and every preference signal",
      params: orgParams,
      output: brandProfileSchema,
      outputDescription: 'The brand profile (the empty profile before the first edit or inference)',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      run: (deps, { caller }, { orgId }) => getBrandProfile(deps, caller, { orgId }),
    }),
    operation({
      name: 'updateBrandProfile',
      kind: 'write',
      method: 'patch',
      path,
      tags: ['brand'],
      summary:
        'Edit the brand profile: omitted fields stay, null clears; confirmBrandContext confirms it (400 with one detail per bad field)',
      params: orgParams,
      body: updateBrandProfileBody,
      output: brandProfileSchema,
      outputDescription: 'The brand profile as saved',
      errors: [400, 401, 402, 403, 409, 422, 503],
      access: { permission: 'brand:write', scope: 'brand:write' },
      run: (deps, { caller, request }, { orgId, confirmBrandContext, ...edit }) =>
        updateBrandProfile(
          deps,
          caller,
          { orgId, edit, ...(confirmBrandContext !== undefined ? { confirmBrandContext } : {}) },
          request,
        ),
    }),
    operation({
      name: 'inferBrandProfileFromWebsite',
      kind: 'write',
      method: 'post',
      path: `${path}/from-website`,
      tags: ['brand'],
      summary:
        'Infer the brand profile from a website (home, about and pricing pages) and save it unconfirmed; fields a person set stay',
      params: orgParams,
      body: fromWebsiteBody,
      output: fromWebsiteSchema,
      outputDescription: 'The profile as saved, where it came from (ai or heuristic) and the pages read',
      errors: [400, 401, 402, 403, 409, 422, 503],
      access: { permission: 'brand:write', scope: 'brand:write' },
      run: (deps, { caller, request }, { orgId, websiteUrl }) =>
        brandProfileFromWebsite(deps, caller, { orgId, websiteUrl }, request),
    }),
  ],
);
