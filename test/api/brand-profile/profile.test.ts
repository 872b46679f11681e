// GET and PATCH ORG/brand/profile through the whole service: the empty profile of a new workspace, every field
// saved and read back, null clearing, nested voice and outline merged, ids given to new items, the kit's colours,
// fonts and logo shown (and refused as edits when they differ), one 400 detail per bad field with nothing
// recorded, confirmBrandContext, roles, an idempotent retry, and the brand context with nothing private in it.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { brandKitView, loadBrandKit } from '../../../commands/brand/brand-kit-commands.js';
import { createBrandContextReader } from '../../../commands/brand-profile/brand-context-reader.js';
import type { BrandContextReader } from '../../../domain/ai/brand-context.js';
import { eventCount, startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspace.js';
import type { ErrorBody } from '../brand/support.js';

let service: TestService;
/** The 'brand context' service as the slice builds it, over this service's store and read models. */
let contexts: BrandContextReader;

beforeAll(async () => {
  service = await startTestService();
  const commands = service.runtime.commands;
  contexts = createBrandContextReader({
    commands,
    readModels: service.runtime.readModels,
    kit: { get: async (orgId) => brandKitView((await loadBrandKit(commands, orgId)).state) },
  });
});
afterAll(async () => service.stop());

const profilePath = (ws: TestWorkspace) => `/v1/orgs/${ws.orgId}/brand/profile`;
type Profile = Record<string, unknown> & {
  meta: {
    schemaVersion: number;
    confirmedAt: string | null;
    lastInferredAt: string | null;
    lastRefreshedAt: string | null;
  };
  knowledgeItems: Array<{ id: string; text: string; provenance: { origin: string }; disclosure?: string }>;
  guardrails: Array<{ id: string; text: string; disclosure: string }>;
  preferenceSignals: Array<{ id: string; signal: string; kind: string }>;
  voice: { tone: string; personalityTraits: string[]; writingGuidelines: string[]; bannedPhrases: string[] };
};

async function getProfile(
  ws: TestWorkspace,
  role: keyof TestWorkspace['tokens'] = 'owner',
): Promise<Profile> {
  const res = await service.request('GET', profilePath(ws), { token: ws.tokens[role] });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Profile }).data;
}
const patch = (
  ws: TestWorkspace,
  body: unknown,
  role: keyof TestWorkspace['tokens'] = 'owner',
  headers?: Record<string, string>,
) =>
  service.request('PATCH', profilePath(ws), {
    token: ws.tokens[role],
    body,
    ...(headers ? { headers } : {}),
  });

describe('GET ORG/brand/profile', () => {
  test('a workspace without a profile answers the empty profile', async () => {
    const ws = await createTestWorkspace(service);
    expect(await getProfile(ws, 'viewer')).toEqual({
      websiteUrl: null,
      logoUrl: null,
      primaryFont: null,
      secondaryFont: null,
      colorPalette: [],
      tagline: null,
      mission: null,
      voice: { tone: '', personalityTraits: [], writingGuidelines: [], bannedPhrases: [] },
      businessOutline: {
        overview: '',
        productsOrServices: [],
        targetAudience: [],
        valueProposition: '',
        differentiators: [],
      },
      backgroundColor: null,
      logoAsset: null,
      kitUpdatedAt: null,
      brandType: 'unknown',
      identity: null,
      expertise: [],
      goals: [],
      topics: [],
      opinions: [],
      guardrails: [],
      knowledgeItems: [],
      preferenceSignals: [],
      profileDisclosure: 'public',
      meta: { schemaVersion: 1, confirmedAt: null, lastInferredAt: null, lastRefreshedAt: null },
    });
    // And no brand context: the service says "no profile yet" rather than an empty one.
    expect(await contexts.forOrg(ws.orgId)).toBeNull();
  });
});

