// Preference signals learned from real review flows through the whole service: rejections with a reason, a
// person's edits that shorten posts, approvals of short posts on a topic; each counted per occurrence, promoted at
// the third (promotionThreshold), shown on GET ORG/brand/profile right after the review (read-your-writes) and, once
// promoted, in the brand context. A reason that says nothing ('other') teaches nothing; a person's own signal with
// the same words stands for the learned one; learned signals sent back as read are accepted.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { brandKitView, loadBrandKit } from '../../../commands/brand/brand-kit-commands.js';
import { createBrandContextReader } from '../../../commands/brand-profile/brand-context-reader.js';
import type { BrandContextReader } from '../../../domain/ai/brand-context.js';
import { promotionThreshold } from '../../../domain/brand-profile/preference-signals.js';
import { startTestService, type TestService } from '../../support/runtime.js';
import { createTestWorkspace } from '../../support/workspace.js';
import { data, workspaceClient, type WorkspaceClient } from '../post-groups/support.js';

let service: TestService;
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

interface Signal {
  id: string;
  signal: string;
  kind: string;
  lastSeenAt: string;
  confidence?: string;
  occurrences?: number;
  promoted?: boolean;
}

async function signals(api: WorkspaceClient): Promise<Signal[]> {
  const res = await service.request('GET', `/v1/orgs/${api.ws.orgId}/brand/profile`, {
    token: api.ws.tokens.viewer,
  });
  return (await data<{ preferenceSignals: Signal[] }>(res)).preferenceSignals;
}
const find = (all: Signal[], signal: string) => all.find((s) => s.signal === signal);

const longText =
  'We shipped the new scheduler today, with smarter slots, fewer clicks and a calendar that finally shows every channel at once. Read on for what changed and why it matters.';

async function draft(api: WorkspaceClient, topic: string, text: string) {
  return api.draft({ title: 'Post', topic, posts: [{ platform: 'linkedin', contentText: text }] });
}

describe('preference signals learned from review', () => {
  test('rejections with a reason: counted, promoted at the threshold, then in the brand context', async () => {
    const api = workspaceClient(service, await createTestWorkspace(service));
    await service.request('PATCH', `/v1/orgs/${api.ws.orgId}/brand/profile`, {
      token: api.ws.tokens.owner,
      body: { tagline: 'Scheduling for busy teams' },
    });
    const signal = 'Prefers less promotional posts';
    for (let i = 1; i <= promotionThreshold; i++) {
      const drafted = await draft(api, 'launch', `Buy now ${i}!`);
      await api.reject(drafted.group.id, { reason: 'too_promotional', note: 'internal: margin is 12%' });
      const learned = find(await signals(api), signal);
      expect(learned).toMatchObject({
        kind: 'reject',
        occurrences: i,
        promoted: i >= promotionThreshold,
        confidence: i >= promotionThreshold ? 'medium' : 'low',
        lastSeenAt: expect.any(String),
      });
      const context = await contexts.forOrg(api.ws.orgId);
      expect(context!.preferences.includes(signal)).toBe(i >= promotionThreshold);
    }
    // A reviewer's note is never a signal.
    expect(JSON.stringify(await signals(api))).not.toContain('margin');
    // A reason that says nothing teaches nothing.
    const other = await draft(api, 'launch', 'Something else');
    await api.reject(other.group.id, { reason: 'other' });
    expect((await signals(api)).map((s) => s.kind)).toEqual(['reject']);
  });

  test("a person's edits that shorten posts, and approvals of short posts on a topic", async () => {
    const api = workspaceClient(service, await createTestWorkspace(service));
    for (let i = 0; i < promotionThreshold; i++) {
      const drafted = await draft(api, 'Product  Launch', longText);
      const postId = drafted.posts[0]!.id;
      const res = await api.call('PATCH', `/posts/${postId}`, {
        as: 'editor',
        body: { contentText: `Scheduler ${i} is live.` },
      });
      expect(res.status).toBe(200);
      await api.approve(drafted.group.id, { autoSchedule: false });
    }
    const all = await signals(api);
    expect(find(all, 'Prefers shorter posts')).toMatchObject({
      kind: 'edit',
      occurrences: 3,
      promoted: true,
    });
    expect(find(all, 'Approves short posts (up to 280 characters)')).toMatchObject({
      kind: 'approval',
      occurrences: 3,
      promoted: true,
    });
    expect(find(all, 'Approves posts about product launch')).toMatchObject({
      kind: 'approval',
      occurrences: 3,
    });
    expect(all.every((s) => s.kind !== 'reject')).toBe(true);

    // Sent back as read, learned signals are left to their count; a person's own signal with the same words
    // stands for the learned one.
    const res = await service.request('PATCH', `/v1/orgs/${api.ws.orgId}/brand/profile`, {
      token: api.ws.tokens.owner,
      body: {
        preferenceSignals: [
          ...all,
          {
            signal: 'Prefers shorter posts',
            kind: 'explicit',
            promoted: false,
            lastSeenAt: '2026-01-01T00:00:00Z',
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    const after = await signals(api);
    expect(after.filter((s) => s.signal === 'Prefers shorter posts')).toEqual([
      {
        id: expect.any(String),
        signal: 'Prefers shorter posts',
        kind: 'explicit',
        promoted: false,
        lastSeenAt: '2026-01-01T00:00:00Z',
      },
    ]);
    const context = await contexts.forOrg(api.ws.orgId);
    expect(context!.preferences).not.toContain('Prefers shorter posts');
    expect(context!.preferences).toContain('Approves short posts (up to 280 characters)');
  });
});
