// The brand kit decider, rule by rule: an edit records the new values of the fields it changes, an edit that
// changes nothing records nothing, null clears, `ifUpdatedAt` refuses a stale edit (409 stale_brand_kit), stored
// forms are insisted on; and the kit view's `missing`.
import { describe, expect, test } from 'vitest';
import { brandKitView } from '../../commands/brand/brand-kit-commands.js';
import {
  brandKitDecider,
  emptyBrandKit,
  type BrandKitChanges,
  type BrandKitCommand,
  type BrandKitEvent,
} from '../../domain/brand/brand-kit.js';
import { fold } from '../../domain/shared/decider.js';
import { Conflict, InvalidFields } from '../../domain/shared/errors.js';
import { deciderSpec } from '../support/decider-spec.js';

const orgId = '00000000-0000-4000-8000-000000000001';
const by = '00000000-0000-4000-8000-0000000000b1';
const t1 = '2026-11-22T10:00:00.000Z';
const t2 = '2026-11-22T11:00:00.000Z';

const updated = (changes: BrandKitChanges, at = t1): BrandKitEvent => ({
  type: 'BrandKitUpdated',
  data: { orgId, changes, by, at },
});
const update = (changes: BrandKitChanges, extra: Partial<BrandKitCommand> = {}): BrandKitCommand => ({
  type: 'UpdateBrandKit',
  orgId,
  changes,
  by,
  now: t2,
  ...extra,
});
const logo = {
  assetId: '00000000-0000-4000-8000-0000000000c1',
  url: 'http://localhost:3000/v1/assets/x.png',
  sourceUrl: 'https://example.com/logo.png',
  width: 400,
  height: 200,
  contentType: 'image/png',
};

const spec = deciderSpec(brandKitDecider);

describe('update', () => {
  test('the first edit records the changed fields only', () => {
    spec
      .given([])
      .when(update({ colors: { primary: '#1a73e8' }, headingFont: 'Inter', tagline: 'Hello' }))
      .then([updated({ colors: { primary: '#1a73e8' }, headingFont: 'Inter', tagline: 'Hello' }, t2)]);
  });

  test('fields already holding the value are left out of the event', () => {
    spec
      .given([updated({ colors: { primary: '#1a73e8', accent: '#ff8800' }, website: 'https://a.example/' })])
      .when(update({ colors: { primary: '#1a73e8', accent: '#00ff00' }, website: 'https://a.example/' }))
      .then([updated({ colors: { accent: '#00ff00' } }, t2)]);
  });

  test('null clears a field; the state folds every edit and takes updatedAt from the last', () => {
    spec
      .given([updated({ colors: { primary: '#1a73e8' }, logo, tagline: 'Hi' })])
      .when(update({ logo: null, tagline: null }))
      .thenState((state) => {
        expect(state.logo).toBeNull();
        expect(state.tagline).toBeNull();
        expect(state.colors.primary).toBe('#1a73e8');
        expect(state.updatedAt).toBe(t2);
      });
  });

  test('a different logo (another asset) is a change; the same logo is not', () => {
    spec
      .given([updated({ logo })])
      .when(update({ logo: { ...logo } }))
      .then([]);
    spec
      .given([updated({ logo })])
      .when(update({ logo: { ...logo, assetId: '00000000-0000-4000-8000-0000000000c2' } }))
      .then([updated({ logo: { ...logo, assetId: '00000000-0000-4000-8000-0000000000c2' } }, t2)]);
  });

  test('an edit that changes nothing records nothing (also on a never-edited kit)', () => {
    spec.given([]).when(update({})).then([]);
    spec
      .given([])
      .when(update({ colors: { primary: null }, logo: null, bodyFont: null }))
      .then([]);
    spec
      .given([updated({ headingFont: 'Inter' })])
      .when(update({ headingFont: 'Inter' }))
      .then([]);
  });

  test('stored forms are insisted on: a colour not #rrggbb, a tagline over 200 characters', () => {
    spec
      .given([])
      .when(update({ colors: { primary: 'red' } }))
      .thenThrows(InvalidFields, /Invalid brand kit/);
    spec
      .given([])
      .when(update({ tagline: 'x'.repeat(201) }))
      .thenThrows(InvalidFields);
  });
});

