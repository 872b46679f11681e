// The brand profile decider, rule by rule: an edit records the fields it changes (nothing for none), every bad
// field refused at once, a confirmation (once), and an inference that never overwrites what a person set, replaces
// only its own unconfirmed items, and leaves a profile it changed unconfirmed.
import { describe, expect, test } from 'vitest';
import { fold } from '../../domain/shared/decider.js';
import { InvalidFields } from '../../domain/shared/errors.js';
import {
  brandProfileDecider,
  type BrandProfileCommand,
  type BrandProfileEvent,
  type KnowledgeItem,
} from '../../domain/brand-profile/brand-profile.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const now = '2026-11-22T10:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';
const spec = deciderSpec(brandProfileDecider);

const edit = (
  changes: Extract<BrandProfileCommand, { type: 'EditBrandProfile' }>['changes'],
  confirm = false,
): BrandProfileCommand => ({
  type: 'EditBrandProfile',
  orgId,
  changes,
  confirm,
  by: 'u1',
  now,
});
const edited = (
  changes: Extract<BrandProfileEvent, { type: 'BrandProfileEdited' }>['data']['changes'],
  at = now,
): BrandProfileEvent => ({
  type: 'BrandProfileEdited',
  data: { orgId, changes, by: 'u1', at },
});
const confirmed = (at = now): BrandProfileEvent => ({
  type: 'BrandProfileConfirmed',
  data: { orgId, by: 'u1', at },
});
const item = (
  id: string,
  text: string,
  origin: KnowledgeItem['provenance']['origin'],
  extra: Partial<KnowledgeItem> = {},
): KnowledgeItem => ({
  id,
  kind: 'fact',
  text,
  provenance: { origin },
  ...extra,
});
const infer = (
  inferred: Extract<BrandProfileCommand, { type: 'InferBrandProfile' }>['inferred'],
): BrandProfileCommand => ({
  type: 'InferBrandProfile',
  orgId,
  inferred,
  websiteUrl: 'https://acme.example/',
  source: 'heuristic',
  providerModel: 'offline',
  runId: 'run-1',
  pages: ['https://acme.example/'],
  by: 'u1',
  now: later,
});

describe('edit', () => {
  test('records the fields it changes; the same edit again records nothing', () => {
    spec
      .given([])
      .when(edit({ tagline: 'Hi', topics: ['a'] }))
      .then([edited({ tagline: 'Hi', topics: ['a'] })]);
    spec
      .given([edited({ tagline: 'Hi', topics: ['a'] })])
      .when(edit({ tagline: 'Hi', topics: ['a'] }))
      .then([]);
    spec
      .given([edited({ tagline: 'Hi' })])
      .when(edit({ tagline: null }))
      .then([edited({ tagline: null })]);
  });

  test('every bad field at once, named in the profile’s terms', () => {
    expect(() =>
      brandProfileDecider.decide(
        edit({
          websiteUrl: 'javascript:alert(1)',
          tagline: 'x'.repeat(201),
          guardrails: [
            { id: 'g', text: 'a', disclosure: 'private' },
            { id: 'g', text: ' ', disclosure: 'private' },
          ],
        }),
        brandProfileDecider.initialState,
      ),
    ).toThrow(InvalidFields);
    const refusal = (() => {
      try {
        brandProfileDecider.decide(
          edit({
            websiteUrl: 'javascript:alert(1)',
            tagline: 'x'.repeat(201),
            topics: Array<string>(51).fill('t'),
          }),
          brandProfileDecider.initialState,
        );
      } catch (error) {
        return error as InvalidFields;
      }
      throw new Error('not refused');
    })();
    expect(refusal.details?.map((d) => d.path)).toEqual(['websiteUrl', 'tagline', 'topics']);
  });

  test('confirming records a confirmation once; a later edit keeps it', () => {
    spec.given([]).when(edit({}, true)).then([confirmed()]);
    spec.given([confirmed()]).when(edit({}, true)).then([]);
    spec
      .given([confirmed()])
      .when(edit({ mission: 'M' }))
      .thenState((state) => expect(state.confirmedAt).toBe(now));
  });
});

describe('infer', () => {
  test('never overwrites a field a person set; replaces only unconfirmed inferred items; unconfirms what it changed', () => {
    const history = [
      edited({
        tagline: 'Our words',
        knowledgeItems: [
          item('u', 'We never sell data', 'user'),
          item('i1', 'Old inferred fact', 'inferred', { confirmed: false }),
          item('i2', 'Confirmed inferred fact', 'inferred', { confirmed: true }),
        ],
      }),
      confirmed(),
    ];
    const events = brandProfileDecider.decide(
      infer({
        tagline: 'Their words',
        identity: 'Acme',
        knowledgeItems: [item('n', 'New fact', 'inferred')],
      }),
      fold(brandProfileDecider, history),
    );
    expect(events).toHaveLength(1);
    const event = events[0]!;
    if (event.type !== 'BrandProfileInferred') throw new Error(event.type);
    expect(event.data.changes.tagline).toBeUndefined();
    expect(event.data.changes.identity).toBe('Acme');
    expect(event.data.changes.knowledgeItems?.map((k) => k.id)).toEqual(['u', 'i2', 'n']);
    const state = fold(brandProfileDecider, [...history, event]);
    expect(state).toMatchObject({
      tagline: 'Our words',
      identity: 'Acme',
      confirmedAt: null,
      lastInferredAt: later,
    });
  });

  test('an inference that changes nothing keeps the confirmation and records when it ran', () => {
    const history = [edited({ identity: 'Acme' }), confirmed()];
    const events = brandProfileDecider.decide(
      infer({ identity: 'Acme', knowledgeItems: [] }),
      fold(brandProfileDecider, history),
    );
    expect(events.map((e) => e.type)).toEqual(['BrandProfileInferred']);
    expect(fold(brandProfileDecider, [...history, ...events])).toMatchObject({
      confirmedAt: now,
      lastInferredAt: later,
    });
  });
});
