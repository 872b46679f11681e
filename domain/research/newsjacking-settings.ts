// The newsjacking settings aggregate (issue 31, part 3): which news feeds the workspace reads and what makes an item
// worth reacting to, one stream per workspace (`newsjackingSettings-<orgId>`), shaped like the engagement settings
// (domain/engagement/settings.ts). A save names the fields it changes (lists replace); the decider normalises and
// checks every field and records the whole settings when anything changed. Never saved: the defaults.
import { canonicalJson } from '../shared/canonical-json.js';
import { assertNever, type Decider } from '../shared/decider.js';
import { InvalidFields, type ErrorDetail } from '../shared/errors.js';
import { deterministicUuid } from '../shared/ids.js';
import {
  newsjackingSettingsEventCodec,
  type NewsFeed,
  type NewsjackingSettings,
  type NewsjackingSettingsEvent,
} from './event-codec.js';

export type { NewsFeed, NewsjackingSettings, NewsjackingSettingsEvent } from './event-codec.js';

export const newsjackingSettingsCategory = 'newsjackingSettings';

export const newsjackingLimits = {
  feeds: 20,
  feedNameLength: 60,
  urlLength: 2_000,
  /** Entries of keywords and of exclude terms. */
  listItems: 50,
  termLength: 100,
  feedIdPattern: /^[A-Za-z0-9_-]{1,64}$/,
} as const;

export const defaultNewsjackingSettings: NewsjackingSettings = {
  enabled: true,
  feeds: [],
  keywords: [],
  excludeTerms: [],
  alertThreshold: 60,
};

export interface NewsFeedInput {
  id?: string | undefined;
  name?: string | undefined;
  url: string;
  enabled?: boolean | undefined;
}

export interface NewsjackingSettingsChanges {
  enabled?: boolean | undefined;
  feeds?: NewsFeedInput[] | undefined;
  keywords?: string[] | undefined;
  excludeTerms?: string[] | undefined;
  alertThreshold?: number | undefined;
}

export type NewsjackingSettingsCommand = {
  type: 'UpdateNewsjackingSettings';
  orgId: string;
  changes: NewsjackingSettingsChanges;
  /** Seeds the ids of new feeds, so a retried request decides the same ids. */
  idSeed: string;
  by: string | null;
  now: string;
};

export interface NewsjackingSettingsState {
  settings: NewsjackingSettings;
  updatedAt: string | null;
  updatedBy: string | null;
}

type Problems = ErrorDetail[];

/** A search term: trimmed, inner spaces collapsed, 1 to 100 characters; de-duplicated case-insensitively. */
function terms(values: readonly string[], path: string, problems: Problems): string[] {
  if (values.length > newsjackingLimits.listItems) {
    problems.push({ path, message: `at most ${newsjackingLimits.listItems} entries` });
    return [];
  }
  const out: string[] = [];
  const seen = new Set<string>();
  values.forEach((value, i) => {
    const text = value.trim().replace(/\s+/g, ' ');
    if (text.length === 0 || text.length > newsjackingLimits.termLength)
      problems.push({ path: `${path}.${i}`, message: `1 to ${newsjackingLimits.termLength} characters` });
    else if (!seen.has(text.toLowerCase())) {
      seen.add(text.toLowerCase());
      out.push(text);
    }
  });
  return out;
}

/**
 * A feed's address as stored: an absolute http(s) URL without credentials or fragment. Whether its host may be
 * reached is decided when it is fetched (infra/http/safe-fetch.ts), not here: names resolve differently over time.
 */
export function feedUrlOf(value: string): string | null {
  const text = value.trim();
  if (text.length === 0 || text.length > newsjackingLimits.urlLength) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) return null;
  url.hash = '';
  return url.href;
}

