// Secrets out of logs and stored error text. Keys that name a secret are matched in any spelling
// (accessToken, access_token, Access-Token); values are scanned for what a secret looks like (a bearer
// header, a JWT, `access_token=…` in a URL, a form or a JSON text), since platform errors echo requests.

export const REDACTED = '[redacted]';

// Keys compared lower-cased with `_`, `-` and `.` removed.
const secretKeys = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'password',
  'passwd',
  'apppassword',
  'token',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'sessiontoken',
  'secret',
  'clientsecret',
  'appsecret',
  'codeverifier',
  'apikey',
  'xapikey',
  'privatekey',
  'dpopkey',
  'assertion',
]);

/** Whether a field of this name holds a secret (whatever its spelling, or a `…Token` / `…Secret` suffix). */
export function isSecretKey(key: string): boolean {
  const normalized = key.toLowerCase().replace(/[-_.]/g, '');
  return (
    secretKeys.has(normalized) ||
    normalized.endsWith('token') ||
    normalized.endsWith('secret') ||
    normalized.endsWith('password')
  );
}

// Names of secret parameters as they appear in URLs, forms, JSON and `key: value` text. Compound names
// (access_token, client-secret) are secrets in any of those forms; the bare words only as `token=…` or
// `"token": …`, so prose such as "Invalid access token: cannot parse" stays readable.
const compoundParam =
  'access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|client[_-]?secret|app[_-]?secret|code[_-]?verifier|app[_-]?password|api[_-]?key';
const bareParam = 'token|password|secret|assertion';
const valuePatterns: Array<[RegExp, string]> = [
  // `Authorization: <anything>` up to the end of the header value.
  [
    /\b((?:proxy-)?authorization["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;}][^"'\r\n,;}]*/gi,
    `$1${REDACTED}`,
  ],
  // `Bearer …` and `DPoP …` credentials wherever they appear.
  [/\b(Bearer|DPoP)(\s+)[A-Za-z0-9\-._~+/]{16,}=*/gi, `$1$2${REDACTED}`],
  // JWTs (and other JWS/JWE compact forms): a base64url JSON header, then dot-separated parts.
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*){0,3}/g, REDACTED],
  // access_token=…, "refresh_token":"…", client_secret: …
  [
    new RegExp(
      `(["']?\\b(?:${compoundParam})["']?\\s*[:=]\\s*["']?)(?!\\[redacted\\])[^"'&\\s,;}\\]]+`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // token=… in a URL or form, "password": "…" in JSON.
  [
    new RegExp(
      `(\\b(?:${bareParam})=|"(?:${bareParam})"\\s*:\\s*"?)(?!\\[redacted\\])[^"'&\\s,;}\\]]+`,
      'gi',
    ),
    `$1${REDACTED}`,
  ],
  // Authorization codes and states in callback URLs.
  [/([?&](?:code|state)=)(?!\[redacted\])[^&\s"']+/gi, `$1${REDACTED}`],
];

/** The text with anything that looks like a secret replaced by `[redacted]`. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of valuePatterns) out = out.replace(pattern, replacement);
  return out;
}

// C0 and C1 controls other than tab: no line breaks, escapes or terminal sequences in stored error text.
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * Error text from outside (a platform's answer) made safe to log and to store as a post's lastError: control
 * characters become spaces, secrets are redacted, and the result is at most `max` characters.
 */
export function sanitizeErrorText(text: string, max = 500): string {
  const cleaned = redactText(text.replace(controlCharacters, ' ')).replace(/ {2,}/g, ' ').trim();
  return cleaned.length <= max ? cleaned : `${cleaned.slice(0, max - 1)}…`;
}

const MAX_DEPTH = 12;

/**
 * A copy of `value` with secret keys redacted at any depth and secret-looking strings redacted. Errors stay
 * errors (same prototype, so the log serializer names their type) with their message, stack and fields
 * redacted; cycles and anything deeper than the limit are cut.
 */
export function redactSecrets(value: unknown): unknown {
  return walk(value, 0, new WeakSet());
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  if (seen.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen));
    if (value instanceof Map || value instanceof Set) return walk([...value], depth, seen);
    if (value instanceof Error) {
      const copy = Object.create(Object.getPrototypeOf(value) as object) as Record<string, unknown>;
      for (const key of ['message', 'stack'] as const) {
        const text = value[key];
        if (typeof text === 'string')
          Object.defineProperty(copy, key, { value: redactText(text), enumerable: false, writable: true });
      }
      copyFields(value, copy, depth, seen);
      if (value.cause !== undefined)
        Object.defineProperty(copy, 'cause', {
          value: walk(value.cause, depth + 1, seen),
          enumerable: false,
          writable: true,
        });
      return copy;
    }
    const copy: Record<string, unknown> = {};
    copyFields(value, copy, depth, seen);
    return copy;
  } finally {
    seen.delete(value);
  }
}

function copyFields(from: object, to: Record<string, unknown>, depth: number, seen: WeakSet<object>): void {
  for (const [key, field] of Object.entries(from)) {
    to[key] =
      isSecretKey(key) && field !== null && field !== undefined ? REDACTED : walk(field, depth + 1, seen);
  }
}
