// X handles and subreddit names as the engagement slice keeps them (issue 30): written without `@` or `r/`, checked
// against the platforms' own rules, compared case-insensitively (X and Reddit treat `Alex` and `alex` as one).
import { InvalidFields } from '../shared/errors.js';

/** An X handle: 1 to 15 letters, digits or underscores (X's rule), without the `@`. */
export const xHandlePattern = /^[A-Za-z0-9_]{1,15}$/;
/** A subreddit name: 2 to 21 letters, digits or underscores (Reddit's rule), without `r/`. */
export const subredditPattern = /^[A-Za-z0-9_]{2,21}$/;

/**
 * The handle in `input` without what people paste around it: spaces, a leading `@`, a profile URL
 * (`https://x.com/alex`, `twitter.com/alex/`); null when what is left is not an X handle.
 */
export function normalizeXHandle(input: string): string | null {
  let handle = input.trim();
  const url = /^(?:https?:\/\/)?(?:www\.|mobile\.)?(?:x|twitter)\.com\/([^/?#]+)\/?(?:[?#].*)?$/i.exec(
    handle,
  );
  if (url) handle = url[1]!;
  handle = handle.replace(/^@/, '');
  return xHandlePattern.test(handle) ? handle : null;
}

/** The subreddit in `input` without `r/`, `/r/` or a reddit.com URL; null when it is not a subreddit name. */
export function normalizeSubreddit(input: string): string | null {
  let name = input.trim();
  const url = /^(?:https?:\/\/)?(?:www\.|old\.)?reddit\.com\/r\/([^/?#]+)\/?(?:[?#].*)?$/i.exec(name);
  if (url) name = url[1]!;
  name = name.replace(/^\/?r\//i, '');
  return subredditPattern.test(name) ? name : null;
}

/** An X community id: its digits (X's ids are 64-bit integers). */
export const xCommunityIdPattern = /^[0-9]{1,19}$/;

/** The community in `input`: its id, or its page (`https://x.com/i/communities/<id>`); null when neither. */
export function normalizeXCommunity(input: string): string | null {
  let id = input.trim();
  const url = /^(?:https?:\/\/)?(?:www\.)?(?:x|twitter)\.com\/i\/communities\/([0-9]+)\/?(?:[?#].*)?$/i.exec(
    id,
  );
  if (url) id = url[1]!;
  return xCommunityIdPattern.test(id) ? id : null;
}

/** The key two spellings of one handle share. */
export const handleKey = (handle: string) => handle.toLowerCase();

/** The handle, or an InvalidFields naming `path`. */
export function requireXHandle(input: string, path: string): string {
  const handle = normalizeXHandle(input);
  if (handle === null)
    throw new InvalidFields('Invalid X handle', [
      { path, message: 'an X handle: 1 to 15 letters, digits or underscores, with or without @' },
    ]);
  return handle;
}

/** The person's profile on X. */
export const xProfileUrl = (handle: string) => `https://x.com/${handle}`;
