// The curated research set shipped with the project (config/research/curated.json): evergreen topics, reference news
// items, per-platform algorithm hints and X accounts, dated (`asOf`) and with its references named. Read once and
// validated; every answer built from it is labelled `curated` with that date (domain/research/sources.ts).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { platforms } from '../../domain/shared/platforms.js';
import type { ResearchSource } from '../../domain/research/sources.js';
import { projectFile } from '../config/project-root.js';

const reference = z.object({ name: z.string().min(1), url: z.string().url() });

const curatedSetSchema = z.object({
  name: z.string().min(1),
  asOf: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  description: z.string(),
  references: z.array(reference).min(1),
  trends: z.array(
    z.object({ name: z.string().min(1), category: z.string().nullable(), keywords: z.array(z.string()) }),
  ),
  news: z.array(
    z.object({
      title: z.string().min(1),
      url: z.string().url(),
      summary: z.string(),
      publishedAt: z.string().datetime({ offset: true }),
      publisher: z.string().min(1),
    }),
  ),
  algorithmHints: z.partialRecord(
    z.enum(platforms),
    z.array(
      z.object({ title: z.string().min(1), detail: z.string().min(1), reference: z.number().int().min(0) }),
    ),
  ),
  xAccounts: z.array(
    z.object({
      handle: z.string().regex(/^[A-Za-z0-9_]{1,15}$/),
      name: z.string(),
      reason: z.string(),
      keywords: z.array(z.string()),
    }),
  ),
});
export type CuratedSet = z.infer<typeof curatedSetSchema>;

export const curatedSetFile = projectFile('config', 'research', 'curated.json');

/** Validates a parsed set: every hint's reference points into `references`. */
export function parseCuratedSet(input: unknown): CuratedSet {
  const set = curatedSetSchema.parse(input);
  for (const [platform, hints] of Object.entries(set.algorithmHints))
    for (const hint of hints ?? [])
      if (!set.references[hint.reference])
        throw new Error(`curated set: ${platform} hint "${hint.title}" names no reference`);
  return set;
}

let loaded: CuratedSet | undefined;

/** The shipped set, read and checked on first use. */
export function curatedSet(): CuratedSet {
  loaded ??= parseCuratedSet(JSON.parse(readFileSync(curatedSetFile, 'utf8')));
  return loaded;
}

/** How an answer from the set is labelled. */
export function curatedSource(set: CuratedSet, url: string | null = null): ResearchSource {
  return { kind: 'curated', name: set.name, asOf: set.asOf, url };
}
