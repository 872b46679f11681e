// What every live connector test sets up the same way: platform fixtures, the call context of one account,
// publish requests, the ConnectorError a call fails with, and the checks for an unconfigured connector.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Platform } from '../../../domain/shared/platforms.js';
import {
  ConnectorError,
  type CallContext,
  type MediaFetcher,
  type PlatformConnector,
  type PublishRequest,
  type TokenSet,
} from '../../../infra/connectors/port.js';
import type { RecordedRequest } from './fake-platform.js';

/** Reads `test/connectors/fixtures/<platform>/<name>.json`, a platform's documented answer. */
export function fixtureReader(platform: Platform): (name: string) => Record<string, unknown> {
  return (name) =>
    JSON.parse(
      readFileSync(new URL(`../fixtures/${platform}/${name}.json`, import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
}

/** For platforms that take media by URL: a test fails if the connector asks for bytes. */
export function mediaByUrlOnly(platformName: string): MediaFetcher {
  return async () => {
    throw new Error(`${platformName} takes media by URL`);
  };
}

/** The call context of one connected account (`acc-1` of `org-1`). */
export function callContext(options: {
  platform: Platform;
  accountExternalId: string;
  accountHandle: string | null;
  tokens: TokenSet;
  fetchMedia: MediaFetcher;
}): CallContext {
  return {
    account: {
      id: 'acc-1',
      orgId: 'org-1',
      platform: options.platform,
      accountExternalId: options.accountExternalId,
      accountHandle: options.accountHandle,
      xSubscription: null,
    },
    tokens: options.tokens,
    fetchMedia: options.fetchMedia,
  };
}

/** A publish request for `post-1`, first attempt, started at `attemptStartedAt`. */
export function publishRequest(
  defaults: Pick<PublishRequest, 'groupTitle' | 'contentText' | 'attemptStartedAt'> & Partial<PublishRequest>,
  overrides: Partial<PublishRequest> = {},
): PublishRequest {
  return {
    postId: 'post-1',
    idempotencyKey: 'publish:post-1:1',
    media: null,
    platformPayload: null,
    ...defaults,
    ...overrides,
  };
}

/** The ConnectorError a call fails with; the test fails if it succeeds or fails otherwise. */
export async function connectorFailure(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

/** The fields of a form-encoded request body. */
export function formFields(request: RecordedRequest | string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(typeof request === 'string' ? request : request.text));
}

/**
 * An unconfigured connector names exactly the environment variables it lacks and refuses to start an
 * authorization with a permanent error naming `named`.
 */
export async function expectNotConfigured(
  connector: PlatformConnector,
  missing: string[],
  named: string,
): Promise<void> {
  expect(connector.missingConfiguration()).toEqual(missing);
  const error = await connectorFailure(
    connector.startAuthorization({ state: 's', callbackUrl: 'https://app.test/cb', codeChallenge: 'c' }),
  );
  expect(error.kind).toBe('permanent');
  expect(error.message).toContain(named);
}
