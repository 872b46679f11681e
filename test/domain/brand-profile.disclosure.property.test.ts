// Disclosure, as a property: for any brand profile (any mix of public, private and restricted knowledge items, a
// public, private or restricted profile, any guardrails), the brand context that prompts are built from holds no
// private or restricted text and no guardrail, and holds every public item. Private texts carry a marker the
// public texts' alphabet cannot produce, so "not in the context" is a plain substring check over the whole JSON.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { brandContextOf, checkOutput, disclosureOf } from '../../domain/brand-profile/brand-context.js';
import {
  emptyBrandProfile,
  type BrandProfileState,
  type Disclosure,
  type KnowledgeItem,
} from '../../domain/brand-profile/brand-profile.js';
import { propertyRuns } from '../support/property-runs.js';

const marker = 'SECRET';
const publicText = fc.stringMatching(/^[a-z][a-z ]{0,24}$/);
const secretText = fc.stringMatching(/^[a-z ]{0,12}$/).map((s) => `${marker}${s}`);
const publicList = fc.array(publicText, { maxLength: 4 });
const disclosure = fc.constantFrom<Disclosure>('public', 'private', 'restricted');
const kinds = fc.constantFrom<KnowledgeItem['kind']>('claim', 'fact', 'opinion', 'preference', 'topic');

const profileArb = fc
  .record({
    profileDisclosure: disclosure,
    items: fc.array(
      fc.record({
        kind: kinds,
        own: fc.option(disclosure, { nil: undefined }),
        publicText,
        secretText,
        origin: fc.constantFrom('user', 'inferred', 'imported', 'learned' as const),
      }),
      { maxLength: 12 },
    ),
    guardrails: fc.array(
      fc.record({ text: secretText, disclosure: fc.constantFrom('private', 'restricted' as const) }),
      {
        maxLength: 5,
      },
    ),
    tagline: fc.option(publicText, { nil: null }),
    identity: fc.option(publicText, { nil: null }),
    topics: publicList,
    opinions: publicList,
    goals: publicList,
    tone: publicText,
    overview: publicText,
    signals: fc.array(fc.record({ signal: publicText, promoted: fc.boolean() }), { maxLength: 4 }),
    confirmed: fc.boolean(),
  })
  .map((g): BrandProfileState => {
    const knowledgeItems: KnowledgeItem[] = g.items.map((item, i) => {
      const effective = item.own ?? g.profileDisclosure;
      return {
        id: `k${i}`,
        kind: item.kind,
        // Whatever is not public carries the marker.
        text: effective === 'public' ? item.publicText : item.secretText,
        provenance: { origin: item.origin },
        ...(item.own ? { disclosure: item.own } : {}),
      };
    });
    return {
      ...emptyBrandProfile,
      exists: true,
      profileDisclosure: g.profileDisclosure,
      knowledgeItems,
      guardrails: g.guardrails.map((gr, i) => ({ id: `g${i}`, ...gr })),
      tagline: g.tagline,
      identity: g.identity,
      topics: g.topics,
      opinions: g.opinions,
      goals: g.goals,
      voice: { ...emptyBrandProfile.voice, tone: g.tone },
      businessOutline: { ...emptyBrandProfile.businessOutline, overview: g.overview },
      preferenceSignals: g.signals.map((s, i) => ({
        id: `s${i}`,
        kind: 'explicit' as const,
        lastSeenAt: '2026-01-01T00:00:00.000Z',
        ...s,
      })),
      confirmedAt: g.confirmed ? '2026-01-01T00:00:00.000Z' : null,
    };
  });

describe('brandContextOf', () => {
  test('no private or restricted text and no guardrail reaches the context; every public item does', () => {
    fc.assert(
      fc.property(profileArb, (profile) => {
        const context = brandContextOf({ ...profile, allSignals: profile.preferenceSignals }, null);
        expect(JSON.stringify(context)).not.toContain(marker);
        const publicItems = profile.knowledgeItems.filter((k) => disclosureOf(k, profile) === 'public');
        expect(context.knowledge).toEqual(publicItems.map((k) => ({ kind: k.kind, text: k.text })));
        expect(context.preferences).toEqual(
          profile.preferenceSignals.filter((s) => s.promoted).map((s) => s.signal),
        );
        expect(context.confirmed).toBe(profile.confirmedAt !== null);
      }),
      { numRuns: propertyRuns(2000) },
    );
  });

  test('a private item or a guardrail repeated in generated text is found by checkOutput', () => {
    fc.assert(
      fc.property(profileArb, publicText, (profile, filler) => {
        const hidden = [
          ...profile.guardrails.map((g) => ({ kind: 'guardrail', id: g.id, text: g.text })),
          ...profile.knowledgeItems
            .filter((k) => disclosureOf(k, profile) !== 'public')
            .map((k) => ({ kind: 'private_knowledge', id: k.id, text: k.text })),
        ];
        for (const item of hidden) {
          const findings = checkOutput(`${filler} ${item.text} ${filler}`, profile);
          expect(findings.some((f) => f.kind === item.kind && f.id === item.id)).toBe(true);
        }
      }),
      { numRuns: propertyRuns(500) },
    );
  });
});

describe('checkOutput', () => {
  const profile = {
    ...emptyBrandProfile,
    guardrails: [
      { id: 'g1', text: 'Never mention "Project Falcon" before launch', disclosure: 'restricted' as const },
      {
        id: 'g2',
        text: "Don't discuss our pricing negotiations with Globex",
        disclosure: 'private' as const,
      },
    ],
    knowledgeItems: [
      {
        id: 'k1',
        kind: 'fact' as const,
        text: 'Series B closes in March',
        provenance: { origin: 'user' as const },
        disclosure: 'private' as const,
      },
      { id: 'k2', kind: 'fact' as const, text: 'Founded in 2019', provenance: { origin: 'user' as const } },
    ],
  };
  test('quoted phrases, enough distinctive words; public items and unrelated text are not findings', () => {
    expect(checkOutput('Coming soon: project falcon!', profile)).toEqual([
      { kind: 'guardrail', id: 'g1', matched: ['project falcon'] },
    ]);
    expect(checkOutput('Our talks with Globex on pricing are going well', profile)).toEqual([
      { kind: 'guardrail', id: 'g2', matched: ['pricing', 'globex'] },
    ]);
    expect(checkOutput('Our Series B closes soon', profile)).toEqual([
      { kind: 'private_knowledge', id: 'k1', matched: ['series', 'closes'] },
    ]);
    expect(checkOutput('Founded in 2019, we launch a new falcon-free product', profile)).toEqual([]);
  });
});
