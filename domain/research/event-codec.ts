// The research slice's events (issue 31, part 3), declared once (domain/shared/event-codec.ts): the workspace's
// newsjacking settings, saved whole on `newsjackingSettings-<orgId>` (the news feeds it reads, the keywords it
// watches, whether newsjacking is on and the relevance an item needs to count as an alert).
import { z } from 'zod';
import { zodEventCodec, type EventsOf } from '../shared/event-codec.js';

const newsFeed = z.object({
  id: z.string(),
  name: z.string(),
  /** An RSS, Atom, RDF or JSON Feed address (http or https). */
  url: z.string(),
  enabled: z.boolean(),
});
export type NewsFeed = z.infer<typeof newsFeed>;

const newsjackingSettings = z.object({
  enabled: z.boolean(),
  feeds: z.array(newsFeed),
  /** Terms that make a news item relevant, besides the strategy's pillars and their keywords. */
  keywords: z.array(z.string()),
  /** Terms that drop an item (a sponsored post, an unrelated sense of a keyword). */
  excludeTerms: z.array(z.string()),
  /** The relevance (0-100) from which a news item is flagged as worth reacting to. */
  alertThreshold: z.number().int(),
});
export type NewsjackingSettings = z.infer<typeof newsjackingSettings>;

const settingsSchemas = {
  NewsjackingSettingsUpdated: z.object({
    orgId: z.string(),
    settings: newsjackingSettings,
    updatedAt: z.string(),
    /** The user who saved them (an assistant's user for an assistant). */
    updatedBy: z.string().nullable(),
  }),
};
export type NewsjackingSettingsEvent = EventsOf<typeof settingsSchemas>;
export const newsjackingSettingsEventCodec = zodEventCodec('newsjacking-settings', settingsSchemas);
