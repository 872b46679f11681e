// JSON logging (pino). Tokens, passwords and secrets are redacted wherever they appear in a log entry: keys that
// name a secret at any depth and in any spelling (access_token, accessToken, Authorization, …), and values that
// look like one (bearer credentials, JWTs, `access_token=…`), in fields, errors, child bindings and messages.
import { pino, type Logger } from 'pino';
import { redactSecrets, redactText } from './redact.js';

export type { Logger };

/** Fixed paths pino censors itself; the walk in `formatters` covers every other place. */
export const redactedPaths = [
  'authorization',
  'password',
  'appPassword',
  'token',
  'accessToken',
  'refreshToken',
  'secret',
  'clientSecret',
  '*.authorization',
  '*.password',
  '*.appPassword',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.secret',
  '*.clientSecret',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
];

export function createLogger(options: { level: string; destination?: pino.DestinationStream }): Logger {
  const logger = pino(
    {
      level: options.level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'social-publishing' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        // The merged object of each call (errors included: they stay errors for pino's serializer).
        log: (object) => redactSecrets(object) as Record<string, unknown>,
      },
      hooks: {
        // The message and interpolated arguments; the leading object is left to `formatters.log`.
        logMethod(args, method) {
          const cleaned = args.map((arg, index) =>
            typeof arg === 'string'
              ? redactText(arg)
              : index > 0 && arg !== null && typeof arg === 'object'
                ? redactSecrets(arg)
                : arg,
          );
          return method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    options.destination,
  );
  // pino applies no formatter to a child's bindings: they are redacted on the way in. Children inherit this
  // `child` (they are created from their parent), so grandchildren's bindings are redacted too.
  const child = Object.getPrototypeOf(logger) as Pick<Logger, 'child'>;
  logger.child = function redactedChild(this: Logger, bindings, childOptions) {
    return child.child.call(this, redactSecrets(bindings) as pino.Bindings, childOptions);
  } as typeof logger.child;
  return logger;
}
