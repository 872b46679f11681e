// The social platforms a post can go to, and how each writes its name. Shared by every slice that names a
// platform (post groups, social accounts, analytics, scheduling).
export const platforms = [
  'x',
  'linkedin',
  'tiktok',
  'reddit',
  'facebook',
  'instagram',
  'youtube',
  'bluesky',
  'threads',
] as const;
export type Platform = (typeof platforms)[number];

/** How each platform writes its own name, for messages people read. */
export const platformNames: Record<Platform, string> = {
  x: 'X',
  linkedin: 'LinkedIn',
  tiktok: 'TikTok',
  reddit: 'Reddit',
  facebook: 'Facebook',
  instagram: 'Instagram',
  youtube: 'YouTube',
  bluesky: 'Bluesky',
  threads: 'Threads',
};
