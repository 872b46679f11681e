// The context library in a writer's grounding (domain/ai/writing.ts): the public documents it is given become one
// prompt line, bounded per document and in all; none given, no line.
import { describe, expect, test } from 'vitest';
import {
  documentPromptLimits,
  documentsPromptLine,
  emptyWritingContext,
  groundingPromptLines,
} from '../../../domain/ai/writing.js';

describe('context documents in the grounding', () => {
  test('a line of titles and clipped text, within the total', () => {
    const documents = Array.from({ length: 8 }, (_, i) => ({
      id: `d${i}`,
      title: `Doc ${i}`,
      text: `Words of ${i} `.repeat(400),
    }));
    const line = documentsPromptLine(documents)!;
    expect(line).toMatch(/^Context library \(public documents/);
    expect(line).toContain('Doc 0: Words of 0');
    expect(line).not.toContain(`Doc ${documentPromptLimits.documents}:`);
    expect(line.length).toBeLessThan(documentPromptLimits.total + 200);
    const lines = groundingPromptLines({ ...emptyWritingContext('Acme'), documents }).join('\n');
    expect(lines).toContain('Doc 1: Words of 1');
  });

  test('no documents, no line', () => {
    expect(documentsPromptLine([])).toBeNull();
    expect(documentsPromptLine(undefined)).toBeNull();
    expect(groundingPromptLines(emptyWritingContext('Acme')).join('\n')).not.toContain('Context library');
  });
});
