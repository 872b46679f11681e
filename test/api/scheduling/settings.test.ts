// ORG/marketing/scheduler/settings and ORG/timezone through the whole service: defaults per audience type,
// omitted fields stay, resetPostingWindows, the owner/admin rule, the 400 battery (nothing appended), the
// audit trail on the scheduling stream, read-your-writes and Idempotency-Key replays.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { audienceDefaults } from '../../../domain/scheduling/defaults.js';
import { roles } from '../../../domain/workspaces/roles.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => service.stop());

interface Profile {
  timezone: string;
  timezoneIsSet: boolean;
  audienceTimezone: string | null;
  effectiveTimezone: string;
  audienceType: string;
  includeWeekends: boolean;
  postingWindows: Record<string, Array<{ days: number[]; start: string; end: string; weight: number }>>;
  customPostingWindows: string[];
  blackoutDates: string[];
  minGapMinutes: number;
  maxPostsPerDay: number;
  ownerAvailability: unknown[];
}
interface ErrorBody {
  error: string;
  details?: Array<{ path: string; message: string }>;
}

const settingsPath = (ws: TestWorkspace) => `${ws.base}/scheduler/settings`;
const timezonePath = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}/timezone`;

async function call<T>(
  ws: TestWorkspace,
  method: string,
  path: string,
  body?: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await service.request(method, path, { token: ws.tokens[role], body, headers });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

const getSettings = async (ws: TestWorkspace) =>
  (await call<{ data: Profile }>(ws, 'GET', settingsPath(ws))).body.data;

const patchSettings = async (ws: TestWorkspace, body: unknown, role: 'owner' | 'admin' = 'owner') => {
  const res = await call<{ data: Profile }>(ws, 'PATCH', settingsPath(ws), body, role);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

describe('GET …/scheduler/settings', () => {
  test('a new workspace reports the b2b defaults in UTC, nothing set', async () => {
    const ws = await createTestWorkspace(service);
    const b2b = audienceDefaults('b2b');
    expect(await getSettings(ws)).toEqual({
      timezone: 'UTC',
      timezoneIsSet: false,
      audienceTimezone: null,
      effectiveTimezone: 'UTC',
      audienceType: 'b2b',
      includeWeekends: b2b.includeWeekends,
      postingWindows: b2b.postingWindows,
      customPostingWindows: [],
      blackoutDates: [],
      minGapMinutes: b2b.minGapMinutes,
      maxPostsPerDay: b2b.maxPostsPerDay,
      ownerAvailability: [],
    });
  });

  test('every role of the workspace may read it; another workspace may not', async () => {
    const ws = await createTestWorkspace(service);
    const other = await createTestWorkspace(service);
    for (const role of roles)
      expect((await call(ws, 'GET', settingsPath(ws), undefined, role)).status).toBe(200);
    const res = await service.request('GET', settingsPath(ws), { token: other.tokens.owner });
    expect(res.status).toBe(403);
  });
});

describe('PATCH …/scheduler/settings', () => {
  test('audienceType switches every unset field to its defaults; set fields stay; omitted fields stay', async () => {
    const ws = await createTestWorkspace(service);
    await patchSettings(ws, { minGapMinutes: 90 });
    const b2c = audienceDefaults('b2c');
    const profile = await patchSettings(ws, { audienceType: 'b2c' });
    expect(profile).toMatchObject({
      audienceType: 'b2c',
      includeWeekends: b2c.includeWeekends,
      postingWindows: b2c.postingWindows,
      maxPostsPerDay: b2c.maxPostsPerDay,
      minGapMinutes: 90,
    });
    // Read-your-writes: the GET right after shows it.
    expect(await getSettings(ws)).toEqual(profile);
  });

  test('custom windows for one platform, then resetPostingWindows restores its defaults', async () => {
    const ws = await createTestWorkspace(service);
    const windows = [
      { days: [2, 4], start: '07:30', end: '09:00', weight: 2 },
      { days: [1], start: '12:00', end: '13:00' },
    ];
    const custom = await patchSettings(ws, { postingWindows: { linkedin: windows } });
    expect(custom.postingWindows.linkedin).toEqual([windows[0], { ...windows[1], weight: 1 }]);
    expect(custom.customPostingWindows).toEqual(['linkedin']);
    expect(custom.postingWindows.x).toEqual(audienceDefaults('b2b').postingWindows.x);
    const reset = await patchSettings(ws, { resetPostingWindows: ['linkedin'] });
    expect(reset.customPostingWindows).toEqual([]);
    expect(reset.postingWindows.linkedin).toEqual(audienceDefaults('b2b').postingWindows.linkedin);
  });

  test('time zones: the workspace one (body `timezone`), the audience one, and which is effective', async () => {
    const ws = await createTestWorkspace(service);
    let profile = await patchSettings(ws, { timezone: 'Europe/Berlin' }, 'admin');
    expect(profile).toMatchObject({
      timezone: 'Europe/Berlin',
      timezoneIsSet: true,
      effectiveTimezone: 'Europe/Berlin',
    });
    profile = await patchSettings(ws, { audienceTimezone: 'America/New_York' });
    expect(profile).toMatchObject({
      audienceTimezone: 'America/New_York',
      effectiveTimezone: 'America/New_York',
    });
    profile = await patchSettings(ws, { audienceTimezone: null });
    expect(profile).toMatchObject({ audienceTimezone: null, effectiveTimezone: 'Europe/Berlin' });
    const tz = await call<{ data: unknown }>(ws, 'GET', timezonePath(ws));
    expect(tz.body.data).toEqual({ timezone: 'Europe/Berlin', isSet: true });
  });

  test('blackout dates, gaps, caps and owner availability are kept as given (dates sorted, no repeats)', async () => {
    const ws = await createTestWorkspace(service);
    const profile = await patchSettings(ws, {
      blackoutDates: ['2026-12-26', '2026-12-24', '2026-12-26'],
      minGapMinutes: 120,
      maxPostsPerDay: 2,
      ownerAvailability: [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '18:00' }],
      includeWeekends: true,
    });
    expect(profile).toMatchObject({
      blackoutDates: ['2026-12-24', '2026-12-26'],
      minGapMinutes: 120,
      maxPostsPerDay: 2,
      includeWeekends: true,
      ownerAvailability: [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '18:00' }],
    });
    // null returns includeWeekends to the default.
    expect((await patchSettings(ws, { includeWeekends: null })).includeWeekends).toBe(
      audienceDefaults('b2b').includeWeekends,
    );
  });

  test('owners and admins only: reviewer, editor and viewer get 403 and nothing is appended', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    for (const role of ['reviewer', 'editor', 'viewer'] as const) {
      expect((await call(ws, 'PATCH', settingsPath(ws), { minGapMinutes: 10 }, role)).status).toBe(403);
      expect((await call(ws, 'PATCH', timezonePath(ws), { timezone: 'Europe/Paris' }, role)).status).toBe(
        403,
      );
    }
    expect(await eventCount(service)).toBe(before);
    expect((await getSettings(ws)).minGapMinutes).toBe(audienceDefaults('b2b').minGapMinutes);
  });

  test.each([
    [
      'a window starting after it ends',
      { postingWindows: { x: [{ days: [1], start: '10:00', end: '09:00' }] } },
      'postingWindows.x.0',
    ],
    [
      'a weekday outside 0–6',
      { postingWindows: { x: [{ days: [7], start: '09:00', end: '10:00' }] } },
      'postingWindows.x.0.days',
    ],
    [
      'a weight below zero',
      { postingWindows: { tiktok: [{ days: [1], start: '09:00', end: '10:00', weight: -1 }] } },
      'postingWindows.tiktok.0.weight',
    ],
    [
      'a time that is not HH:MM',
      { postingWindows: { x: [{ days: [1], start: '9am', end: '10:00' }] } },
      'postingWindows.x.0.start',
    ],
    ['an unknown platform', { postingWindows: { myspace: [] } }, 'postingWindows'],
    ['a bad time zone', { timezone: 'Mars/Olympus' }, 'timezone'],
    ['an offset instead of a zone name', { audienceTimezone: '+02:00' }, 'audienceTimezone'],
    ['a date that does not exist', { blackoutDates: ['2026-02-30'] }, 'blackoutDates.0'],
    ['a negative gap', { minGapMinutes: -5 }, 'minGapMinutes'],
    ['a zero daily cap', { maxPostsPerDay: 0 }, 'maxPostsPerDay'],
    ['an unknown audience type', { audienceType: 'b2g' }, 'audienceType'],
    ['an unknown field', { postingWindow: {} }, ''],
    ['reset of an unknown platform', { resetPostingWindows: ['facebook'] }, 'resetPostingWindows.0'],
    [
      'availability ending before it starts',
      { ownerAvailability: [{ days: [1], start: '18:00', end: '08:00' }] },
      'ownerAvailability.0',
    ],
  ])('400 for %s, naming the field; nothing appended', async (_name, body, path) => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const res = await call<ErrorBody>(ws, 'PATCH', settingsPath(ws), body);
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual(expect.any(String));
    expect(
      res.body.details?.some((d) => d.path.includes(path)),
      JSON.stringify(res.body),
    ).toBe(true);
    expect(await eventCount(service)).toBe(before);
  });

  test('every change is an event on the scheduling stream naming who changed what, and when', async () => {
    const ws = await createTestWorkspace(service);
    await patchSettings(ws, { maxPostsPerDay: 3 }, 'admin');
    await patchSettings(ws, { maxPostsPerDay: 3 }); // no change: nothing appended
    const events = await service.runtime.eventStore.readStream(`scheduling-${ws.orgId}`);
    expect(events.map((e) => e.type)).toEqual(['SchedulingSettingsChanged']);
    expect(events[0]!.data).toMatchObject({
      orgId: ws.orgId,
      changes: { maxPostsPerDay: 3 },
      by: ws.userIds.admin,
      at: expect.any(String),
    });
  });

  test('an Idempotency-Key replays the first answer', async () => {
    const ws = await createTestWorkspace(service);
    const headers = { 'idempotency-key': 'settings-1' };
    const first = await call<{ data: Profile }>(
      ws,
      'PATCH',
      settingsPath(ws),
      { minGapMinutes: 45 },
      'owner',
      headers,
    );
    await patchSettings(ws, { minGapMinutes: 60 });
    const again = await call<{ data: Profile }>(
      ws,
      'PATCH',
      settingsPath(ws),
      { minGapMinutes: 45 },
      'owner',
      headers,
    );
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('GET and PATCH ORG/timezone', () => {
  test('UTC and isSet false until set; then the canonical IANA name', async () => {
    const ws = await createTestWorkspace(service);
    expect(
      (await call<{ data: unknown }>(ws, 'GET', timezonePath(ws), undefined, 'viewer')).body.data,
    ).toEqual({
      timezone: 'UTC',
      isSet: false,
    });
    const set = await call<{ data: unknown }>(ws, 'PATCH', timezonePath(ws), { timezone: 'Asia/Kolkata' });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ timezone: 'Asia/Kolkata', isSet: true });
    expect((await getSettings(ws)).effectiveTimezone).toBe('Asia/Kolkata');
  });

  test.each([['Not/AZone'], ['+01:00'], ['UTC+1'], [''], [42]])(
    '400 for %j; nothing appended',
    async (timezone) => {
      const ws = await createTestWorkspace(service);
      const before = await eventCount(service);
      const res = await call<ErrorBody>(ws, 'PATCH', timezonePath(ws), { timezone });
      expect(res.status).toBe(400);
      expect(res.body.details?.[0]?.path).toContain('timezone');
      expect(await eventCount(service)).toBe(before);
    },
  );

  test('400 without a timezone', async () => {
    const ws = await createTestWorkspace(service);
    expect((await call(ws, 'PATCH', timezonePath(ws), {})).status).toBe(400);
  });
});
