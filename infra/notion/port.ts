// The Notion port of the context library (issue 31): Notion's public OAuth (authorize, token, revoke), the pages an
// integration was given (search) and a page as plain text (its blocks, nested and paginated, through the one
// block-to-text path, domain/context/block-text.ts). Two adapters: the live one on @notionhq/client (live.ts)
// and the sandbox Notion of the embedded default (sandbox.ts).

export interface NotionGrant {
  accessToken: string;
  workspaceId: string | null;
  workspaceName: string | null;
}

export interface RemotePage {
  id: string;
  title: string;
  url: string | null;
  lastEditedTime: string | null;
}

export interface PageContent {
  page: RemotePage;
  text: string;
  /** The text stopped at the document's limit, or the tree at the block limits. */
  truncated: boolean;
}

/**
 * What went wrong with a Notion call: `unauthorized` (the token is revoked or invalid: the source goes to error),
 * `rate_limited` (Notion's 429 outlasted the retries), `not_found` (the page is not shared with the integration),
 * `refused` (an OAuth code or request Notion did not accept), `unavailable` (no answer, a 5xx, a too large body).
 */
export type NotionErrorKind = 'unauthorized' | 'rate_limited' | 'not_found' | 'refused' | 'unavailable';

export class NotionError extends Error {
  constructor(
    readonly kind: NotionErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'NotionError';
  }
}

export const isNotionError = (error: unknown): error is NotionError => error instanceof NotionError;

/** Bounds of one page read: how deep, how many blocks and requests, how much text. */
export const pageReadLimits = {
  depth: 6,
  blocks: 3000,
  requests: 120,
  chars: 50_000,
} as const;

/** Pages a listing answers at most (GET …/pages). */
export const searchLimit = 100;

export interface NotionGateway {
  readonly mode: 'live' | 'sandbox';
  /** Where the user grants access (Notion's page, or the sandbox consent on this service). */
  authorizationUrl(input: { state: string; redirectUri: string }): string;
  exchangeCode(input: { code: string; redirectUri: string }): Promise<NotionGrant>;
  searchPages(token: string, input: { query?: string | undefined; limit: number }): Promise<RemotePage[]>;
  readPage(token: string, pageId: string): Promise<PageContent>;
  revoke(token: string): Promise<void>;
}
