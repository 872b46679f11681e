// The image-generation provider port (issue 15): a background image made from a prompt for a branded visual
// (`aiBackground`). The service ships an adapter for OpenAI-compatible images APIs (openai-images.ts); without
// IMAGE_GENERATION_URL and IMAGE_GENERATION_API_KEY there is no provider and renders asking for one are refused.

/** A model the provider offers, with what it is best used for (GET visuals/options lists them). */
export interface ImageModel {
  id: string;
  useFor: string;
}

export interface ImageGenerationRequest {
  prompt: string;
  /** One of the provider's models (`models`), or its default. */
  model: string;
  /** The pixel size of the visual the image goes behind; the provider picks its nearest supported size. */
  width: number;
  height: number;
  signal?: AbortSignal;
}

export interface GeneratedImage {
  /** PNG or JPEG bytes. */
  data: Uint8Array;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  model: string;
  /** What the provider is estimated to charge for this image, in thousandths of a US dollar. */
  estimatedCostMilliUsd: number;
}

/**
 * Why a generation failed: `refused` (the provider declined the prompt, e.g. its content policy; the caller
 * may change it), `unavailable` (the provider refused our credentials or is not reachable as configured),
 * `busy` (it is rate-limiting us), `failed` (an error or an answer we cannot use).
 */
export type ImageGenerationFailure = 'refused' | 'unavailable' | 'busy' | 'failed';

export class ImageGenerationError extends Error {
  constructor(
    readonly reason: ImageGenerationFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ImageGenerationError';
  }
}

export interface ImageGenerationProvider {
  /** Used when a request names no model. */
  readonly defaultModel: string;
  /** A short list to pick from, best first. */
  readonly recommendedModels: readonly ImageModel[];
  /** Every model a request may name. */
  readonly models: readonly string[];
  generate(request: ImageGenerationRequest): Promise<GeneratedImage>;
}
