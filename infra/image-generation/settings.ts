// The image-generation provider's and the render pool's environment variables, read by infra/image-generation
// and the visuals slice, and declared by it (api/visuals/slice.ts).
import { z } from 'zod';
import { defineSettings, optionalString, optionalUrl, type SettingsOf } from '../config/env.js';

/**
 * The image-generation provider of branded visuals' `aiBackground` (api/visuals): an OpenAI-compatible images
 * API. Without a URL and key there is none: options say `available: false` and such renders get a 400.
 */
export const imageGenerationSettings = defineSettings(
  {
    /** Base URL of an OpenAI-compatible images API, e.g. https://api.openai.com/v1 (`/images/generations` is added). */
    IMAGE_GENERATION_URL: optionalUrl,
    /** Its API key (sent as a Bearer token); required with IMAGE_GENERATION_URL. */
    IMAGE_GENERATION_API_KEY: optionalString,
    /** The model used when a render names none (default `gpt-image-1`). */
    IMAGE_GENERATION_MODEL: optionalString,
    /**
     * Threads of the branded-visuals render pool. Default: the machine's cores less one (at least one), so
     * requests keep a core while renders run (docs/performance.md, "Branded visuals").
     */
    RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
    /** Renders (queued or running) one workspace may have at once; one more is a 429 (docs/security.md). */
    RENDER_QUEUE_PER_WORKSPACE: z.coerce.number().int().min(1).max(1000).default(4),
    /** Renders (queued or running) the service takes at once over every workspace; one more is a 503. */
    RENDER_QUEUE_TOTAL: z.coerce.number().int().min(1).max(10_000).default(32),
    /** How long one render task (an image, a slide, a logo) may run before its thread is ended (seconds). */
    RENDER_TIMEOUT_SECONDS: z.coerce.number().min(1).max(600).default(20),
  },
  (env, ctx) => {
    if (env.IMAGE_GENERATION_URL && !env.IMAGE_GENERATION_API_KEY)
      ctx.addIssue({
        code: 'custom',
        path: ['IMAGE_GENERATION_API_KEY'],
        message: 'is required when IMAGE_GENERATION_URL is set',
      });
    if (env.IMAGE_GENERATION_API_KEY && !env.IMAGE_GENERATION_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['IMAGE_GENERATION_URL'],
        message: 'is required when IMAGE_GENERATION_API_KEY is set (e.g. https://api.openai.com/v1)',
      });
  },
);

export type ImageGenerationEnv = SettingsOf<typeof imageGenerationSettings>;
