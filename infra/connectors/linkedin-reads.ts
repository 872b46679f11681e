// What the LinkedIn connector reads besides what it publishes (issue 31, the inspiration library): one post by its
// URN (`urn:li:share:…`, `urn:li:ugcPost:…`) with its text, author, media and social counts, through the Posts
// API (`GET /rest/posts/{urn}`) and social actions. The live and sandbox LinkedIn connectors implement
// PlatformConnector's optional `readLinkedInPost`.

export interface LinkedInPostRead {
  urn: string;
  url: string;
  text: string;
  /** `urn:li:person:…` or `urn:li:organization:…`. */
  authorUrn: string | null;
  /** A page's name; null for a member (LinkedIn does not give other members' names to this read). */
  authorName: string | null;
  /** A page's vanity name. */
  authorHandle: string | null;
  authorProfileUrl: string | null;
  publishedAt: string | null;
  media: { type: 'image' | 'video' | 'document' | 'link' | 'other'; url: string; alt: string }[];
  likes: number | null;
  comments: number | null;
}

/** The post URNs a link to a LinkedIn post may name, in the order to try them. */
export function linkedinPostUrnsOf(url: string): string[] | null {
  const text = url.trim();
  let decoded: string;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    return null;
  }
  if (!/^https?:\/\/(?:[a-z]{2,3}\.|www\.)?linkedin\.com\//i.test(decoded)) return null;
  const urn = /urn:li:(share|ugcPost|activity):(\d{6,25})/.exec(decoded);
  if (urn) {
    const [, kind, id] = urn;
    // An activity's id is its share's or its ugcPost's: LinkedIn's Posts API reads those, not activities.
    return kind === 'activity' ? [`urn:li:share:${id}`, `urn:li:ugcPost:${id}`] : [`urn:li:${kind}:${id}`];
  }
  // https://www.linkedin.com/posts/<vanity>_<slug>-activity-<id>-<hash>
  const activity = /\/posts\/[^/?#]*-(?:activity|share|ugcPost)-(\d{6,25})-/i.exec(decoded);
  if (activity) return [`urn:li:share:${activity[1]}`, `urn:li:ugcPost:${activity[1]}`];
  return null;
}

/** The author's vanity name in a /posts/ link, if any (`/posts/jane-doe_…` → `jane-doe`). */
export function linkedinVanityOf(url: string): string | null {
  return /linkedin\.com\/posts\/([A-Za-z0-9-]{3,100})_/i.exec(url)?.[1] ?? null;
}
