// The brand kit as other slices read it (issue 15): the visuals slice renders in its colours, fonts and logo.
// Implemented by the brand slice (commands/brand/, api/brand/); built once per runtime by `brandKitOf(ctx)`.
import type { RenderBrand } from '../../infra/visuals/contract.js';

/** Spec part 2, "Brand kit". */
export interface BrandKit {
  colors: {
    primary: string | null;
    secondary: string | null;
    accent: string | null;
    background: string | null;
  };
  headingFont: string | null;
  bodyFont: string | null;
  logo: {
    assetId: string | null;
    url: string | null;
    sourceUrl: string | null;
    width: number | null;
    height: number | null;
    contentType: string | null;
  } | null;
  tagline: string | null;
  website: string | null;
  updatedAt: string | null;
  /** Names of unset parts, e.g. `colors.primary`, `logo`. */
  missing: string[];
}

export interface BrandKitReader {
  /** The workspace's kit (every field null and everything missing before the first edit). */
  get(orgId: string): Promise<BrandKit>;
  /** The kit as the renderer takes it: colours as `#rrggbb`, installed font families, the logo's bytes (PNG). */
  renderBrand(orgId: string): Promise<RenderBrand>;
}
