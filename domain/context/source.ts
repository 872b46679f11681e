// The context source aggregate (spec part 2, "Context source and document"; issue 31): a connected Notion
// workspace. One stream per source (`contextSource-<sourceId>`), the id derived from the workspace and the Notion
// workspace, so connecting the same Notion workspace again reconnects the same source (its documents with it).
// Status (docs/decisions.md, "Context library"): connected → error (Notion refused the token) → connected (a
// reconnect, or a sync that works again); connected or error → disconnected (DELETE; the token is revoked);
// disconnected → connected (a reconnect). Decisions are pure: time comes in the command.
import { assertNever, type Decider } from '../shared/decider.js';
import { Conflict, NotFound } from '../shared/errors.js';
import {
  contextSourceEventCodec,
  type ContextSourceEvent,
  type ContextSourceStatus,
  type ContextSourceType,
} from './event-codec.js';

export const contextSourceCategory = 'contextSource';

/** lastError is kept short: it is shown to people and never carries a token. */
export const lastErrorMax = 300;

export interface ContextSource {
  sourceId: string;
  orgId: string;
  sourceType: ContextSourceType;
  status: ContextSourceStatus;
  externalWorkspaceId: string | null;
  workspaceName: string | null;
  lastSyncedAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export type ContextSourceState = { status: 'none' } | { status: 'exists'; source: ContextSource };

export type ContextSourceCommand =
  | {
      type: 'ConnectContextSource';
      orgId: string;
      sourceId: string;
      sourceType: ContextSourceType;
      externalWorkspaceId: string | null;
      workspaceName: string | null;
      by: string | null;
      now: string;
    }
  | {
      type: 'RecordContextSync';
      orgId: string;
      sourceId: string;
      synced: number;
      failed: number;
      now: string;
    }
  | { type: 'RecordContextSourceError'; orgId: string; sourceId: string; error: string; now: string }
  | {
      type: 'DisconnectContextSource';
      orgId: string;
      sourceId: string;
      revoked: boolean;
      revokeError: string | null;
      by: string | null;
      now: string;
    };

/** The workspace's source, or 404: another workspace's source is not found either. */
export function contextSourceOf(state: ContextSourceState, orgId: string): ContextSource {
  if (state.status !== 'exists' || state.source.orgId !== orgId)
    throw new NotFound('Context source not found');
  return state.source;
}

/** Pages are read and synced only through a source that is not disconnected (409 `source_disconnected`). */
export function assertReadable(source: ContextSource): void {
  if (source.status === 'disconnected')
    throw new Conflict(
      'The source is disconnected: connect Notion again before reading its pages',
      'source_disconnected',
    );
}

const clipError = (text: string) =>
  text.length <= lastErrorMax ? text : `${text.slice(0, lastErrorMax - 1)}…`;

export const contextSourceDecider: Decider<ContextSourceState, ContextSourceCommand, ContextSourceEvent> = {
  initialState: { status: 'none' },
  codec: contextSourceEventCodec,

  decide(command, state) {
    const ids = { orgId: command.orgId, sourceId: command.sourceId };
    switch (command.type) {
      case 'ConnectContextSource': {
        // The id is derived from the workspace: another workspace's stream is never this one.
        if (state.status === 'exists' && state.source.orgId !== command.orgId)
          throw new Conflict('Context source already exists');
        return [
          {
            type: 'ContextSourceConnected',
            data: {
              ...ids,
              sourceType: command.sourceType,
              externalWorkspaceId: command.externalWorkspaceId,
              workspaceName: command.workspaceName,
              by: command.by,
              at: command.now,
            },
          },
        ];
      }
      case 'RecordContextSync': {
        const source = contextSourceOf(state, command.orgId);
        // A sync that ends after a disconnect records nothing: the source stays disconnected.
        if (source.status === 'disconnected') return [];
        return [
          {
            type: 'ContextSourceSynced',
            data: { ...ids, synced: command.synced, failed: command.failed, at: command.now },
          },
        ];
      }
      case 'RecordContextSourceError': {
        const source = contextSourceOf(state, command.orgId);
        if (source.status === 'disconnected') return [];
        const error = clipError(command.error);
        if (source.status === 'error' && source.lastError === error) return [];
        return [{ type: 'ContextSourceFailed', data: { ...ids, error, at: command.now } }];
      }
      case 'DisconnectContextSource': {
        const source = contextSourceOf(state, command.orgId);
        if (source.status === 'disconnected') return [];
        return [
          {
            type: 'ContextSourceDisconnected',
            data: {
              ...ids,
              revoked: command.revoked,
              revokeError: command.revokeError === null ? null : clipError(command.revokeError),
              by: command.by,
              at: command.now,
            },
          },
        ];
      }
      default:
        return assertNever(command);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'ContextSourceConnected': {
        const d = event.data;
        const before = state.status === 'exists' ? state.source : null;
        return {
          status: 'exists',
          source: {
            sourceId: d.sourceId,
            orgId: d.orgId,
            sourceType: d.sourceType,
            status: 'connected',
            externalWorkspaceId: d.externalWorkspaceId,
            workspaceName: d.workspaceName,
            lastSyncedAt: before?.lastSyncedAt ?? null,
            lastError: null,
            createdAt: before?.createdAt ?? d.at,
            updatedAt: d.at,
          },
        };
      }
      case 'ContextSourceSynced': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          source: {
            ...state.source,
            status: 'connected',
            lastSyncedAt: d.at,
            lastError: null,
            updatedAt: d.at,
          },
        };
      }
      case 'ContextSourceFailed': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          source: { ...state.source, status: 'error', lastError: d.error, updatedAt: d.at },
        };
      }
      case 'ContextSourceDisconnected': {
        if (state.status !== 'exists') return state;
        const d = event.data;
        return {
          status: 'exists',
          source: {
            ...state.source,
            status: 'disconnected',
            lastError: d.revokeError === null ? null : `Revoking the token failed: ${d.revokeError}`,
            updatedAt: d.at,
          },
        };
      }
      default:
        return assertNever(event);
    }
  },
};

export interface ContextSourceView {
  id: string;
  orgId: string;
  sourceType: ContextSourceType;
  status: ContextSourceStatus;
  externalWorkspaceId: string | null;
  workspaceName: string | null;
  lastSyncedAt: string | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export const contextSourceView = (s: ContextSource): ContextSourceView => ({
  id: s.sourceId,
  orgId: s.orgId,
  sourceType: s.sourceType,
  status: s.status,
  externalWorkspaceId: s.externalWorkspaceId,
  workspaceName: s.workspaceName,
  lastSyncedAt: s.lastSyncedAt,
  lastError: s.lastError,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});
