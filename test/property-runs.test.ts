// PROPERTY_RUNS (test/support/property-runs.ts): modest by default, the thorough count or a multiple of it when
// set, and a clear error for anything else.
import { describe, expect, test } from 'vitest';
import { propertyRunsSetting, runsFor } from './support/property-runs.js';

describe('PROPERTY_RUNS', () => {
  test('unset or modest: a fifth of the thorough count, at least 20, never more than the count', () => {
    for (const value of [undefined, '', 'modest', ' Modest ']) {
      const setting = propertyRunsSetting(value);
      expect(runsFor(1500, setting)).toBe(300);
      expect(runsFor(150, setting)).toBe(30);
      expect(runsFor(60, setting)).toBe(20);
      expect(runsFor(10, setting)).toBe(10);
    }
  });

  test("a property's own modest count replaces the default one, and never exceeds the thorough count", () => {
    expect(runsFor(300, propertyRunsSetting(undefined), 150)).toBe(150);
    expect(runsFor(100, propertyRunsSetting(undefined), 150)).toBe(100);
    expect(runsFor(300, propertyRunsSetting('thorough'), 150)).toBe(300);
  });

  test('thorough: the full count; a number: that multiple of it', () => {
    expect(runsFor(1500, propertyRunsSetting('thorough'))).toBe(1500);
    expect(runsFor(150, propertyRunsSetting('4'))).toBe(600);
    expect(runsFor(25, propertyRunsSetting('0.5'))).toBe(13);
    expect(runsFor(1, propertyRunsSetting('0.01'))).toBe(1);
  });

  test('anything else is an error naming the variable', () => {
    for (const value of ['lots', '0', '-2', 'NaN', 'Infinity'])
      expect(() => propertyRunsSetting(value), value).toThrow(
        /PROPERTY_RUNS must be "modest", "thorough" or a positive number/,
      );
    expect(() => runsFor(0, propertyRunsSetting(undefined))).toThrow(/thorough count is a positive integer/);
    expect(() => runsFor(10, propertyRunsSetting(undefined), 2.5)).toThrow(
      /modest count is a positive integer/,
    );
  });
});
