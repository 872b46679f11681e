// The sandbox Notion of the embedded default (issue 31; no NOTION_CLIENT_ID): the OAuth consent is this service's
// own page (api/context/routes.ts, GET /v1/sandbox/notion/authorize, which grants at once and sends the browser on
// to the callback), and a small Notion workspace of deterministic pages with nested blocks goes through the same
// block-to-text path as the live adapter. No network.
import { blocksToText, type BlockLike } from '../../domain/context/block-text.js';
import {
  NotionError,
  pageReadLimits,
  type NotionGateway,
  type NotionGrant,
  type PageContent,
  type RemotePage,
} from './port.js';

export const sandboxNotionWorkspace = { id: 'sandbox-notion-workspace', name: 'Sandbox Notion' } as const;
/** What the sandbox consent hands the callback; any other code is refused like Notion's invalid_grant. */
export const sandboxNotionCode = 'sandbox-notion-code';
const tokenPrefix = 'sandbox-notion-token.';

const rich = (text: string) => [{ type: 'text', plain_text: text, text: { content: text } }];
let blockNumber = 0;
const block = (type: string, text: string, children: BlockLike[] = [], extra: object = {}): BlockLike => {
  blockNumber += 1;
  return {
    id: `sandbox-block-${blockNumber}`,
    type,
    has_children: children.length > 0,
    [type]: { rich_text: rich(text), ...extra },
    ...(children.length > 0 ? { children } : {}),
  };
};
const row = (...cells: string[]): BlockLike => {
  blockNumber += 1;
  return {
    id: `sandbox-block-${blockNumber}`,
    type: 'table_row',
    has_children: false,
    table_row: { cells: cells.map(rich) },
  };
};

interface SandboxPage extends RemotePage {
  blocks: BlockLike[];
}

const edited = '2026-11-02T09:30:00.000Z';

/** The sandbox workspace's pages, fixed: the README and the tests name them. */
export const sandboxNotionPages: readonly SandboxPage[] = [
  {
    id: '5a1d0c1e-0001-4c3b-9e55-0000000000a1',
    title: 'Company overview',
    url: 'https://www.notion.so/sandbox/Company-overview-5a1d0c1e00014c3b9e550000000000a1',
    lastEditedTime: edited,
    blocks: [
      block('heading_1', 'Who we are'),
      block('paragraph', 'Acme Studio builds a scheduling tool for small design teams.'),
      block('bulleted_list_item', 'Founded in Lisbon in 2021', [
        block('bulleted_list_item', 'Twelve people, fully remote'),
      ]),
      block('bulleted_list_item', 'Customers in 30 countries'),
      block('quote', 'Plan less, ship more.'),
    ],
  },
  {
    id: '5a1d0c1e-0002-4c3b-9e55-0000000000a2',
    title: 'Product principles',
    url: 'https://www.notion.so/sandbox/Product-principles-5a1d0c1e00024c3b9e550000000000a2',
    lastEditedTime: edited,
    blocks: [
      block('heading_2', 'How we build'),
      block('numbered_list_item', 'Every feature ships behind a weekly release train'),
      block('numbered_list_item', 'Defaults beat settings'),
      block('toggle', 'Why weekly releases', [
        block('paragraph', 'Small releases are easy to review and easy to roll back.'),
        block('to_do', 'Write the release notes on Friday', [], { checked: true }),
      ]),
      block('callout', 'Ask a customer before adding a setting.'),
    ],
  },
  {
    id: '5a1d0c1e-0003-4c3b-9e55-0000000000a3',
    title: 'Pricing notes (internal)',
    url: 'https://www.notion.so/sandbox/Pricing-notes-5a1d0c1e00034c3b9e550000000000a3',
    lastEditedTime: edited,
    blocks: [
      block('paragraph', 'Internal only: gross margin is 61 percent on the team plan.'),
      {
        id: 'sandbox-table',
        type: 'table',
        has_children: true,
        table: { table_width: 2 },
        children: [row('Plan', 'Price'), row('Solo', '9 EUR'), row('Team', '29 EUR')],
      },
    ],
  },
  {
    id: '5a1d0c1e-0004-4c3b-9e55-0000000000a4',
    title: 'Customer story: Northwind',
    url: 'https://www.notion.so/sandbox/Customer-story-5a1d0c1e00044c3b9e550000000000a4',
    lastEditedTime: edited,
    blocks: [
      block('heading_2', 'Northwind cut planning meetings in half'),
      block('paragraph', 'Northwind moved their design reviews to Acme Studio in March.'),
      block('code', 'reviews_per_week: 4 -> 2', [], { language: 'yaml' }),
    ],
  },
];

const remote = ({ id, title, url, lastEditedTime }: SandboxPage): RemotePage => ({
  id,
  title,
  url,
  lastEditedTime,
});

/** Notion's page ids are uuids written with or without dashes. */
const sameId = (a: string, b: string) =>
  a.replace(/-/g, '').toLowerCase() === b.replace(/-/g, '').toLowerCase();

export class SandboxNotion implements NotionGateway {
  readonly mode = 'sandbox' as const;

  /** `consentUrl`: this service's sandbox consent page (PUBLIC_BASE_URL/v1/sandbox/notion/authorize). */
  constructor(private readonly consentUrl: string) {}

  authorizationUrl({ state, redirectUri }: { state: string; redirectUri: string }): string {
    const url = new URL(this.consentUrl);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('owner', 'user');
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    return url.toString();
  }

  exchangeCode({ code }: { code: string; redirectUri: string }): Promise<NotionGrant> {
    if (code !== sandboxNotionCode)
      return Promise.reject(new NotionError('refused', 'The sandbox Notion did not issue this code'));
    return Promise.resolve({
      accessToken: `${tokenPrefix}${crypto.randomUUID()}`,
      workspaceId: sandboxNotionWorkspace.id,
      workspaceName: sandboxNotionWorkspace.name,
    });
  }

  private check(token: string): void {
    if (!token.startsWith(tokenPrefix))
      throw new NotionError('unauthorized', 'Notion refused the access token (revoked or invalid)');
  }

  async searchPages(
    token: string,
    input: { query?: string | undefined; limit: number },
  ): Promise<RemotePage[]> {
    await Promise.resolve();
    this.check(token);
    const query = input.query?.trim().toLowerCase() ?? '';
    return sandboxNotionPages
      .filter((p) => query === '' || p.title.toLowerCase().includes(query))
      .slice(0, input.limit)
      .map(remote);
  }

  async readPage(token: string, pageId: string): Promise<PageContent> {
    await Promise.resolve();
    this.check(token);
    const page = sandboxNotionPages.find((p) => sameId(p.id, pageId));
    if (!page) throw new NotionError('not_found', 'The page is not shared with the integration');
    const { text, truncated } = blocksToText(page.blocks, { maxChars: pageReadLimits.chars });
    return { page: remote(page), text, truncated };
  }

  async revoke(token: string): Promise<void> {
    await Promise.resolve();
    this.check(token);
  }
}