describe('PATCH ORG/brand/profile', () => {
  test('every field saved and read back; ids given; nested objects merge; null clears', async () => {
    const ws = await createTestWorkspace(service);
    const res = await patch(ws, {
      websiteUrl: 'https://acme.example',
      tagline: '  Rockets that land  ',
      mission: 'Make spaceflight boring',
      voice: { tone: 'Dry and precise', personalityTraits: ['Precise'], bannedPhrases: ['game-changer'] },
      businessOutline: { overview: 'Reusable rockets', targetAudience: ['Satellite operators'] },
      brandType: 'business',
      identity: 'Acme Rockets',
      expertise: ['Propulsion'],
      goals: ['Win launch contracts'],
      topics: ['launches', 'reusability'],
      opinions: ['Reuse beats expendable'],
      guardrails: [{ text: 'Never mention Project Falcon', disclosure: 'restricted' }],
      knowledgeItems: [
        { kind: 'fact', text: 'Founded in 2019', disclosure: 'public' },
        {
          kind: 'fact',
          text: 'Series B closes in March',
          disclosure: 'private',
          durability: 'time_sensitive',
        },
      ],
      preferenceSignals: [{ signal: 'No puns', kind: 'explicit' }],
      profileDisclosure: 'public',
    });
    expect(res.status).toBe(200);
    const saved = ((await res.json()) as { data: Profile }).data;
    expect(saved).toMatchObject({
      websiteUrl: 'https://acme.example',
      tagline: 'Rockets that land',
      voice: {
        tone: 'Dry and precise',
        personalityTraits: ['Precise'],
        writingGuidelines: [],
        bannedPhrases: ['game-changer'],
      },
      businessOutline: {
        overview: 'Reusable rockets',
        targetAudience: ['Satellite operators'],
        productsOrServices: [],
      },
      brandType: 'business',
      topics: ['launches', 'reusability'],
      meta: { schemaVersion: 1, confirmedAt: null },
    });
    expect(saved.guardrails).toEqual([
      { id: expect.any(String), text: 'Never mention Project Falcon', disclosure: 'restricted' },
    ]);
    expect(saved.knowledgeItems.map((k) => [k.text, k.provenance.origin])).toEqual([
      ['Founded in 2019', 'user'],
      ['Series B closes in March', 'user'],
    ]);
    expect(new Set(saved.knowledgeItems.map((k) => k.id)).size).toBe(2);
    expect(saved.preferenceSignals).toEqual([
      { id: expect.any(String), signal: 'No puns', kind: 'explicit', lastSeenAt: expect.any(String) },
    ]);
    expect(await getProfile(ws, 'viewer')).toEqual(saved);

    // A partial voice keeps the rest; null clears; the ids sent back keep the items.
    const again = await patch(ws, {
      voice: { tone: 'Warm' },
      tagline: null,
      knowledgeItems: saved.knowledgeItems.slice(0, 1),
    });
    const after = ((await again.json()) as { data: Profile }).data;
    expect(after.voice).toEqual({ ...saved.voice, tone: 'Warm' });
    expect(after.tagline).toBeNull();
    expect(after.knowledgeItems).toEqual(saved.knowledgeItems.slice(0, 1));

    // The brand context leaves out the private item and the guardrail.
    const context = await contexts.forOrg(ws.orgId);
    expect(context).toMatchObject({
      name: 'Acme Rockets',
      websiteUrl: 'https://acme.example',
      confirmed: false,
    });
    expect(JSON.stringify(context)).not.toContain('Project Falcon');
    expect(context!.knowledge).toEqual([{ kind: 'fact', text: 'Founded in 2019' }]);
    // …and the guardrail acts on generated text after the fact.
    expect(await contexts.checkOutput!(ws.orgId, 'Big news about Project Falcon!')).toEqual([
      { kind: 'guardrail', id: saved.guardrails[0]!.id, matched: ['project', 'falcon'] },
    ]);
  });

  test('confirmBrandContext sets meta.confirmedAt; confirming again keeps it', async () => {
    const ws = await createTestWorkspace(service);
    const first = await patch(ws, { tagline: 'Hello', confirmBrandContext: true });
    const confirmedAt = ((await first.json()) as { data: Profile }).data.meta.confirmedAt;
    expect(confirmedAt).toEqual(expect.any(String));
    const before = await eventCount(service);
    const second = await patch(ws, { confirmBrandContext: true });
    expect(((await second.json()) as { data: Profile }).data.meta.confirmedAt).toBe(confirmedAt);
    expect(await eventCount(service)).toBe(before);
    expect((await contexts.forOrg(ws.orgId))?.confirmed).toBe(true);
  });

  test("onboarding's brand step: detected once a profile exists, done once it is confirmed", async () => {
    const ws = await createTestWorkspace(service);
    const onboarding = async () => {
      const res = await service.request('GET', `/v1/orgs/${ws.orgId}/onboarding`, {
        token: ws.tokens.viewer,
      });
      return (
        (await res.json()) as {
          data: {
            brandProfileDetected: boolean;
            brandConfirmed: boolean;
            steps: { key: string; completed: boolean }[];
          };
        }
      ).data;
    };
    const brandStep = (s: Awaited<ReturnType<typeof onboarding>>) =>
      s.steps.find((x) => x.key === 'brand')?.completed;
    expect(await onboarding()).toMatchObject({ brandProfileDetected: false, brandConfirmed: false });
    await patch(ws, { tagline: 'Hello' });
    const detected = await onboarding();
    expect(detected).toMatchObject({ brandProfileDetected: true, brandConfirmed: false });
    expect(brandStep(detected)).toBe(false);
    await patch(ws, { confirmBrandContext: true });
    const confirmed = await onboarding();
    expect(confirmed).toMatchObject({ brandProfileDetected: true, brandConfirmed: true });
    expect(brandStep(confirmed)).toBe(true);
  });

  test("the kit's colours, fonts and logo are the kit's: shown, and an edit that differs is refused", async () => {
    const ws = await createTestWorkspace(service);
    const kit = await service.request('PATCH', `/v1/orgs/${ws.orgId}/brand/kit`, {
      token: ws.tokens.owner,
      body: {
        colors: { primary: '#e4572e', accent: '#17a398', background: '#ffffff' },
        headingFont: 'Inter',
      },
    });
    expect(kit.status).toBe(200);
    const profile = await getProfile(ws);
    expect(profile).toMatchObject({
      colorPalette: ['#e4572e', '#17a398'],
      backgroundColor: '#ffffff',
      primaryFont: 'Inter',
      secondaryFont: null,
      logoUrl: null,
      kitUpdatedAt: expect.any(String),
    });
    // Sent back as read: accepted. Different: refused, naming the field, nothing recorded.
    expect((await patch(ws, { ...profile, mission: 'M' })).status).toBe(200);
    const before = await eventCount(service);
    const refused = await patch(ws, { primaryFont: 'Lora', colorPalette: ['#000000'] });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as ErrorBody;
    expect(body.details?.map((d) => d.path)).toEqual(['body.primaryFont', 'body.colorPalette']);
    expect(await eventCount(service)).toBe(before);
  });

  test('one detail per bad field, nothing recorded; types are 400 naming the field', async () => {
    const ws = await createTestWorkspace(service);
    const before = await eventCount(service);
    const res = await patch(ws, {
      websiteUrl: 'ftp://acme.example',
      tagline: 'x'.repeat(201),
      knowledgeItems: [
        { id: 'a', kind: 'fact', text: 'One' },
        { id: 'a', kind: 'fact', text: '   ' },
      ],
      preferenceSignals: [{ signal: 'Shorter', kind: 'edit' }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as ErrorBody;
    expect(body.details?.map((d) => d.path).sort()).toEqual(['body.preferenceSignals.0.kind']);
    const second = await patch(ws, {
      websiteUrl: 'ftp://acme.example',
      tagline: 'x'.repeat(201),
      knowledgeItems: [
        { id: 'a', kind: 'fact', text: 'One' },
        { id: 'a', kind: 'fact', text: '   ' },
      ],
    });
    expect(second.status).toBe(400);
    expect(((await second.json()) as ErrorBody).details?.map((d) => d.path).sort()).toEqual([
      'body.knowledgeItems.1.id',
      'body.knowledgeItems.1.text',
      'body.tagline',
      'body.websiteUrl',
    ]);
    const types = await patch(ws, { brandType: 'robot', guardrails: [{ text: 'x', disclosure: 'public' }] });
    expect(types.status).toBe(400);
    expect(((await types.json()) as ErrorBody).details?.map((d) => d.path).sort()).toEqual([
      'body.brandType',
      'body.guardrails.0.disclosure',
    ]);
    expect(await eventCount(service)).toBe(before);
  });

  test('roles: viewers and reviewers read but may not edit; an Idempotency-Key replays', async () => {
    const ws = await createTestWorkspace(service);
    expect((await patch(ws, { tagline: 'x' }, 'viewer')).status).toBe(403);
    expect((await patch(ws, { tagline: 'x' }, 'reviewer')).status).toBe(403);
    const key = { 'Idempotency-Key': 'profile-edit-1' };
    const first = await patch(
      ws,
      { guardrails: [{ text: 'No politics', disclosure: 'private' }] },
      'editor',
      key,
    );
    expect(first.status).toBe(200);
    const before = await eventCount(service);
    const replay = await patch(
      ws,
      { guardrails: [{ text: 'No politics', disclosure: 'private' }] },
      'editor',
      key,
    );
    expect(replay.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await replay.json()).toEqual(await first.json());
    expect(await eventCount(service)).toBe(before);
  });
});
