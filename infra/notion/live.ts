// The live Notion adapter (issue 31) on Notion's official SDK, @notionhq/client: OAuth (token exchange and revoke
// with the integration's client id and secret), search for the pages shared with the integration, and a page's
// block tree (children paginated by start_cursor, nested blocks read recursively within pageReadLimits) turned
// into plain text by the domain's block-to-text path. The SDK retries a 429 after its Retry-After (capped) and a
// 5xx on reads; what outlasts the retries is a NotionError. Every response body is capped in bytes, every call
// in time; the base URL is configurable so tests serve Notion locally.
import {
  APIErrorCode,
  APIResponseError,
  Client,
  ClientErrorCode,
  isNotionClientError,
  UnknownHTTPResponseError,
} from '@notionhq/client';
import { blocksToText, plainTextOf, type BlockLike } from '../../domain/context/block-text.js';
import {
  NotionError,
  pageReadLimits,
  type NotionGateway,
  type NotionGrant,
  type PageContent,
  type RemotePage,
} from './port.js';

export interface LiveNotionOptions {
  clientId: string;
  clientSecret: string;
  /** https://api.notion.com, or a locally served Notion in tests. */
  baseUrl: string;
  /** Per request (default 20 s). */
  timeoutMs?: number;
  /** Retries of a 429 or a 5xx (default 2), and the longest wait between them (default 5 s). */
  maxRetries?: number;
  maxRetryDelayMs?: number;
  /** Bytes of one response body at most (default 4 MiB). */
  maxResponseBytes?: number;
  fetch?: typeof fetch;
}

