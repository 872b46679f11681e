// Queue and subject names valid on both adapters, and NATS-style subject matching for the in-process bus.
// Checked in both adapters so a name that works in tests also works on NATS.

const token = '[A-Za-z0-9_-]+';
const queuePattern = new RegExp(`^${token}(?:\\.${token})*$`);
const subjectPattern = /^[^\s.*>]+(?:\.[^\s.*>]+)*$/;

/** Queue names become JetStream subjects (`<prefix>.<queue>`) and consumer names, so they stay plain tokens. */
export function assertQueueName(queue: string): void {
  if (!queuePattern.test(queue))
    throw new TypeError(`Invalid queue name "${queue}": use dot-separated tokens of [A-Za-z0-9_-]`);
}

/** A subject to publish on: dot-separated tokens, no wildcards, no whitespace. */
export function assertSubject(subject: string): void {
  if (!subjectPattern.test(subject)) throw new TypeError(`Invalid subject "${subject}"`);
}

/** A subject to listen on: like a subject, where a token may be `*` and the last may be `>`. */
export function assertSubjectFilter(filter: string): void {
  const tokens = filter.split('.');
  const valid = tokens.every(
    (t, i) => t === '*' || (t === '>' && i === tokens.length - 1) || subjectPattern.test(t),
  );
  if (!valid) throw new TypeError(`Invalid subject filter "${filter}"`);
}

export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    const t = f[i];
    if (t === '>') return s.length > i;
    if (i >= s.length) return false;
    if (t !== '*' && t !== s[i]) return false;
  }
  return f.length === s.length;
}
