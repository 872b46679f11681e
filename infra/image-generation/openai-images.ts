// Image generation through an OpenAI-compatible images API: `POST {baseUrl}/images/generations` with a model,
// the prompt, a size the model supports and `n: 1`, answered with `data[0].b64_json` (or `data[0].url`). Errors
// come as `{ error: { message, type, code } }`; each is sorted into an ImageGenerationFailure with the provider's
// own words, and the key never appears in a message.
import { imageSize } from 'image-size';
import {
  ImageGenerationError,
  type GeneratedImage,
  type ImageGenerationProvider,
  type ImageGenerationRequest,
  type ImageModel,
} from './port.js';

interface ModelInfo {
  /** The sizes the model accepts, `WxH`. */
  sizes: readonly string[];
  /** Estimated cost of one image: square, and any other size (thousandths of a US dollar). */
  costMilliUsd: { square: number; other: number };
  useFor: string;
  /** gpt-image models always answer base64 and refuse `response_format`; they take `quality`. */
  gptImage: boolean;
}

/**
 * The OpenAI image models, with list prices at the quality we ask for (gpt-image: `medium`; dall-e-3:
 * standard). A compatible provider's own model (IMAGE_GENERATION_MODEL not listed here) is used at 1024×1024
 * and estimated like a standard square image.
 */
const knownModels: Record<string, ModelInfo> = {
  'gpt-image-1': {
    sizes: ['1024x1024', '1536x1024', '1024x1536'],
    costMilliUsd: { square: 42, other: 63 },
    useFor: 'Photographic or illustrated backgrounds that follow the prompt closely',
    gptImage: true,
  },
  'gpt-image-1-mini': {
    sizes: ['1024x1024', '1536x1024', '1024x1536'],
    costMilliUsd: { square: 11, other: 15 },
    useFor: 'Quick, low-cost backgrounds and textures',
    gptImage: true,
  },
  'dall-e-3': {
    sizes: ['1024x1024', '1792x1024', '1024x1792'],
    costMilliUsd: { square: 40, other: 80 },
    useFor: 'Illustrated and artistic backgrounds',
    gptImage: false,
  },
  'dall-e-2': {
    sizes: ['256x256', '512x512', '1024x1024'],
    costMilliUsd: { square: 20, other: 20 },
    useFor: 'Simple abstract textures at the lowest cost',
    gptImage: false,
  },
};

const unknownModel: ModelInfo = {
  sizes: ['1024x1024'],
  costMilliUsd: { square: 40, other: 40 },
  useFor: 'The configured model',
  gptImage: false,
};

export const defaultImageModel = 'gpt-image-1';
const defaultTimeoutMs = 120_000;
/** A 1792×1024 PNG is a few MB; base64 adds a third. */
const maxAnswerBytes = 40 * 1024 * 1024;

export interface OpenAiImagesOptions {
  /** e.g. https://api.openai.com/v1 (no trailing /images). */
  baseUrl: string;
  apiKey: string;
  /** The default model; defaultImageModel when not configured. */
  model?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The supported size whose aspect ratio is nearest the visual's (ties: the larger image). */
export function nearestSize(sizes: readonly string[], width: number, height: number): string {
  const wanted = Math.log(width / height);
  let best = sizes[0]!;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const size of sizes) {
    const [w, h] = size.split('x').map(Number) as [number, number];
    const score = Math.abs(Math.log(w / h) - wanted) - w * h * 1e-12;
    if (score < bestScore) {
      best = size;
      bestScore = score;
    }
  }
  return best;
}

function sniff(bytes: Uint8Array): 'image/png' | 'image/jpeg' | null {
  if (bytes.length > 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)
    return 'image/png';
  if (bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  return null;
}

interface ProviderError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
}

function providerMessage(body: unknown, status: number): { message: string; code: string } {
  const error = (body as { error?: ProviderError } | null)?.error;
  const message =
    typeof error?.message === 'string' && error.message.trim() !== ''
      ? error.message.trim().slice(0, 500)
      : `HTTP ${status}`;
  const code = [error?.code, error?.type].filter((v) => typeof v === 'string').join(' ');
  return { message, code };
}

