// Notion blocks as plain text (issue 31): the one path from a page's block tree to a document's contentText. Pure:
// the adapter fetches the blocks (paginated, nested) and hands them here. Text blocks keep their words; list items,
// to-dos, quotes and callouts get a plain marker; headings stand on their own line; code keeps its lines; tables
// become rows of cells separated by " | "; children are indented under their parent. Media, embeds and anything
// without words are left out (a caption stays). The text stops at `maxChars`, at a line when it can.

/** A rich-text run as Notion sends it: only its plain text is read. */
export interface RichTextLike {
  plain_text?: string;
}

/** A block as Notion sends it (GET /v1/blocks/{id}/children), with its children read by the adapter. */
export interface BlockLike {
  id: string;
  type: string;
  has_children?: boolean;
  /** The block's own payload under its type's key, e.g. `paragraph: { rich_text: [...] }`. */
  [key: string]: unknown;
  children?: BlockLike[];
}

export interface BlockTextOptions {
  /** Characters at most (default 50 000). */
  maxChars?: number;
}

export interface BlockText {
  text: string;
  /** Whether the text stopped at maxChars. */
  truncated: boolean;
}

export const plainTextOf = (rich: unknown): string =>
  Array.isArray(rich)
    ? rich.map((r) => (r && typeof r === 'object' ? ((r as RichTextLike).plain_text ?? '') : '')).join('')
    : '';

function payloadOf(block: BlockLike): Record<string, unknown> {
  const payload = block[block.type];
  return payload && typeof payload === 'object' ? (payload as Record<string, unknown>) : {};
}

/** The block's own line (without children), or null for blocks without words. */
function lineOf(block: BlockLike, numbered: number): string | null {
  const p = payloadOf(block);
  const text = plainTextOf(p.rich_text).trim();
  const caption = plainTextOf(p.caption).trim();
  switch (block.type) {
    case 'paragraph':
      return text;
    case 'heading_1':
    case 'heading_2':
    case 'heading_3':
    case 'heading_4':
      return text === '' ? null : text;
    case 'bulleted_list_item':
      return `- ${text}`;
    case 'numbered_list_item':
      return `${numbered}. ${text}`;
    case 'to_do':
      return `[${p.checked === true ? 'x' : ' '}] ${text}`;
    case 'toggle':
      return text;
    case 'quote':
      return `> ${text}`;
    case 'callout':
      return `Note: ${text}`;
    case 'code':
      return [plainTextOf(p.rich_text), caption].filter((s) => s !== '').join('\n') || null;
    case 'equation':
      return typeof p.expression === 'string' && p.expression !== '' ? p.expression : null;
    case 'table_row': {
      const cells = Array.isArray(p.cells) ? p.cells.map((cell) => plainTextOf(cell).trim()) : [];
      return cells.some((c) => c !== '') ? cells.join(' | ') : null;
    }
    case 'child_page':
    case 'child_database':
      return typeof p.title === 'string' && p.title !== '' ? p.title : null;
    case 'bookmark':
    case 'embed':
    case 'link_preview':
    case 'image':
    case 'video':
    case 'file':
    case 'pdf':
    case 'audio':
      return caption === '' ? null : caption;
    case 'divider':
      return '';
    default:
      // Table, column list, column, synced block, template: their children carry the words.
      return text === '' ? null : text;
  }
}

/** Containers whose children are not indented (they hold the page's own flow). */
const flat = new Set(['table', 'column_list', 'column', 'synced_block']);

/** The page's blocks as plain text, at most `maxChars` characters. */
export function blocksToText(blocks: readonly BlockLike[], options: BlockTextOptions = {}): BlockText {
  const maxChars = options.maxChars ?? 50_000;
  const lines: string[] = [];
  let length = 0;
  let truncated = false;

  const push = (line: string): boolean => {
    const cost = line.length + (lines.length > 0 ? 1 : 0);
    if (length + cost > maxChars) {
      const room = maxChars - length - (lines.length > 0 ? 1 : 0);
      if (room > 0 && lines.length === 0) lines.push(line.slice(0, room));
      truncated = true;
      return false;
    }
    lines.push(line);
    length += cost;
    return true;
  };

  const walk = (items: readonly BlockLike[], depth: number): boolean => {
    let numbered = 0;
    for (const block of items) {
      numbered = block.type === 'numbered_list_item' ? numbered + 1 : 0;
      const line = lineOf(block, numbered);
      const indent = '  '.repeat(depth);
      if (line !== null) {
        const text = line
          .split('\n')
          .map((l) => (l === '' ? '' : indent + l))
          .join('\n');
        if (!push(text)) return false;
      }
      if (block.children && block.children.length > 0) {
        const childDepth = flat.has(block.type) || line === null ? depth : depth + 1;
        if (!walk(block.children, childDepth)) return false;
      }
    }
    return true;
  };

  walk(blocks, 0);
  // Runs of empty lines (dividers, empty paragraphs) are kept to one.
  const text = lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { text, truncated };
}
