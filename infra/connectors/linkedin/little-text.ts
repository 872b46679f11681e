// LinkedIn's "little text" format for post commentary: reserved characters escaped so LinkedIn does not cut
// the text at them, and hashtags written as hashtag templates so they stay hashtags.
const reserved = /[\\|{}@[\]()<>#*_~]/g;

export function escapeLittleText(text: string): string {
  return text.replace(reserved, (c) => `\\${c}`);
}

/** A `#` starts a hashtag only at the start or after something that is not part of a word (or an entity). */
const hashtag = /(^|[^\p{L}\p{N}_&])#([\p{L}\p{N}_]+)/gu;

export function toLittleText(text: string): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(hashtag)) {
    const [whole, before = '', tag = ''] = match;
    const start = match.index;
    out += escapeLittleText(text.slice(last, start) + before);
    out += `{hashtag|\\#|${escapeLittleText(tag)}}`;
    last = start + whole.length;
  }
  return out + escapeLittleText(text.slice(last));
}

/**
 * Little text read back as plain text: hashtag templates as `#tag`, mention templates (`@[Name](urn:…)`) as the
 * name, and escaped reserved characters as themselves.
 */
export function fromLittleText(text: string): string {
  return text
    .replace(/\{hashtag\|\\?#\|((?:\\.|[^}])+)\}/g, (_, tag: string) => `#${tag}`)
    .replace(/@\[((?:\\.|[^\]])+)\]\(urn:li:[^)]+\)/g, (_, name: string) => name)
    .replace(/\\([\\|{}@[\]()<>#*_~])/g, '$1');
}