function feedsOf(
  inputs: readonly NewsFeedInput[],
  current: readonly NewsFeed[],
  idSeed: string,
  problems: Problems,
): NewsFeed[] {
  if (inputs.length > newsjackingLimits.feeds) {
    problems.push({ path: 'feeds', message: `at most ${newsjackingLimits.feeds} feeds` });
    return [];
  }
  const idOfUrl = new Map(current.map((f) => [f.url, f.id]));
  const ids = new Set<string>();
  const urls = new Set<string>();
  return inputs.map((input, i) => {
    const at = `feeds.${i}`;
    const url = feedUrlOf(input.url);
    if (url === null)
      problems.push({ path: `${at}.url`, message: 'an http or https address of an RSS, Atom or JSON feed' });
    else if (urls.has(url)) problems.push({ path: `${at}.url`, message: 'each feed once' });
    if (url) urls.add(url);
    const name = (input.name ?? '').trim().replace(/\s+/g, ' ') || (url ? new URL(url).hostname : '');
    if (name.length > newsjackingLimits.feedNameLength)
      problems.push({
        path: `${at}.name`,
        message: `at most ${newsjackingLimits.feedNameLength} characters`,
      });
    let id = input.id?.trim();
    if (id !== undefined && !newsjackingLimits.feedIdPattern.test(id)) {
      problems.push({ path: `${at}.id`, message: '1 to 64 letters, digits, _ or -' });
      id = undefined;
    }
    id ??= (url && idOfUrl.get(url)) || deterministicUuid(idSeed, 'news-feed', String(i));
    if (ids.has(id)) problems.push({ path: `${at}.id`, message: 'feed ids are unique' });
    ids.add(id);
    return { id, name, url: url ?? '', enabled: input.enabled ?? true };
  });
}

/** The settings after `changes`, normalised; every refused field named at once. */
export function applyNewsjackingChanges(
  current: NewsjackingSettings,
  changes: NewsjackingSettingsChanges,
  idSeed: string,
): NewsjackingSettings {
  const problems: Problems = [];
  const threshold = changes.alertThreshold ?? current.alertThreshold;
  if (!Number.isInteger(threshold) || threshold < 0 || threshold > 100)
    problems.push({ path: 'alertThreshold', message: 'an integer from 0 to 100' });
  const next: NewsjackingSettings = {
    enabled: changes.enabled ?? current.enabled,
    feeds:
      changes.feeds === undefined ? current.feeds : feedsOf(changes.feeds, current.feeds, idSeed, problems),
    keywords:
      changes.keywords === undefined ? current.keywords : terms(changes.keywords, 'keywords', problems),
    excludeTerms:
      changes.excludeTerms === undefined
        ? current.excludeTerms
        : terms(changes.excludeTerms, 'excludeTerms', problems),
    alertThreshold: threshold,
  };
  if (problems.length > 0) throw new InvalidFields('Invalid newsjacking settings', problems);
  return next;
}

export const newsjackingSettingsDecider: Decider<
  NewsjackingSettingsState,
  NewsjackingSettingsCommand,
  NewsjackingSettingsEvent
> = {
  initialState: { settings: defaultNewsjackingSettings, updatedAt: null, updatedBy: null },
  codec: newsjackingSettingsEventCodec,

  decide(command, state) {
    switch (command.type) {
      case 'UpdateNewsjackingSettings': {
        const settings = applyNewsjackingChanges(state.settings, command.changes, command.idSeed);
        // Saving what is saved changes nothing (a retry, or a form sent back untouched).
        if (state.updatedAt !== null && canonicalJson(settings) === canonicalJson(state.settings)) return [];
        return [
          {
            type: 'NewsjackingSettingsUpdated',
            data: { orgId: command.orgId, settings, updatedAt: command.now, updatedBy: command.by },
          },
        ];
      }
      default:
        return assertNever(command.type);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'NewsjackingSettingsUpdated':
        return {
          settings: event.data.settings,
          updatedAt: event.data.updatedAt,
          updatedBy: event.data.updatedBy,
        };
      default:
        return assertNever(event.type);
    }
  },
};

export interface NewsjackingSettingsView extends NewsjackingSettings {
  updatedAt: string | null;
  updatedBy: string | null;
}

export const newsjackingSettingsView = (state: NewsjackingSettingsState): NewsjackingSettingsView => ({
  ...state.settings,
  updatedAt: state.updatedAt,
  updatedBy: state.updatedBy,
});
