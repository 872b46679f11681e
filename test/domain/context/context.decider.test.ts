// The context library's deciders (issue 31): a source's status moves (connected → error → connected or
// disconnected, disconnected → connected by a reconnect; nothing recorded after a disconnect but a reconnect), and
// a document's rules (new ones enabled and private, a re-sync keeps the person's enabled and disclosure, limits,
// another workspace's document not found, a delete and a later sync make a fresh one), and which documents feed
// generation.
import { describe, expect, test } from 'vitest';
import {
  contextDocumentDecider,
  contextDocumentIdOf,
  documentLimits,
  feedsGeneration,
  type ContextDocumentCommand,
} from '../../../domain/context/document.js';
import type { ContextDocumentEvent, ContextSourceEvent } from '../../../domain/context/event-codec.js';
import { assertReadable, contextSourceDecider, contextSourceOf } from '../../../domain/context/source.js';
import { fold } from '../../../domain/shared/decider.js';
import { Conflict, InvalidFields, NotFound } from '../../../domain/shared/errors.js';
import { deciderSpec } from '../../support/decider-spec.js';

const orgId = '11111111-1111-4111-8111-111111111111';
const otherOrg = '22222222-2222-4222-8222-222222222222';
const sourceId = '33333333-3333-4333-8333-333333333333';
const at = (minute: number) => `2026-11-29T10:${String(minute).padStart(2, '0')}:00.000Z`;

const connected: ContextSourceEvent = {
  type: 'ContextSourceConnected',
  data: {
    orgId,
    sourceId,
    sourceType: 'notion',
    externalWorkspaceId: 'ws',
    workspaceName: 'Notion',
    by: 'u1',
    at: at(0),
  },
};
const failed: ContextSourceEvent = {
  type: 'ContextSourceFailed',
  data: { orgId, sourceId, error: 'Notion refused the access token', at: at(1) },
};
const disconnected: ContextSourceEvent = {
  type: 'ContextSourceDisconnected',
  data: { orgId, sourceId, revoked: true, revokeError: null, by: 'u1', at: at(2) },
};

const sources = deciderSpec(contextSourceDecider);
const sourceState = (events: ContextSourceEvent[]) =>
  contextSourceOf(fold(contextSourceDecider, events), orgId);

describe('source status', () => {
  test('connected → error with lastError → connected by a sync that works, lastError cleared', () => {
    expect(sourceState([connected, failed])).toMatchObject({
      status: 'error',
      lastError: 'Notion refused the access token',
    });
    sources
      .given([connected, failed])
      .when({ type: 'RecordContextSync', orgId, sourceId, synced: 1, failed: 0, now: at(3) })
      .thenState((s) =>
        expect(contextSourceOf(s, orgId)).toMatchObject({
          status: 'connected',
          lastError: null,
          lastSyncedAt: at(3),
        }),
      );
  });

  test('the same error twice records it once', () => {
    sources
      .given([connected, failed])
      .when({
        type: 'RecordContextSourceError',
        orgId,
        sourceId,
        error: failed.data.error,
        now: at(4),
      })
      .then([]);
  });

  test('connected or error → disconnected; a disconnect records revocation failures in lastError', () => {
    for (const history of [[connected], [connected, failed]])
      sources
        .given(history)
        .when({
          type: 'DisconnectContextSource',
          orgId,
          sourceId,
          revoked: false,
          revokeError: 'Notion did not answer',
          by: 'u1',
          now: at(5),
        })
        .thenState((s) =>
          expect(contextSourceOf(s, orgId)).toMatchObject({
            status: 'disconnected',
            lastError: 'Revoking the token failed: Notion did not answer',
          }),
        );
  });

  test('disconnected stays disconnected (syncs, errors and a second disconnect record nothing) until reconnected', () => {
    const given = sources.given([connected, disconnected]);
    given.when({ type: 'RecordContextSync', orgId, sourceId, synced: 1, failed: 0, now: at(6) }).then([]);
    given.when({ type: 'RecordContextSourceError', orgId, sourceId, error: 'x', now: at(6) }).then([]);
    given
      .when({
        type: 'DisconnectContextSource',
        orgId,
        sourceId,
        revoked: true,
        revokeError: null,
        by: null,
        now: at(6),
      })
      .then([]);
    expect(() => assertReadable(sourceState([connected, disconnected]))).toThrow(Conflict);
    given
      .when({
        type: 'ConnectContextSource',
        orgId,
        sourceId,
        sourceType: 'notion',
        externalWorkspaceId: 'ws',
        workspaceName: 'Renamed',
        by: 'u2',
        now: at(7),
      })
      .thenState((s) =>
        expect(contextSourceOf(s, orgId)).toMatchObject({
          status: 'connected',
          workspaceName: 'Renamed',
          createdAt: at(0),
          lastError: null,
        }),
      );
  });

  test("another workspace's source is not found", () => {
    sources
      .given([connected])
      .when({ type: 'RecordContextSync', orgId: otherOrg, sourceId, synced: 1, failed: 0, now: at(1) })
      .thenThrows(NotFound);
    sources
      .given([])
      .when({ type: 'RecordContextSourceError', orgId, sourceId, error: 'x', now: at(1) })
      .thenThrows(NotFound);
  });
});

