// The engagement.dm_draft job's offline writer and prompt: a reply to their last message (a question answered as
// one), a follow-up nudge when I wrote last, an opener without messages; always valid output (the job's schema),
// deterministic; the prompt carries the brand voice, the person, notes, guidance and the recent messages.
import { describe, expect, test } from 'vitest';
import {
  dmDraftJob,
  dmDraftModeOf,
  writeDmDraftOffline,
  type DmDraftInput,
} from '../../domain/engagement/dm-draft-job.js';
import { b2bSaasBrand } from '../fixtures/brand-contexts.js';

const base: DmDraftInput = {
  workspaceName: 'Acme',
  brand: b2bSaasBrand,
  handle: 'alex_dev',
  notes: 'Met at SaaStr; runs a 5-person agency',
  guidance: null,
  messages: [],
};
const at = '2026-11-20T10:00:00.000Z';

describe('the offline writer', () => {
  test('answers their last message; a question is taken up as one', () => {
    const input = {
      ...base,
      messages: [{ from: 'them' as const, text: 'How do you handle approvals?', at }],
    };
    expect(dmDraftModeOf(input.messages)).toBe('reply');
    const out = writeDmDraftOffline(input);
    expect(out.draftText).toMatch(/^Thanks for reaching out, alex_dev!/);
    expect(out.draftText).toContain('"How do you handle approvals?"');
    expect(out.draftReason).toMatch(/Replies to their last message of 2026-11-20 \(a question\)/);
    expect(dmDraftJob.output.safeParse(out).success).toBe(true);
    expect(writeDmDraftOffline(input)).toEqual(out);
  });

  test('thanks them for getting back when I wrote before', () => {
    const out = writeDmDraftOffline({
      ...base,
      messages: [
        { from: 'me', text: 'Loved your thread on pricing', at },
        { from: 'them', text: 'Thanks, appreciate it!', at },
      ],
    });
    expect(out.draftText).toMatch(/^Thanks for getting back to me, alex_dev! Really glad/);
  });

  test('nudges when I wrote last, naming my message and its date', () => {
    const input = { ...base, messages: [{ from: 'me' as const, text: 'Would a demo help?', at }] };
    expect(dmDraftModeOf(input.messages)).toBe('follow_up');
    const out = writeDmDraftOffline({ ...input, guidance: 'mention the trial' });
    expect(out.draftText).toMatch(
      /^Hi alex_dev, just following up on my message about "Would a demo help\?"/,
    );
    expect(out.draftReason).toBe(
      'A gentle follow-up: no answer since my message of 2026-11-20. Guidance to work in by hand: mention the trial',
    );
  });

  test('opens a conversation without messages, with the brand when there is one', () => {
    expect(dmDraftModeOf([])).toBe('opener');
    const out = writeDmDraftOffline(base);
    expect(out.draftText).toContain(`I work on ${b2bSaasBrand.name}`);
    expect(writeDmDraftOffline({ ...base, brand: null }).draftText).not.toContain('I work on');
    expect(dmDraftJob.output.safeParse(out).success).toBe(true);
  });

  test('long messages are quoted clipped; the draft stays within a DM', () => {
    const out = writeDmDraftOffline({
      ...base,
      messages: [{ from: 'them', text: 'word '.repeat(5000), at }],
    });
    expect(out.draftText.length).toBeLessThan(400);
    expect(dmDraftJob.output.safeParse(out).success).toBe(true);
  });
});

describe('the prompt', () => {
  test('the brand voice, the person, notes, guidance and the conversation, oldest first', () => {
    const { system, prompt } = dmDraftJob.prompt({
      ...base,
      guidance: 'Offer a call on Thursday',
      messages: [
        { from: 'me', text: 'Hi Alex', at },
        { from: 'them', text: 'Hey! What does it cost?', at },
      ],
    });
    expect(system).toMatch(/Write in the brand voice/);
    expect(system).toMatch(/never over 10000/);
    expect(prompt).toContain(`Voice: ${b2bSaasBrand.voice.tone}`);
    expect(prompt).toContain('Person: @alex_dev');
    expect(prompt).toContain('My notes about them: Met at SaaStr');
    expect(prompt).toContain('Guidance: Offer a call on Thursday');
    expect(prompt.indexOf('- Me (')).toBeLessThan(prompt.indexOf('- Them ('));
    expect(prompt).toMatch(/Them \(.*\): Hey! What does it cost\?/);
    expect(prompt).toMatch(/Task: Write my reply/);
  });
});
