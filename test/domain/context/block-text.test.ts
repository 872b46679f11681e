// Notion blocks as plain text (domain/context/block-text.ts): each block type's words and marker, nesting as
// indentation (but for tables and columns), numbered lists counted per run, media without words left out (their
// captions kept), and the character limit stopping the text at a line.
import { describe, expect, test } from 'vitest';
import { blocksToText, type BlockLike } from '../../../domain/context/block-text.js';

let n = 0;
const rich = (text: string) => [{ type: 'text', plain_text: text }];
const b = (type: string, text: string, children: BlockLike[] = [], extra: object = {}): BlockLike => ({
  id: `b${(n += 1)}`,
  type,
  has_children: children.length > 0,
  [type]: { rich_text: rich(text), ...extra },
  ...(children.length > 0 ? { children } : {}),
});

describe('blocks to text', () => {
  test('every kind of text block, with its marker', () => {
    const { text, truncated } = blocksToText([
      b('heading_1', 'Title'),
      b('heading_3', 'Sub'),
      b('paragraph', 'Plain words.'),
      b('bulleted_list_item', 'A bullet'),
      b('numbered_list_item', 'One'),
      b('numbered_list_item', 'Two'),
      b('paragraph', 'Between'),
      b('numbered_list_item', 'One again'),
      b('to_do', 'Done', [], { checked: true }),
      b('to_do', 'Open', [], { checked: false }),
      b('quote', 'Quoted'),
      b('callout', 'Careful'),
      b('code', 'const a = 1;\nconst b = 2;', [], { language: 'js' }),
      { id: 'eq', type: 'equation', equation: { expression: 'e=mc^2' } },
      { id: 'img', type: 'image', image: { caption: rich('A chart') } },
      { id: 'img2', type: 'image', image: { caption: [] } },
      { id: 'd', type: 'divider', divider: {} },
      { id: 'cp', type: 'child_page', child_page: { title: 'A sub page' } },
      { id: 'u', type: 'unsupported', unsupported: {} },
    ]);
    expect(truncated).toBe(false);
    expect(text).toBe(
      [
        'Title',
        'Sub',
        'Plain words.',
        '- A bullet',
        '1. One',
        '2. Two',
        'Between',
        '1. One again',
        '[x] Done',
        '[ ] Open',
        '> Quoted',
        'Note: Careful',
        'const a = 1;',
        'const b = 2;',
        'e=mc^2',
        'A chart',
        '',
        'A sub page',
      ].join('\n'),
    );
  });

  test('children are indented under their parent; tables and columns are not', () => {
    const table: BlockLike = {
      id: 't',
      type: 'table',
      has_children: true,
      table: { table_width: 2 },
      children: [
        { id: 'r1', type: 'table_row', table_row: { cells: [rich('a'), rich('b')] } },
        { id: 'r2', type: 'table_row', table_row: { cells: [rich(''), rich('')] } },
      ],
    };
    const columns: BlockLike = {
      id: 'cl',
      type: 'column_list',
      has_children: true,
      column_list: {},
      children: [
        {
          id: 'c1',
          type: 'column',
          has_children: true,
          column: {},
          children: [b('paragraph', 'In a column')],
        },
      ],
    };
    const { text } = blocksToText([
      b('toggle', 'Open me', [b('bulleted_list_item', 'Inside', [b('paragraph', 'Deeper')])]),
      table,
      columns,
    ]);
    expect(text).toBe(['Open me', '  - Inside', '    Deeper', 'a | b', 'In a column'].join('\n'));
  });

  test('the text stops at maxChars at a line, and says so', () => {
    const blocks = Array.from({ length: 100 }, (_, i) => b('paragraph', `Line number ${i}`));
    const { text, truncated } = blocksToText(blocks, { maxChars: 60 });
    expect(truncated).toBe(true);
    expect(text.length).toBeLessThanOrEqual(60);
    expect(text.split('\n').every((line) => /^Line number \d+$/.test(line))).toBe(true);
    // One block longer than the limit is cut to it.
    const long = blocksToText([b('paragraph', 'x'.repeat(100))], { maxChars: 10 });
    expect(long).toEqual({ text: 'x'.repeat(10), truncated: true });
  });

  test('rich text runs are joined; missing payloads are empty', () => {
    const { text } = blocksToText([
      { id: 'p', type: 'paragraph', paragraph: { rich_text: [...rich('Bold '), ...rich('and plain')] } },
      { id: 'q', type: 'paragraph' },
    ]);
    expect(text).toBe('Bold and plain');
  });
});