/** A fetch whose response bodies stop at `maxBytes` (a longer one fails as unavailable). */
function cappedFetch(inner: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const declared = Number(response.headers.get('content-length') ?? '0');
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new NotionError('unavailable', `Notion answered more than ${maxBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body)
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        size += chunk.byteLength;
        if (size > maxBytes) {
          await response.body.cancel().catch(() => undefined);
          throw new NotionError('unavailable', `Notion answered more than ${maxBytes} bytes`);
        }
        chunks.push(chunk);
      }
    return new Response(Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A failed SDK call as a NotionError; the SDK's message stays out (it may echo request parameters). */
export function notionErrorOf(error: unknown): NotionError {
  if (error instanceof NotionError) return error;
  if (error instanceof APIResponseError) {
    switch (error.code) {
      case APIErrorCode.Unauthorized:
        return new NotionError('unauthorized', 'Notion refused the access token (revoked or invalid)');
      case APIErrorCode.RateLimited:
        return new NotionError('rate_limited', 'Notion is limiting requests; try again in a minute');
      case APIErrorCode.ObjectNotFound:
      case APIErrorCode.RestrictedResource:
        return new NotionError('not_found', 'The page is not shared with the integration');
      case APIErrorCode.InvalidRequest:
      case APIErrorCode.ValidationError:
      case APIErrorCode.InvalidJSON:
      case APIErrorCode.InvalidRequestURL:
        return new NotionError('refused', 'Notion refused the request');
      case APIErrorCode.ConflictError:
      case APIErrorCode.GatewayTimeout:
      case APIErrorCode.InternalServerError:
      case APIErrorCode.InvalidBeta:
      case APIErrorCode.ServiceOverload:
      case APIErrorCode.ServiceUnavailable:
        return new NotionError('unavailable', 'Notion did not answer; try again');
      default:
        return new NotionError('unavailable', 'Notion did not answer; try again');
    }
  }
  if (error instanceof UnknownHTTPResponseError) {
    if (error.status === 401) return new NotionError('unauthorized', 'Notion refused the access token');
    if (error.status === 429) return new NotionError('rate_limited', 'Notion is limiting requests');
    if (error.status === 400) return new NotionError('refused', 'Notion refused the request');
    return new NotionError('unavailable', 'Notion did not answer; try again');
  }
  if (isNotionClientError(error) && error.code === ClientErrorCode.RequestTimeout)
    return new NotionError('unavailable', 'Notion did not answer in time');
  if (error instanceof Error && error.cause instanceof NotionError) return error.cause;
  return new NotionError('unavailable', 'Notion could not be reached');
}

async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw notionErrorOf(error);
  }
}

/** A page object's title (its `title` property), url and last edit, as a remote page. */
export function remotePageOf(page: Record<string, unknown>): RemotePage {
  const properties = (page.properties ?? {}) as Record<string, { type?: string; title?: unknown }>;
  const titleProperty = Object.values(properties).find((p) => p?.type === 'title');
  const title = plainTextOf(titleProperty?.title).trim();
  return {
    id: String(page.id),
    title: title || 'Untitled',
    url: typeof page.url === 'string' ? page.url : null,
    lastEditedTime: typeof page.last_edited_time === 'string' ? page.last_edited_time : null,
  };
}

export class LiveNotion implements NotionGateway {
  readonly mode = 'live' as const;
  private readonly base: string;

  constructor(private readonly options: LiveNotionOptions) {
    this.base = options.baseUrl.replace(/\/$/, '');
  }

  private client(auth?: string): Client {
    return new Client({
      ...(auth ? { auth } : {}),
      baseUrl: this.base,
      timeoutMs: this.options.timeoutMs ?? 20_000,
      fetch: cappedFetch(this.options.fetch ?? fetch, this.options.maxResponseBytes ?? 4 * 1024 * 1024),
      retry: {
        maxRetries: this.options.maxRetries ?? 2,
        initialRetryDelayMs: 500,
        maxRetryDelayMs: this.options.maxRetryDelayMs ?? 5_000,
      },
      // The SDK logs to the console by default; failures are mapped and logged by the use cases.
      logger: () => {},
    });
  }

  authorizationUrl({ state, redirectUri }: { state: string; redirectUri: string }): string {
    const url = new URL(`${this.base}/v1/oauth/authorize`);
    url.searchParams.set('client_id', this.options.clientId);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('owner', 'user');
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  }

  async exchangeCode({ code, redirectUri }: { code: string; redirectUri: string }): Promise<NotionGrant> {
    const answer = await call(() =>
      this.client().oauth.token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
      }),
    );
    if (!answer.access_token) throw new NotionError('refused', 'Notion answered no access token');
    return {
      accessToken: answer.access_token,
      workspaceId: answer.workspace_id ?? null,
      workspaceName: answer.workspace_name ?? null,
    };
  }

  async searchPages(
    token: string,
    input: { query?: string | undefined; limit: number },
  ): Promise<RemotePage[]> {
    const client = this.client(token);
    const pages: RemotePage[] = [];
    let cursor: string | undefined;
    // At most limit pages, a few requests: a listing is for picking pages, not a crawl.
    for (let request = 0; request < 10 && pages.length < input.limit; request += 1) {
      const answer = await call(() =>
        client.search({
          ...(input.query ? { query: input.query } : {}),
          filter: { property: 'object', value: 'page' },
          page_size: Math.min(100, input.limit - pages.length),
          ...(cursor ? { start_cursor: cursor } : {}),
        }),
      );
      for (const result of answer.results as unknown as Record<string, unknown>[])
        if (result.object === 'page' && pages.length < input.limit) pages.push(remotePageOf(result));
      if (!answer.has_more || !answer.next_cursor) break;
      cursor = answer.next_cursor;
    }
    return pages;
  }

  async readPage(token: string, pageId: string): Promise<PageContent> {
    const client = this.client(token);
    const page = remotePageOf(await call(() => client.pages.retrieve({ page_id: pageId })));
    const budget = { blocks: 0, requests: 0, truncated: false };
    const children = async (blockId: string, depth: number): Promise<BlockLike[]> => {
      const blocks: BlockLike[] = [];
      let cursor: string | undefined;
      do {
        if (budget.requests >= pageReadLimits.requests || budget.blocks >= pageReadLimits.blocks) {
          budget.truncated = true;
          break;
        }
        budget.requests += 1;
        const answer = await call(() =>
          client.blocks.children.list({
            block_id: blockId,
            page_size: 100,
            ...(cursor ? { start_cursor: cursor } : {}),
          }),
        );
        for (const block of answer.results as unknown as BlockLike[]) {
          if (budget.blocks >= pageReadLimits.blocks) {
            budget.truncated = true;
            break;
          }
          budget.blocks += 1;
          blocks.push(block);
        }
        cursor = answer.has_more && answer.next_cursor ? answer.next_cursor : undefined;
      } while (cursor);
      for (const block of blocks) {
        // A child page is a page of its own (synced when picked), not this page's text.
        if (!block.has_children || block.type === 'child_page' || block.type === 'child_database') continue;
        if (depth + 1 >= pageReadLimits.depth) {
          budget.truncated = true;
          continue;
        }
        block.children = await children(block.id, depth + 1);
      }
      return blocks;
    };
    const tree = await children(pageId, 0);
    const { text, truncated } = blocksToText(tree, { maxChars: pageReadLimits.chars });
    return { page, text, truncated: truncated || budget.truncated };
  }

  async revoke(token: string): Promise<void> {
    await call(() =>
      this.client().oauth.revoke({
        token,
        client_id: this.options.clientId,
        client_secret: this.options.clientSecret,
      }),
    );
  }
}
