// Typed errors carrying their HTTP meaning; api/ maps them to the spec's error body in one place.
// Domain code throws these; nothing below api/ knows about HTTP otherwise.

export interface ErrorDetail {
  /**
   * Dotted path of the offending field, in the terms of whoever refused it: the domain names its own fields
   * (`posts.0.contentText`, `title`; see InvalidFields), the API the request's (`body.title`, `query.filter[status]`).
   */
  path: string;
  message: string;
}

export abstract class AppError extends Error {
  abstract readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 503;
  constructor(
    message: string,
    readonly code?: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The same error naming its fields otherwise (an entry point names them where its caller sent them). */
  withDetails(details: ErrorDetail[]): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    Object.assign(copy, this, { details });
    Object.defineProperty(copy, 'message', { value: this.message, writable: true, configurable: true });
    Object.defineProperty(copy, 'stack', { value: this.stack, writable: true, configurable: true });
    return copy;
  }
}

export class ValidationError extends AppError {
  readonly status = 400;
}
/**
 * The domain refuses a command for some of its fields, named in the domain's terms (`title`, `posts.0.contentText`,
 * `approvePosts.1`, `payloadPatch.poll.options`), never by where a request carried them: the API maps them to the
 * request in one place (api/platform/errors.ts).
 */
export class InvalidFields extends ValidationError {
  constructor(message: string, details: ErrorDetail[]) {
    super(message, undefined, details);
  }
}
export class Unauthorized extends AppError {
  readonly status = 401;
}
export class PaymentRequired extends AppError {
  readonly status = 402;
}
/** More than may be stored: a workspace's storage quota (not a request body, which the body limit answers). */
export class ContentTooLarge extends AppError {
  readonly status = 413;
}
export class Forbidden extends AppError {
  readonly status = 403;
}
export class NotFound extends AppError {
  readonly status = 404;
}
export class Conflict extends AppError {
  readonly status = 409;
}
/** The resource existed and is gone for good (a deleted workspace): unlike 404, a client should stop asking. */
export class Gone extends AppError {
  readonly status = 410;
}
export class Unprocessable extends AppError {
  readonly status = 422;
}
export class TooManyRequests extends AppError {
  readonly status = 429;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message, 'rate_limit_exceeded');
  }
}
export class ServiceUnavailable extends AppError {
  readonly status = 503;
}
