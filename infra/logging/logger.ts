// JSON logging (pino). Tokens, passwords and secrets are redacted wherever they appear in a log object.
import { pino, type Logger } from 'pino';

export type { Logger };

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
  return pino(
    {
      level: options.level,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service: 'social-publishing' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
