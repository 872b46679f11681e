// The slot finder's in-process parts (projections/scheduling/busy-times.ts): a snapshot read from the finder's
// text, its times by platform and window without the posts being placed, this instance's claims added in order
// once; the bounded map of snapshots; one finder at a time per workspace.
import { describe, expect, test } from 'vitest';
import { PerKeyQueue } from '../../infra/async/per-key-queue.js';
import { busyAtOf, BusySnapshot, Lru } from '../../projections/scheduling/busy-times.js';

const t = (iso: string) => Date.parse(iso);

describe('BusySnapshot', () => {
  const text = [
    `x p1 ${t('2026-12-01T10:00:00Z')}`,
    `linkedin p2 ${t('2026-12-01T09:00:00Z')}`,
    `x p3 ${t('2026-12-01T08:00:00Z')}`,
    `x p4 ${t('2026-12-03T08:00:00Z')}`,
  ].join(',');

  test('reads the entries by platform in time order, and gives the times of a window without the posts placed', () => {
    const snapshot = BusySnapshot.parse('1:-:1', text, 0, t('2027-01-01'));
    expect(snapshot.times('x', t('2026-12-01'), t('2026-12-02'), new Set())).toEqual([
      t('2026-12-01T08:00:00Z'),
      t('2026-12-01T10:00:00Z'),
    ]);
    expect(snapshot.times('x', t('2026-12-01'), t('2026-12-31'), new Set(['p1']))).toEqual([
      t('2026-12-01T08:00:00Z'),
      t('2026-12-03T08:00:00Z'),
    ]);
    expect(snapshot.times('linkedin', 0, t('2027-01-01'), new Set())).toEqual([t('2026-12-01T09:00:00Z')]);
    expect(snapshot.times('threads', 0, t('2027-01-01'), new Set())).toEqual([]);
    expect(BusySnapshot.parse('1:-:1', '', 0, 1).times('x', 0, 1, new Set())).toEqual([]);
  });

  test('takes its own claims in time order, once, at the version they moved it to', () => {
    const snapshot = BusySnapshot.parse('1:-:1', text, 0, t('2027-01-01'));
    const claims = [
      { platform: 'x', postId: 'p5', at: '2026-12-01T09:00:00.000Z' },
      { platform: 'threads', postId: 'p6', at: '2026-12-02T09:00:00.000Z' },
    ];
    snapshot.claimed('2:-:1', claims);
    snapshot.claimed('3:-:1', claims.slice(0, 1));
    expect(snapshot.key).toBe('3:-:1');
    expect(snapshot.times('x', t('2026-12-01'), t('2026-12-02'), new Set())).toEqual([
      t('2026-12-01T08:00:00Z'),
      t('2026-12-01T09:00:00Z'),
      t('2026-12-01T10:00:00Z'),
    ]);
    expect(snapshot.times('threads', 0, t('2027-01-01'), new Set())).toEqual([t('2026-12-02T09:00:00Z')]);
  });

  test('a post keeps a time busy while scheduled or being published', () => {
    const at = '2026-12-01T10:00:00.000Z';
    expect(busyAtOf({ status: 'scheduled', scheduledForUtc: at })).toBe(at);
    expect(busyAtOf({ status: 'publishing', scheduledForUtc: at })).toBe(at);
    for (const status of ['approved', 'published', 'failed', 'canceled', 'pending_approval'])
      expect(busyAtOf({ status, scheduledForUtc: at })).toBeNull();
  });
});

describe('Lru', () => {
  test('drops the least recently used past its bound', () => {
    const lru = new Lru<number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 3]);
    lru.delete('a');
    expect(lru.get('a')).toBeUndefined();
  });
});

describe('PerKeyQueue', () => {
  test('runs one at a time per key, in order, going on after a failure; other keys do not wait', async () => {
    const queue = new PerKeyQueue();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = queue.run('a', async () => {
      log.push('a1 start');
      await gate;
      log.push('a1 end');
      throw new Error('a1 failed');
    });
    const second = queue.run('a', async () => {
      log.push('a2');
      return 2;
    });
    const other = queue.run('b', async () => {
      log.push('b1');
      return 'b';
    });
    await expect(other).resolves.toBe('b');
    expect(log).toEqual(['a1 start', 'b1']);
    release();
    await expect(first).rejects.toThrow('a1 failed');
    await expect(second).resolves.toBe(2);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });
});