describe('ifUpdatedAt', () => {
  test('matching the current updatedAt (any spelling of the instant) lets the edit through', () => {
    spec
      .given([updated({ tagline: 'A' })])
      .when(update({ tagline: 'B' }, { ifUpdatedAt: t1 }))
      .then([updated({ tagline: 'B' }, t2)]);
    spec
      .given([updated({ tagline: 'A' })])
      .when(update({ tagline: 'B' }, { ifUpdatedAt: '2026-11-22T10:00:00Z' }))
      .then([updated({ tagline: 'B' }, t2)]);
  });

  test('an older updatedAt is refused with 409 stale_brand_kit naming the current one', () => {
    const given = spec.given([updated({ tagline: 'A' }), updated({ tagline: 'B' }, t2)]);
    given.when(update({ tagline: 'C' }, { ifUpdatedAt: t1 })).thenThrows(Conflict, new RegExp(t2));
    try {
      brandKitDecider.decide(
        update({ tagline: 'C' }, { ifUpdatedAt: t1 }),
        fold(brandKitDecider, [updated({ tagline: 'A' }), updated({ tagline: 'B' }, t2)]),
      );
      expect.unreachable();
    } catch (error) {
      expect((error as Conflict).code).toBe('stale_brand_kit');
      expect((error as Conflict).status).toBe(409);
    }
  });

  test('a stale edit is refused even when it would change nothing', () => {
    spec
      .given([updated({ tagline: 'A' }, t2)])
      .when(update({ tagline: 'A' }, { ifUpdatedAt: t1 }))
      .thenThrows(Conflict, /last updated at/);
  });

  test('a kit never edited: null matches, any time is stale', () => {
    spec
      .given([])
      .when(update({ tagline: 'A' }, { ifUpdatedAt: null }))
      .then([updated({ tagline: 'A' }, t2)]);
    spec
      .given([])
      .when(update({ tagline: 'A' }, { ifUpdatedAt: t1 }))
      .thenThrows(Conflict, /never been edited/);
  });

  test('null on an edited kit is stale', () => {
    spec
      .given([updated({ tagline: 'A' })])
      .when(update({ tagline: 'B' }, { ifUpdatedAt: null }))
      .thenThrows(Conflict, /stale|changed since/);
  });
});

describe('view', () => {
  test('the empty kit misses every part; set parts leave the list', () => {
    expect(brandKitView(emptyBrandKit).missing).toEqual([
      'colors.primary',
      'colors.secondary',
      'colors.accent',
      'colors.background',
      'headingFont',
      'bodyFont',
      'logo',
      'tagline',
      'website',
    ]);
    const state = fold(brandKitDecider, [
      updated({ colors: { primary: '#000000', background: '#ffffff' }, logo, bodyFont: 'Lato' }),
    ]);
    expect(brandKitView(state)).toMatchObject({
      colors: { primary: '#000000', secondary: null, accent: null, background: '#ffffff' },
      logo,
      bodyFont: 'Lato',
      updatedAt: t1,
      missing: ['colors.secondary', 'colors.accent', 'headingFont', 'tagline', 'website'],
    });
  });

  test('events round-trip through the codec', () => {
    const event = updated({ colors: { primary: '#1a73e8', accent: null }, logo, website: null });
    const decoded = brandKitDecider.codec.decode({
      type: event.type,
      data: JSON.parse(JSON.stringify(event.data)),
      metadata: { schemaVersion: 1 },
    } as never);
    expect(decoded).toEqual(event);
  });
});
