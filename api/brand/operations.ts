// The brand kit's operations (spec part 2, "Brand"): GET ORG/brand/kit (get_brand_kit), PATCH ORG/brand/kit
// (update_brand_kit) and GET ORG/brand/kit/website (find_brand_kit_on_website). Reads answer from the kit's
// stream (one small stream per workspace); an edit answers the kit it saved.
import {
  findBrandKitOnWebsite,
  getBrandKit,
  updateBrandKit,
  type BrandKitDeps,
} from '../../commands/brand/brand-kit-use-cases.js';
import { operationGroup, operationsWith } from '../shared/operation.js';
import { orgParams } from '../shared/params.js';
import {
  brandKitSchema,
  brandKitUpdateSchema,
  brandKitWebsiteQuery,
  brandKitWebsiteSchema,
  updateBrandKitBody,
} from './schemas.js';
import { brandServices } from './services.js';

const operation = operationsWith<BrandKitDeps>();
const path = '/v1/orgs/{orgId}/brand/kit';
const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));

export const brandOperations = operationGroup(
  (ctx) => ctx.use(brandServices).deps,
  [
    operation({
      name: 'get_brand_kit',
      kind: 'read',
      method: 'get',
      path,
      tags: ['brand'],
      summary: "The workspace's brand kit: colours, fonts, logo, tagline, website, and the parts still unset",
      params: orgParams,
      output: brandKitSchema,
      outputDescription: 'The brand kit',
      errors: [400, 401, 403],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'Get the brand kit',
        description:
          "Returns the workspace's brand kit: colours (primary, secondary, accent, background as #rrggbb), heading " +
          'and body fonts, logo (media asset, size, type), tagline, website, when it was last updated (`updatedAt`, ' +
          'pass it as `ifUpdatedAt` to update_brand_kit) and `missing`, the parts still unset. Read-only.',
        hints: { readOnlyHint: true, openWorldHint: false },
        summary: (kit) =>
          `Brand kit${kit.updatedAt ? ` updated ${kit.updatedAt}` : ' (never edited)'}; missing: ${list(kit.missing)}.`,
      },
      run: (deps, { caller }, { orgId }) => getBrandKit(deps, caller, { orgId }),
    }),
    operation({
      name: 'update_brand_kit',
      kind: 'write',
      method: 'patch',
      path,
      tags: ['brand'],
      summary:
        'Edit the brand kit: omitted fields stay, null clears; every field is checked before saving (422 with one detail per bad field)',
      params: orgParams,
      body: updateBrandKitBody,
      output: brandKitUpdateSchema,
      outputDescription: 'What was saved (or, with dryRun, would be)',
      errors: [400, 401, 402, 403, 409, 413, 422, 503],
      access: { permission: 'brand:write', scope: 'brand:write' },
      tool: {
        title: 'Update the brand kit',
        description:
          'Edits the brand kit. Omitted fields stay, null clears. colors.* take any opaque CSS colour (stored as ' +
          '#rrggbb); headingFont/bodyFont must be installed families (see list_visual_options); logo is {url} (a ' +
          'PNG, JPEG, WebP, GIF or SVG link, downloaded, checked and stored in the media library; SVG is sanitised) ' +
          'or {assetId} of an image in the media library; tagline at most 200 characters; website an http(s) ' +
          'address. Every field is checked before anything is saved: a refusal lists each bad field and saves ' +
          'nothing. Use dryRun: true to check and preview without saving; pass ifUpdatedAt (from get_brand_kit) so ' +
          'an edit made in the meantime is not overwritten. Answers what changed, warnings (low contrast, a small ' +
          'logo) and the parts still missing.',
        hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
        summary: (r) =>
          `${r.saved ? 'Saved' : 'Not saved (dry run)'}; changed: ${list(r.changed)}; ` +
          `warnings: ${r.warnings.length === 0 ? 'none' : r.warnings.map((w) => w.code).join(', ')}; missing: ${list(r.missing)}.`,
      },
      // The kit's fields are the edit; the two controls are not.
      run: (deps, { caller, request }, { orgId, ifUpdatedAt, dryRun, ...edit }) =>
        updateBrandKit(
          deps,
          caller,
          {
            orgId,
            edit,
            ...(ifUpdatedAt !== undefined ? { ifUpdatedAt } : {}),
            ...(dryRun !== undefined ? { dryRun } : {}),
          },
          request,
        ),
    }),
    operation({
      name: 'find_brand_kit_on_website',
      kind: 'read',
      method: 'get',
      path: `${path}/website`,
      tags: ['brand'],
      summary:
        'Read a public website for brand-kit candidates (colours, logos, images, fonts) and a suggested kit; saves nothing',
      params: orgParams,
      query: brandKitWebsiteQuery,
      output: brandKitWebsiteSchema,
      outputDescription: 'Candidates found on the page',
      errors: [400, 401, 403, 503],
      access: { permission: 'workspace:read', scope: 'mcp:read' },
      tool: {
        title: 'Find a brand kit on a website',
        description:
          'Reads a public web page (http or https) and lists brand-kit candidates with where each was found: colours ' +
          '(theme-color, CSS variables, stylesheets, inline styles; with uses and whether neutral), logos (structured ' +
          'data, og:logo, logo images, touch icons, favicons), og/twitter images, fonts (Google Fonts, CSS), the site ' +
          'name and description, and a suggested kit (installed fonts only). Saves nothing: show the user the ' +
          'suggestion and apply what they accept with update_brand_kit. Private address literals are refused; a site ' +
          'that cannot be fetched (whatever the reason) answers reachable: false. The answer lists a few of each kind.',
        hints: { readOnlyHint: true, openWorldHint: true },
        summary: (found) =>
          found.reachable
            ? `${found.siteName ?? found.websiteUrl}: ${found.colors.length} colours, ${found.logos.length} logos, ` +
              `${found.fonts.length} fonts found; suggested primary ${found.suggestion.colors?.primary ?? 'none'}, ` +
              `heading font ${found.suggestion.headingFont ?? 'none'}, logo ${found.suggestion.logo?.url ?? 'none'}.`
            : `${found.websiteUrl} could not be read (no answer, an error status, or not an HTML page).`,
      },
      run: (deps, { caller }, { orgId, url }) => findBrandKitOnWebsite(deps, caller, { orgId, url }),
    }),
  ],
);
