// Wire form of bus payloads, shared by both adapters so in-process delivery sees what NATS would deliver
// (a JSON copy: no shared references, Dates become strings, undefined survives as undefined).

export function encodeData(data: unknown): string {
  return JSON.stringify({ data });
}

export function decodeData(text: string): unknown {
  if (text === '') return undefined;
  return (JSON.parse(text) as { data?: unknown }).data;
}
