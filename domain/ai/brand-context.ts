// What generated public text may know about a brand (issue 27): the public part of the brand profile, with the
// brand kit's facts. The brand-profile slice builds it (`brandContextOf`), the one place where private and
// restricted knowledge is left out; prompt builders take this and never the profile itself.

export interface BrandContext {
  /** The brand's or workspace's name, as the public knows it. */
  name: string | null;
  websiteUrl: string | null;
  tagline: string | null;
  mission: string | null;
  brandType: 'personal' | 'business' | 'unknown';
  voice: {
    tone: string;
    personalityTraits: string[];
    writingGuidelines: string[];
    bannedPhrases: string[];
  };
  businessOutline: {
    overview: string;
    productsOrServices: string[];
    targetAudience: string[];
    valueProposition: string;
    differentiators: string[];
  };
  expertise: string[];
  goals: string[];
  topics: string[];
  opinions: string[];
  /** Public knowledge items only (claims, facts, opinions, preferences, topics). */
  knowledge: { kind: 'claim' | 'fact' | 'opinion' | 'preference' | 'topic'; text: string }[];
  /** Promoted preference signals, as instructions ("prefers short sentences"). */
  preferences: string[];
  /** Whether a person confirmed the profile (unconfirmed context is inferred and may be wrong). */
  confirmed: boolean;
}

/**
 * What checking generated text found (added by the brand-profile slice): a guardrail it touches or a private or
 * restricted knowledge item it repeats, by id; `matched` are words of the generated text, so nothing is disclosed.
 */
export interface OutputFinding {
  kind: 'guardrail' | 'private_knowledge';
  id: string;
  matched: string[];
}

/** Reads a workspace's brand context (null when it has no brand profile yet). */
export interface BrandContextReader {
  forOrg(orgId: string): Promise<BrandContext | null>;
  /**
   * Checks generated text against the workspace's guardrails and private knowledge, after the fact (guardrails
   * never reach a prompt): empty when nothing is touched. Optional so that other readers (test doubles) need not
   * implement it; the brand-profile slice's reader does.
   */
  checkOutput?(orgId: string, text: string): Promise<OutputFinding[]>;
}
