// Where a media library asset came from (spec part 1, "Media library" `source`).
export const mediaSources = ['upload', 'import', 'branded_image', 'carousel', 'screenshot'] as const;
export type MediaSource = (typeof mediaSources)[number];
