// What the caller gets when a call to X fails: 429 while X rate limits, 409 to reconnect or when X refuses the
// action (named in the message), else 503. Shared by the X post reads, the X account reads and X post deletion.
import { isConnectorError } from '../../infra/connectors/port.js';
import { Conflict, ServiceUnavailable, TooManyRequests } from '../../domain/shared/errors.js';

export function xCallFailure(error: unknown, action: 'read' | 'deletion'): Error {
  if (!isConnectorError(error)) return error as Error;
  switch (error.kind) {
    case 'rate_limited':
      return new TooManyRequests(
        'X is rate limiting this account; try again later',
        Math.max(1, Math.ceil((error.details.retryAfterMs ?? 60_000) / 1000)),
      );
    case 'auth':
      return new Conflict(error.message, 'account_needs_reconnect');
    case 'permanent':
      return new Conflict(`X refused the ${action}: ${error.message}`, 'x_refused');
    case 'retryable':
    case 'unknown_outcome':
      return new ServiceUnavailable(`X could not be reached: ${error.message}`, 'platform_unavailable');
  }
}
