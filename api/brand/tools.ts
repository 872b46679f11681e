// The brand slice's assistant tools, on the same use cases as the routes: get_brand_kit and
// find_brand_kit_on_website (mcp:read), update_brand_kit (brand:write).
import { z } from '@hono/zod-openapi';
import {
  findBrandKitOnWebsite,
  getBrandKit,
  updateBrandKit,
  type BrandKitDeps,
  type UpdateBrandKitInput,
} from '../../commands/brand/brand-kit-use-cases.js';
import { defineTool, type AnyTool } from '../shared/tools.js';
import { brandKitWebsiteQuery, updateBrandKitBody } from './schemas.js';

/** The use case's input from the PATCH body (the kit's fields apart from the two controls). */
export function brandKitInputOf(
  orgId: string,
  body: z.output<typeof updateBrandKitBody>,
): UpdateBrandKitInput {
  const { ifUpdatedAt, dryRun, ...edit } = body;
  return {
    orgId,
    edit,
    ...(ifUpdatedAt !== undefined ? { ifUpdatedAt } : {}),
    ...(dryRun !== undefined ? { dryRun } : {}),
  };
}

const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));

export function brandTools(deps: BrandKitDeps): readonly AnyTool[] {
  return [
    defineTool({
      name: 'get_brand_kit',
      title: 'Get the brand kit',
      description:
        "Returns the workspace's brand kit: colours (primary, secondary, accent, background as #rrggbb), heading " +
        'and body fonts, logo (media asset, size, type), tagline, website, when it was last updated (`updatedAt`, ' +
        'pass it as `ifUpdatedAt` to update_brand_kit) and `missing`, the parts still unset. Read-only.',
      scope: 'mcp:read',
      input: z.object({}).strict(),
      hints: { readOnlyHint: true, openWorldHint: false },
      run: ({ caller, orgId }) => getBrandKit(deps, caller, { orgId }),
      summary: (kit) =>
        `Brand kit${kit.updatedAt ? ` updated ${kit.updatedAt}` : ' (never edited)'}; missing: ${list(kit.missing)}.`,
    }),
    defineTool({
      name: 'find_brand_kit_on_website',
      title: 'Find a brand kit on a website',
      description:
        'Reads a public web page (http or https) and lists brand-kit candidates with where each was found: colours ' +
        '(theme-color, CSS variables, stylesheets, inline styles; with uses and whether neutral), logos (structured ' +
        'data, og:logo, logo images, touch icons, favicons), og/twitter images, fonts (Google Fonts, CSS), the site ' +
        'name and description, and a suggested kit (installed fonts only). Saves nothing: show the user the ' +
        'suggestion and apply what they accept with update_brand_kit. Private address literals are refused; a site ' +
        'that cannot be fetched (whatever the reason) answers reachable: false. The answer lists a few of each kind.',
      scope: 'mcp:read',
      input: brandKitWebsiteQuery,
      hints: { readOnlyHint: true, openWorldHint: true },
      run: ({ caller, orgId }, query) => findBrandKitOnWebsite(deps, caller, { orgId, url: query.url }),
      summary: (found) =>
        found.reachable
          ? `${found.siteName ?? found.websiteUrl}: ${found.colors.length} colours, ${found.logos.length} logos, ` +
            `${found.fonts.length} fonts found; suggested primary ${found.suggestion.colors?.primary ?? 'none'}, ` +
            `heading font ${found.suggestion.headingFont ?? 'none'}, logo ${found.suggestion.logo?.url ?? 'none'}.`
          : `${found.websiteUrl} could not be read (no answer, an error status, or not an HTML page).`,
    }),
    defineTool({
      name: 'update_brand_kit',
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
      scope: 'brand:write',
      input: updateBrandKitBody,
      hints: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      run: async ({ caller, orgId, request }, body) =>
        (await updateBrandKit(deps, caller, brandKitInputOf(orgId, body), request)).output,
      summary: (r) =>
        `${r.saved ? 'Saved' : 'Not saved (dry run)'}; changed: ${list(r.changed)}; ` +
        `warnings: ${r.warnings.length === 0 ? 'none' : r.warnings.map((w) => w.code).join(', ')}; missing: ${list(r.missing)}.`,
    }),
  ];
}
