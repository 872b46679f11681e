// The brand kit as other slices read it (commands/brand/brand-kit-port.ts): the kit from its stream, and the
// brand as the renderer takes it, the logo read from the media library as PNG or JPEG.
import { installedFontFamily, type ImageInput, type RenderBrand } from '../../infra/visuals/contract.js';
import type { LogoReader } from '../../infra/brand/logo-image.js';
import type { Logger } from '../../infra/logging/logger.js';
import type { CommandDeps } from '../shared/command-handler.js';
import type { MediaLibrary } from '../media/library.js';
import type { BrandKit, BrandKitReader } from './brand-kit-port.js';
import { brandKitView, loadBrandKit } from './brand-kit-commands.js';

/** Renderable logos by asset id: an asset's bytes never change, so each is read and converted once. */
const maxCachedLogos = 64;

export function createBrandKitReader(deps: {
  commands: Pick<CommandDeps, 'eventStore'>;
  /** The workspace's media library (where the kit's logo is stored). */
  media: () => Pick<MediaLibrary, 'read'>;
  /** Converts the stored logo off the request thread (the render pool). */
  logos: Pick<LogoReader, 'renderable'>;
  logger?: Logger;
}): BrandKitReader {
  const logos = new Map<string, ImageInput>();

  async function logoOf(orgId: string, assetId: string): Promise<ImageInput | null> {
    const key = `${orgId}:${assetId}`;
    const cached = logos.get(key);
    if (cached) return cached;
    const stored = await deps.media().read(orgId, assetId);
    if (!stored) return null;
    try {
      const logo = await deps.logos.renderable(stored.bytes);
      const input: ImageInput = {
        data: logo.data,
        contentType: logo.contentType,
        width: logo.width,
        height: logo.height,
      };
      if (logos.size >= maxCachedLogos) logos.delete(logos.keys().next().value!);
      logos.set(key, input);
      return input;
    } catch (error) {
      // Checked when it was set; a file that no longer reads is rendered without a logo rather than failing.
      deps.logger?.warn({ orgId, assetId, err: error }, 'brand kit logo cannot be rendered');
      return null;
    }
  }

  async function get(orgId: string): Promise<BrandKit> {
    return brandKitView((await loadBrandKit(deps.commands, orgId)).state);
  }

  return {
    get,
    async renderBrand(orgId: string): Promise<RenderBrand> {
      const kit = await get(orgId);
      return {
        colors: { ...kit.colors },
        headingFont: kit.headingFont === null ? null : installedFontFamily(kit.headingFont),
        bodyFont: kit.bodyFont === null ? null : installedFontFamily(kit.bodyFont),
        logo: kit.logo?.assetId ? await logoOf(orgId, kit.logo.assetId) : null,
      };
    },
  };
}