function failureOf(status: number, body: unknown): ImageGenerationError {
  const { message, code } = providerMessage(body, status);
  if (status === 429 && /insufficient_quota|billing/.test(code))
    return new ImageGenerationError(
      'unavailable',
      `The image provider's account has no quota left: ${message}`,
    );
  if (status === 429)
    return new ImageGenerationError('busy', `The image provider is rate-limiting requests: ${message}`);
  if (status === 401 || status === 403)
    return new ImageGenerationError(
      'unavailable',
      `The image provider refused the configured credentials (HTTP ${status}): ${message}`,
    );
  if (status === 404)
    return new ImageGenerationError(
      'unavailable',
      `The image provider does not offer this model: ${message}`,
    );
  if (status === 400 || status === 422)
    return new ImageGenerationError('refused', `The image provider refused the prompt: ${message}`);
  return new ImageGenerationError('failed', `The image provider failed (HTTP ${status}): ${message}`);
}

export function createOpenAiImagesProvider(options: OpenAiImagesOptions): ImageGenerationProvider {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const defaultModel = options.model ?? defaultImageModel;
  const models = [...new Set([defaultModel, ...Object.keys(knownModels)])];
  const infoOf = (model: string) => knownModels[model] ?? unknownModel;
  const recommendedModels: ImageModel[] = models.slice(0, 3).map((id) => ({ id, useFor: infoOf(id).useFor }));

  async function answerBody(response: Response): Promise<unknown> {
    const declared = Number(response.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxAnswerBytes)
      throw new ImageGenerationError('failed', 'The image provider answered with more than 40 MB');
    const text = await response.text();
    if (text.length > maxAnswerBytes)
      throw new ImageGenerationError('failed', 'The image provider answered with more than 40 MB');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return null;
    }
  }

  async function download(url: string, signal: AbortSignal): Promise<Uint8Array> {
    const response = await doFetch(url, { signal });
    if (!response.ok)
      throw new ImageGenerationError('failed', `Downloading the generated image answered ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.byteLength > maxAnswerBytes)
      throw new ImageGenerationError('failed', 'The generated image is larger than 40 MB');
    return bytes;
  }

  return {
    defaultModel,
    recommendedModels,
    models,
    async generate(request: ImageGenerationRequest): Promise<GeneratedImage> {
      const info = infoOf(request.model);
      const size = nearestSize(info.sizes, request.width, request.height);
      const [w, h] = size.split('x').map(Number) as [number, number];
      const body = {
        model: request.model,
        prompt: request.prompt,
        size,
        n: 1,
        ...(info.gptImage ? { quality: 'medium' } : { response_format: 'b64_json' }),
      };
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
      let bytes: Uint8Array;
      try {
        const response = await doFetch(`${baseUrl}/images/generations`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${options.apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          body: JSON.stringify(body),
          signal,
        });
        const answer = await answerBody(response);
        if (!response.ok) throw failureOf(response.status, answer);
        const first = (answer as { data?: Array<{ b64_json?: unknown; url?: unknown }> } | null)?.data?.[0];
        if (typeof first?.b64_json === 'string' && first.b64_json !== '')
          bytes = new Uint8Array(Buffer.from(first.b64_json, 'base64'));
        else if (typeof first?.url === 'string') bytes = await download(first.url, signal);
        else throw new ImageGenerationError('failed', 'The image provider answered without an image');
      } catch (error) {
        if (error instanceof ImageGenerationError) throw error;
        const name = (error as { name?: string } | null)?.name;
        if (name === 'TimeoutError' || (name === 'AbortError' && deadline.aborted))
          throw new ImageGenerationError(
            'failed',
            `The image provider did not answer within ${timeoutMs / 1000} s`,
          );
        if (name === 'AbortError') throw error;
        throw new ImageGenerationError(
          'failed',
          `The image provider could not be reached: ${(error as Error).message}`,
        );
      }
      const contentType = sniff(bytes);
      if (!contentType)
        throw new ImageGenerationError(
          'failed',
          'The image provider answered with something other than a PNG or JPEG',
        );
      let dimensions: { width?: number; height?: number };
      try {
        dimensions = imageSize(bytes);
      } catch {
        throw new ImageGenerationError('failed', 'The generated image could not be read');
      }
      const square = w === h;
      return {
        data: bytes,
        contentType,
        width: dimensions.width ?? w,
        height: dimensions.height ?? h,
        model: request.model,
        estimatedCostMilliUsd: square ? info.costMilliUsd.square : info.costMilliUsd.other,
      };
    },
  };
}
