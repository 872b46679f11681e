// The configured image-generation provider, or null when none is (IMAGE_GENERATION_URL and _API_KEY unset).
import type { ImageGenerationEnv } from './settings.js';
import { createOpenAiImagesProvider } from './openai-images.js';
import type { ImageGenerationProvider } from './port.js';

export function imageGenerationFromEnv(
  env: Pick<
    ImageGenerationEnv,
    'IMAGE_GENERATION_URL' | 'IMAGE_GENERATION_API_KEY' | 'IMAGE_GENERATION_MODEL'
  >,
): ImageGenerationProvider | null {
  if (!env.IMAGE_GENERATION_URL || !env.IMAGE_GENERATION_API_KEY) return null;
  return createOpenAiImagesProvider({
    baseUrl: env.IMAGE_GENERATION_URL,
    apiKey: env.IMAGE_GENERATION_API_KEY,
    ...(env.IMAGE_GENERATION_MODEL ? { model: env.IMAGE_GENERATION_MODEL } : {}),
  });
}
