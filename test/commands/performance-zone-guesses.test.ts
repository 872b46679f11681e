// ZoneGuesses (commands/performance): a read is made for the zone last seen and made again only when the read model
// answers another zone, so a summary never answers in a stale zone and needs no statement of its own for it.
import { expect, test } from 'vitest';
import { ZoneGuesses } from '../../commands/performance/performance-use-cases.js';

const now = new Date('2027-04-02T10:00:00.000Z');

test('first read in UTC, again in the zone answered; then that zone first; a change costs one more read', async () => {
  const guesses = new ZoneGuesses();
  let zone = 'Europe/Berlin';
  const asked: string[] = [];
  const read = async (w: { timezone: string; dates: string[] }) => {
    asked.push(w.timezone);
    return { zone, firstDate: w.dates[0] };
  };
  const first = await guesses.read('org', 7, now, read);
  expect(asked).toEqual(['UTC', 'Europe/Berlin']);
  expect(first.window.timezone).toBe('Europe/Berlin');
  expect(first.result).toEqual({ zone: 'Europe/Berlin', firstDate: '2027-03-27' });

  asked.length = 0;
  await guesses.read('org', 7, now, read);
  expect(asked).toEqual(['Europe/Berlin']);

  zone = 'Pacific/Kiritimati';
  asked.length = 0;
  const changed = await guesses.read('org', 7, now, read);
  expect(asked).toEqual(['Europe/Berlin', 'Pacific/Kiritimati']);
  // 10:00 UTC is already midnight past in Kiritimati (UTC+14): its today is the 3rd.
  expect(changed.window.dates.at(-1)).toBe('2027-04-03');
});

test('a zone that keeps changing ends after three reads; workspaces are remembered apart, the oldest forgotten', async () => {
  const guesses = new ZoneGuesses(1);
  const zones = ['Europe/Berlin', 'Asia/Tokyo', 'America/New_York', 'UTC'];
  let n = 0;
  const flapping = async () => ({ zone: zones[n++ % zones.length]! });
  await guesses.read('a', 1, now, flapping);
  expect(n).toBe(3);
  const asked: string[] = [];
  await guesses.read('b', 1, now, async (w) => (asked.push(w.timezone), { zone: 'UTC' }));
  // 'a' was forgotten when 'b' came (one entry kept): it starts from UTC again.
  await guesses.read('a', 1, now, async (w) => (asked.push(w.timezone), { zone: 'UTC' }));
  expect(asked).toEqual(['UTC', 'UTC']);
});
