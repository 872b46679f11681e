// The research tools' reference answers (issue 31, part 3): list_viral_post_formats (GET ORG/inspiration/formats)
// serves the documented formats the drafting jobs use (domain/ai/viral-formats.ts: one catalogue, no copy), and
// get_platform_algorithm_hints (GET ORG/inspiration/algorithm-hints) the curated set's hints per platform, each
// with the public reference it rests on. Read-only, no platform call, nothing spent.
import { viralFormatKeys, viralFormats, type ViralFormat } from '../../domain/ai/viral-formats.js';
import { authorize, type Caller } from '../../domain/shared/caller.js';
import { platforms, type Platform } from '../../domain/shared/platforms.js';
import type { ResearchSource } from '../../domain/research/sources.js';
import { curatedSet, curatedSource } from '../../infra/research/curated.js';
import { researchReading } from './newsjacking-settings.js';

/** When the formats were documented (docs/decisions.md, "Viral formats"). */
export const viralFormatsAsOf = '2026-11-29';

export interface ViralFormatsAnswer {
  items: ViralFormat[];
  source: ResearchSource;
}

/** Tool: list_viral_post_formats. */
export function listViralPostFormats(caller: Caller, input: { orgId: string }): ViralFormatsAnswer {
  authorize(caller, researchReading(input.orgId));
  return {
    items: viralFormatKeys.map((key) => viralFormats[key]),
    source: {
      kind: 'curated',
      name: "The project's documented viral post formats (what draft_post_from_thought picks from)",
      asOf: viralFormatsAsOf,
      url: null,
    },
  };
}

export interface AlgorithmHint {
  title: string;
  detail: string;
  reference: { name: string; url: string };
}

export interface AlgorithmHintsAnswer {
  platforms: { platform: Platform; hints: AlgorithmHint[] }[];
  source: ResearchSource;
}

/** Tool: get_platform_algorithm_hints. */
export function getPlatformAlgorithmHints(
  caller: Caller,
  input: { orgId: string; platform?: Platform | undefined },
): AlgorithmHintsAnswer {
  authorize(caller, researchReading(input.orgId));
  const set = curatedSet();
  const asked = input.platform ? [input.platform] : platforms;
  return {
    platforms: asked.map((platform) => ({
      platform,
      hints: (set.algorithmHints[platform] ?? []).map((h) => ({
        title: h.title,
        detail: h.detail,
        reference: set.references[h.reference]!,
      })),
    })),
    source: curatedSource(set),
  };
}
