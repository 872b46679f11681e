// Which Bluesky identifiers an OAuth start accepts: handles, did:plc, and did:web on a public host name only.
// Apart from the connector so the request schema can use it without loading the AT Protocol SDK.

// The AT Protocol handle syntax: DNS labels, at least two, the last starting with a letter (so no IP literal).
const HANDLE = /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

// Top-level domains the AT Protocol handle spec refuses: none of them names a host on the public internet.
const NON_PUBLIC_TLDS = new Set([
  'alt',
  'arpa',
  'example',
  'internal',
  'invalid',
  'local',
  'localhost',
  'onion',
]);

const DID_PLC = /^did:plc:[a-z2-7]{24}$/;

export const blueskyIdentifierMessage =
  'a handle (alice.bsky.social), a did:plc, or a did:web on a public host name (no port, IP address or localhost)';

function isPublicHostName(name: string): boolean {
  if (name.length > 253 || !HANDLE.test(name)) return false;
  return !NON_PUBLIC_TLDS.has(name.slice(name.lastIndexOf('.') + 1).toLowerCase());
}

/**
 * Whether `value` (without a leading `@`) is a handle, a did:plc, or a did:web naming a public host. A did:web
 * with a port (`did:web:localhost%3A8091`), a path, an IP address or a local name would have us fetch its DID
 * document from wherever it says, so it is refused before anything is fetched.
 */
export function isBlueskyIdentifier(value: string): boolean {
  if (value.startsWith('did:plc:')) return DID_PLC.test(value);
  if (value.startsWith('did:web:')) return isPublicHostName(value.slice('did:web:'.length));
  if (value.startsWith('did:')) return false;
  return isPublicHostName(value);
}
