// What a run does on X: a repost through the X connector (with the account the post was published with and its
// tokens), a deletion through the x-posts deletion (deleted on X, then removed here as POST x-posts/delete does).
// Each answer is an outcome; `definite` says X certainly did nothing, so the action stops counting against caps.
import { AppError, ServiceUnavailable } from '../../domain/shared/errors.js';
import { ConnectorError, isConnectorError } from '../../infra/connectors/port.js';
import type { CommandMetadata } from '../shared/command-handler.js';
import { deletePublishedXPost, type XPostDeletionDeps } from '../x-posts/delete-x-post.js';
import type { ActionTarget, AutomationEffects, EffectOutcome } from './run-x-automation.js';

const noMedia = async (): Promise<never> => {
  throw new ConnectorError('permanent', 'a repost uploads no media');
};

function failure(error: unknown): EffectOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (isConnectorError(error))
    // Refused, rate limited, not reached or not authorised: X did nothing. A lost answer may have acted.
    return { status: 'failed', error: message, definite: error.kind !== 'unknown_outcome' };
  if (error instanceof AppError) {
    // The deletion's answers: 503 when X could not be reached or answered 5xx, and a conflict removing the post
    // here after X deleted it, may follow an act on X; the rest (rate limited, account to reconnect, X refused,
    // the post gone here) come before anything was deleted.
    const mayHaveActed = error instanceof ServiceUnavailable || error.code === 'concurrency_conflict';
    return { status: 'failed', error: message, definite: !mayHaveActed };
  }
  return { status: 'failed', error: message, definite: false };
}

export function xAutomationEffects(deps: XPostDeletionDeps & { callTimeoutMs: number }): AutomationEffects {
  return {
    async repost(target: ActionTarget & { again: boolean }): Promise<EffectOutcome> {
      try {
        const resolved = await deps.accounts.resolve({
          orgId: target.orgId,
          platform: 'x',
          socialAccountId: target.socialAccountId,
        });
        if (!resolved.ok) return { status: 'failed', error: resolved.message, definite: true };
        const connector = deps.connectors.get('x');
        const repost = connector.repost?.bind(connector);
        if (!repost) return { status: 'failed', error: 'The X connector cannot repost', definite: true };
        const result = await deps.accounts.withTokens(resolved.account, (tokens) =>
          repost(
            {
              account: resolved.account,
              tokens,
              fetchMedia: noMedia,
              signal: AbortSignal.timeout(deps.callTimeoutMs),
            },
            { externalId: target.externalTweetId, undoFirst: target.again },
          ),
        );
        return result.kind === 'reposted'
          ? { status: 'succeeded', warnings: [] }
          : { status: 'failed', error: 'X no longer has the post', definite: true };
      } catch (error) {
        return failure(error);
      }
    },

    async delete(target: ActionTarget, metadata: CommandMetadata): Promise<EffectOutcome> {
      try {
        const deletion = await deletePublishedXPost(
          deps,
          { orgId: target.orgId, postId: target.postId },
          metadata,
        );
        return { status: 'succeeded', warnings: deletion.warnings };
      } catch (error) {
        // Deleted on X and removed here; only the read models are behind.
        if (error instanceof ServiceUnavailable && error.code === 'read_models_lagging')
          return { status: 'succeeded', warnings: [] };
        return failure(error);
      }
    },
  };
}