const documentId = contextDocumentIdOf(sourceId, 'page-1');
const sync = (
  overrides: Partial<Extract<ContextDocumentCommand, { type: 'SyncContextDocument' }>> = {},
): ContextDocumentCommand => ({
  type: 'SyncContextDocument',
  orgId,
  documentId,
  sourceId,
  sourceType: 'notion',
  externalId: 'page-1',
  title: 'Roadmap',
  contentText: 'First words',
  contentUrl: 'https://www.notion.so/Roadmap',
  now: at(0),
  ...overrides,
});
const documents = deciderSpec(contextDocumentDecider);
const decided = (history: ContextDocumentEvent[], command: ContextDocumentCommand) => {
  const state = fold(contextDocumentDecider, history);
  return [...history, ...contextDocumentDecider.decide(command, state)];
};
const documentAfter = (events: ContextDocumentEvent[]) => {
  const state = fold(contextDocumentDecider, events);
  if (state.status !== 'exists') throw new Error(`no document: ${state.status}`);
  return state.document;
};

describe('documents', () => {
  test('one id per source and page', () => {
    expect(contextDocumentIdOf(sourceId, 'page-1')).toBe(documentId);
    expect(contextDocumentIdOf(sourceId, 'page-2')).not.toBe(documentId);
  });

  test('a new document is enabled and private: it does not feed generation until made public', () => {
    const doc = documentAfter(decided([], sync()));
    expect(doc).toMatchObject({ enabled: true, disclosure: 'private', title: 'Roadmap', syncedAt: at(0) });
    expect(feedsGeneration(doc)).toBe(false);
  });

  test('a re-sync updates the words and keeps enabled and disclosure', () => {
    let events = decided([], sync());
    events = decided(events, {
      type: 'UpdateContextDocument',
      orgId,
      documentId,
      disclosure: 'public',
      now: at(1),
    });
    expect(feedsGeneration(documentAfter(events))).toBe(true);
    events = decided(events, sync({ title: 'Roadmap v2', contentText: 'New words', now: at(2) }));
    expect(documentAfter(events)).toMatchObject({
      title: 'Roadmap v2',
      contentText: 'New words',
      disclosure: 'public',
      enabled: true,
      createdAt: at(0),
      syncedAt: at(2),
    });
  });

  test('only enabled public documents feed generation', () => {
    for (const [enabled, disclosure, feeds] of [
      [true, 'public', true],
      [false, 'public', false],
      [true, 'private', false],
      [true, 'restricted', false],
    ] as const)
      expect(feedsGeneration({ enabled, disclosure }), `${enabled} ${disclosure}`).toBe(feeds);
  });

  test('an update that changes nothing records nothing; a bad disclosure is refused naming the field', () => {
    const events = decided([], sync());
    documents
      .given(events)
      .when({ type: 'UpdateContextDocument', orgId, documentId, enabled: true, now: at(1) })
      .then([]);
    documents
      .given(events)
      .when({
        type: 'UpdateContextDocument',
        orgId,
        documentId,
        disclosure: 'secret' as 'public',
        now: at(1),
      })
      .thenThrows(InvalidFields, /disclosure/);
  });

  test('titles and text are kept within their limits; an empty title is Untitled', () => {
    const doc = documentAfter(
      decided([], sync({ title: '  ', contentText: 'x'.repeat(documentLimits.contentText + 10) })),
    );
    expect(doc.title).toBe('Untitled');
    expect(doc.contentText).toHaveLength(documentLimits.contentText);
  });

  test("another workspace's document is not found; a deleted one is not found, and a later sync starts it anew", () => {
    const events = decided(decided([], sync()), {
      type: 'UpdateContextDocument',
      orgId,
      documentId,
      disclosure: 'public',
      now: at(1),
    });
    documents
      .given(events)
      .when({ type: 'UpdateContextDocument', orgId: otherOrg, documentId, enabled: false, now: at(2) })
      .thenThrows(NotFound);
    const deleted = decided(events, { type: 'DeleteContextDocument', orgId, documentId, now: at(3) });
    documents
      .given(deleted)
      .when({ type: 'DeleteContextDocument', orgId, documentId, now: at(4) })
      .thenThrows(NotFound);
    expect(documentAfter(decided(deleted, sync({ now: at(5) })))).toMatchObject({
      disclosure: 'private',
      createdAt: at(5),
    });
  });
});
