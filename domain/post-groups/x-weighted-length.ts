// The length X gives a text: twitter-text's parseTweet weighting (config v3: URLs 23, emoji 2, characters 1 or
// 2 by range, after NFC), computed in time linear in the text. twitter-text finds URLs with one backtracking
// regular expression that is quadratic on long texts (a 12,500-character Japanese text with one "." took
// seconds) and its emoji parser builds an object per emoji; both would block the process on long posts.
//
// The result equals `parseTweet(text).weightedLength` (test/domain/x-weighted-length.test.ts compares them on
// generated texts): the URL regex is followed step by step with the same character classes, TLD lists,
// punycode and config that twitter-text uses, loaded from twitter-text itself, so an upgrade that changes them
// shows in that test. What it emulates:
//  - extractUrlsWithIndices: the global `extractUrl` search (preceding character, optional protocol, domain
//    labels with the greediest TLD, port, path, query), then per match the length and IDNA checks, the
//    protocol-less ASCII-domain rule (`validAsciiDomain`) and the t.co rule;
//  - parseTweet's loop over the NFC text: a URL entity counts transformedURLLength and skips its `url.length`,
//    an emoji (twemoji-parser's pattern) counts defaultWeight, any other character its range weight.
import { createRequire } from 'node:module';
import twitterText from 'twitter-text';

interface WeightConfig {
  scale: number;
  defaultWeight: number;
  transformedURLLength: number;
  emojiParsingEnabled?: boolean;
  ranges: { start: number; end: number; weight: number }[];
}

// twitter-text's own modules: the config parseTweet uses by default, its punycode package ("punycode/": Node's
// built-in one, which is what a bare require gets, is deprecated) and the emoji pattern of its twemoji-parser.
const twitterRequire = createRequire(createRequire(import.meta.url).resolve('twitter-text'));
const config = (twitterText as unknown as { configs: { defaults: WeightConfig } }).configs.defaults;
const punycode = twitterRequire('punycode/') as { toASCII(domain: string): string };
const twemojiPattern = (twitterRequire('twemoji-parser/dist/lib/regex') as { default: RegExp }).default;
const emojiPattern = new RegExp(twemojiPattern.source, twemojiPattern.flags.replace('g', '') + 'g');
// @types/twitter-text misspells validUrlQueryEndingChars (without the s); the library has the s.
const regexen = twitterText.regexen as typeof twitterText.regexen & { validUrlQueryEndingChars: RegExp };

/** twitter-text's maximum URL length (protocol included) and DNS label length. */
const maxUrlLength = 4096;
const maxLabelLength = 63;
const maxTcoSlugLength = 40;

// Per UTF-16 code unit, the character classes of the URL pattern (it has no `u` flag, so classes see code units).
const DOMAIN = 1; // validDomainChars
const PRECEDING = 2; // validUrlPrecedingChars (without its `^` alternative)
const PATH = 4; // validGeneralUrlPathChars
const PATH_END = 8; // the single-character part of validUrlPathEndingChars
const QUERY = 16; // validUrlQueryChars
const QUERY_END = 32; // validUrlQueryEndingChars
const ASCII_LABEL = 64; // the label characters of validAsciiDomain

let classTable: Uint8Array | undefined;

/** The label character class of validAsciiDomain: `(?:(?:[…]+)\.)+(?:tlds)`. */
export function asciiLabelClass(): string {
  const match = /^\(\?:\(\?:(\[[^\]]*\])\+\)\\\.\)\+/.exec(regexen.validAsciiDomain.source);
  if (!match?.[1]) throw new Error('twitter-text validAsciiDomain has an unexpected shape');
  return match[1];
}

function classes(): Uint8Array {
  if (classTable) return classTable;
  const single = (source: string) => new RegExp(`^(?:${source})$`, 'i');
  const tests: [number, RegExp][] = [
    [DOMAIN, single(regexen.validDomainChars.source)],
    // Its `^` alternative cannot match a character.
    [PRECEDING, single(regexen.validUrlPrecedingChars.source)],
    [PATH, single(regexen.validGeneralUrlPathChars.source)],
    // Its other alternative, balanced parentheses, is at least three characters long.
    [PATH_END, single(regexen.validUrlPathEndingChars.source)],
    [QUERY, single(regexen.validUrlQueryChars.source)],
    [QUERY_END, single(regexen.validUrlQueryEndingChars.source)],
    [ASCII_LABEL, single(asciiLabelClass())],
  ];
  const table = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    const char = String.fromCharCode(unit);
    let bits = 0;
    for (const [bit, test] of tests) if (test.test(char)) bits |= bit;
    table[unit] = bits;
  }
  classTable = table;
  return table;
}

/** The TLD alternatives that end validDomain and validAsciiDomain, tried at one position. */
const tldPattern = new RegExp(
  `(?:${regexen.validGTLD.source}|${regexen.validCCTLD.source}|${regexen.validPunycode.source})`,
  'iy',
);
const protocolPattern = /https?:\/\//iy;
const invalidPrecedingWithoutProtocol = regexen.invalidUrlWithoutProtocolPrecedingChars;
const tcoPattern = regexen.validTcoUrl;

const DOT = 0x2e;
const HYPHEN = 0x2d;
const UNDERSCORE = 0x5f;
const SLASH = 0x2f;
const COLON = 0x3a;
const QUESTION = 0x3f;
const OPEN = 0x28;
const CLOSE = 0x29;

/**
 * The lower-cased leading ASCII letters of every TLD of the lists ("com", "verm" for "vermögensberatung"), or
 * null when a list does not have the `(?:(?:a|b|…)(?=[^0-9a-zA-Z@+-]|$))` shape. A TLD starting with an ASCII
 * letter matches only where the run of ASCII letters and digits is exactly that prefix: the lookahead refuses
 * a letter or digit after it, and its next letter, if any, is not ASCII. Other runs need no regex.
 */
const tldAsciiPrefixes = ((): Set<string> | null => {
  const prefixes = new Set<string>();
  const open = '(?:(?:';
  const close = ')(?=[^0-9a-zA-Z@+-]|$))';
  for (const { source } of [regexen.validGTLD, regexen.validCCTLD]) {
    if (!source.startsWith(open) || !source.endsWith(close)) return null;
    for (const tld of source.slice(open.length, -close.length).split('|')) {
      if (!/^[^\\()[\]{}|?*+.^$]+$/.test(tld)) return null;
      prefixes.add(/^[a-z0-9]*/i.exec(tld)![0].toLowerCase());
    }
  }
  return prefixes;
})();

function isAsciiAlphanumeric(unit: number): boolean {
  return (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
}

/** Could the TLD alternatives match at `at`? False only where they certainly cannot. */
function mayStartTld(text: string, at: number): boolean {
  if (!tldAsciiPrefixes || !isAsciiAlphanumeric(text.charCodeAt(at))) return true;
  let end = at + 1;
  while (end < text.length && isAsciiAlphanumeric(text.charCodeAt(end))) end++;
  const run = text.slice(at, end).toLowerCase();
  // The punycode alternative, xn--…, has no lookahead.
  if (run === 'xn' && text.startsWith('--', end)) return true;
  return tldAsciiPrefixes.has(run);
}

/** Length of the TLD alternatives at `at`, or -1. */
function tldLengthAt(text: string, at: number): number {
  if (!mayStartTld(text, at)) return -1;
  tldPattern.lastIndex = at;
  return tldPattern.exec(text)?.[0].length ?? -1;
}

/** tldLengthAt memoised for one text. */
function tldMatcher(text: string): (at: number) => number {
  const memo = new Int32Array(text.length + 1).fill(-2);
  return (at) => {
    let length = memo[at]!;
    if (length === -2) {
      length = tldLengthAt(text, at);
      memo[at] = length;
    }
    return length;
  };
}

/**
 * Domain matching of one text: `dom(x)` is where `(?:SUB)*NAME(?:TLD)` matched at x ends, or -1.
 * A label of SUB is D(?:[_-]|D)*D or D before a "."; NAME the same without "_". Labels cannot hold a ".",
 * so each repetition has one way to match, and the regex's greedy backtracking settles on the most labels
 * after which a NAME label and a TLD follow: dom(x) = dom(after the first label) when that matches, else the
 * first label as NAME followed by a TLD.
 */
function domainMatcher(text: string, table: Uint8Array): (x: number) => number {
  const n = text.length;
  // First index at or after i that is not a label character (D, "-" or "_" / D or "-").
  const stopSub = new Int32Array(n + 1);
  const stopName = new Int32Array(n + 1);
  stopSub[n] = n;
  stopName[n] = n;
  for (let i = n - 1; i >= 0; i--) {
    const unit = text.charCodeAt(i);
    const domain = (table[unit]! & DOMAIN) !== 0;
    stopSub[i] = domain || unit === HYPHEN || unit === UNDERSCORE ? stopSub[i + 1]! : i;
    stopName[i] = domain || unit === HYPHEN ? stopName[i + 1]! : i;
  }
  const isDomain = (i: number) => (table[text.charCodeAt(i)]! & DOMAIN) !== 0;
  /** End of the SUB label at x (after its "."), or -1. */
  const sub = (x: number): number => {
    if (x >= n || !isDomain(x)) return -1;
    const stop = stopSub[x]!;
    return stop < n && text.charCodeAt(stop) === DOT && isDomain(stop - 1) ? stop + 1 : -1;
  };
  const tld = tldMatcher(text);
  const memo = new Int32Array(n + 1).fill(-2);
  const chain = new Int32Array(n + 1);
  const dom = (start: number): number => {
    // Follow the labels to the end of the chain (or to a known answer), then settle them from the back.
    let length = 0;
    let x = start;
    let answer = -1;
    for (;;) {
      const known = memo[x]!;
      if (known !== -2) {
        answer = known;
        break;
      }
      const next = sub(x);
      if (next < 0) {
        memo[x] = -1;
        break;
      }
      chain[length++] = x;
      x = next;
    }
    for (let i = length - 1; i >= 0; i--) {
      const label = chain[i]!;
      if (answer < 0 && stopName[label] === stopSub[label]) {
        const after = stopSub[label]! + 1;
        const length = tld(after);
        if (length >= 0) answer = after + length;
      }
      memo[label] = answer;
    }
    return answer;
  };
  return dom;
}

/** The end of the run of path characters from `from`. */
function pathRun(text: string, table: Uint8Array, from: number): number {
  let i = from;
  while (i < text.length && (table[text.charCodeAt(i)]! & PATH) !== 0) i++;
  return i;
}

/** Where a balanced-parentheses group `\((?:P+|P*\(P+\)P*)\)` at `at` ends, or -1. */
function parensEnd(text: string, table: Uint8Array, at: number): number {
  const n = text.length;
  if (at >= n || text.charCodeAt(at) !== OPEN) return -1;
  const first = pathRun(text, table, at + 1);
  if (first < n && text.charCodeAt(first) === CLOSE && first > at + 1) return first + 1;
  if (first < n && text.charCodeAt(first) === OPEN) {
    const inner = pathRun(text, table, first + 1);
    if (inner > first + 1 && inner < n && text.charCodeAt(inner) === CLOSE) {
      const rest = pathRun(text, table, inner + 1);
      if (rest < n && text.charCodeAt(rest) === CLOSE) return rest + 1;
    }
  }
  return -1;
}

/**
 * Where `\/(?:A|B|C)*` at `slash` ends. A = P*(?:G P*)*E (G the parentheses group, E a path-ending character):
 * it ends after the last E outside the groups of the run of P characters and groups that follows; once it has
 * taken that E, A cannot match again and only groups standing right there (B) extend the path. C (@P+/) is
 * never reached: its "/" is an E inside the same run, so A matches wherever C would.
 */
function pathEnd(text: string, table: Uint8Array, slash: number): number {
  const n = text.length;
  let i = slash + 1;
  let lastEnd = -1;
  for (;;) {
    while (i < n && (table[text.charCodeAt(i)]! & PATH) !== 0) {
      if ((table[text.charCodeAt(i)]! & PATH_END) !== 0) lastEnd = i;
      i++;
    }
    const group = parensEnd(text, table, i);
    if (group < 0) break;
    i = group;
  }
  let end = lastEnd >= 0 ? lastEnd + 1 : slash + 1;
  for (let group = parensEnd(text, table, end); group >= 0; group = parensEnd(text, table, end)) end = group;
  return end;
}

/** Where `\?Q*QE` at `mark` ends (after the last query-ending character of the run), or -1. */
function queryEnd(text: string, table: Uint8Array, mark: number): number {
  let last = -1;
  for (let i = mark + 1; i < text.length; i++) {
    const bits = table[text.charCodeAt(i)]!;
    if ((bits & QUERY) === 0) break;
    if ((bits & QUERY_END) !== 0) last = i;
  }
  return last >= 0 ? last + 1 : -1;
}

let asciiBest = new Int32Array(256);

/**
 * The strings validAsciiDomain (global) finds in `domain`, in order: `(?:(?:A+)\.)+(?:TLD)`. Labels are runs of
 * A before a ".", so as for the domain the greediest match from a position is the most labels after which a TLD
 * follows; computed for every position from the back.
 */
function asciiDomains(domain: string, table: Uint8Array): string[] {
  const n = domain.length;
  // best[i]: where the match from i ends (-1: none); runEnd: end of the run of A characters at i. Each position
  // after a "." has its TLD tried once. One buffer serves every call (domains are at most 4,096 long).
  if (asciiBest.length < n + 1) asciiBest = new Int32Array(n + 1);
  const best = asciiBest.fill(-1, 0, n + 1);
  let runEnd = n;
  for (let i = n - 1; i >= 0; i--) {
    if ((table[domain.charCodeAt(i)]! & ASCII_LABEL) === 0) {
      runEnd = i;
      continue;
    }
    if (runEnd < n && domain.charCodeAt(runEnd) === DOT) {
      const after = runEnd + 1;
      const deeper = best[after]!;
      if (deeper >= 0) {
        best[i] = deeper;
      } else {
        const length = tldLengthAt(domain, after);
        if (length >= 0) best[i] = after + length;
      }
    }
  }
  const found: string[] = [];
  for (let at = 0; at < n;) {
    const end = best[at]!;
    if (end > at) {
      found.push(domain.slice(at, end));
      at = end;
    } else {
      at++;
    }
  }
  return found;
}

/** twitter-text's idna.toAscii check: is `domain` one it accepts (labels of 1–63 characters once punycoded)? */
function validDomain(domain: string, table: Uint8Array): boolean {
  if (domain.startsWith('xn--') && asciiDomains(domain, table).length === 0) return false;
  let start = 0;
  let printable = true;
  for (let i = 0; i <= domain.length; i++) {
    const unit = i < domain.length ? domain.charCodeAt(i) : DOT;
    if (unit !== DOT) {
      if (unit < 0x20 || unit > 0x7e) printable = false;
      continue;
    }
    const length = i - start;
    if (length === 0) return false;
    // Printable ASCII is left as it is; anything else is punycoded, which writes at least one character per
    // code point, so a longer label cannot fit (and is not encoded).
    if (printable ? length > maxLabelLength : !punycodeFits(domain.slice(start, i))) return false;
    start = i + 1;
    printable = true;
  }
  return true;
}

function punycodeFits(label: string): boolean {
  let codePoints = 0;
  for (const _ of label) if (++codePoints > maxLabelLength) return false;
  const encoded = punycode.toASCII(label);
  return encoded.length >= 1 && encoded.length <= maxLabelLength;
}

/** URL entities as extractUrlsWithIndices reports them: where each starts and the length of its `url`. */
function urlEntities(text: string): { start: number; length: number }[] {
  const urls: { start: number; length: number }[] = [];
  if (!text.includes('.')) return urls;
  const table = classes();
  const n = text.length;
  const dom = domainMatcher(text, table);
  /** The URL from `q` on: its domain's start and end, or null. */
  const urlAt = (q: number): { domainStart: number; domainEnd: number } | null => {
    const first = text.charCodeAt(q) | 0x20;
    protocolPattern.lastIndex = q;
    const protocol = first === 0x68 ? protocolPattern.exec(text) : null;
    if (protocol) {
      const domainEnd = dom(q + protocol[0].length);
      if (domainEnd >= 0) return { domainStart: q + protocol[0].length, domainEnd };
    }
    const domainEnd = dom(q);
    return domainEnd >= 0 ? { domainStart: q, domainEnd } : null;
  };

  let from = 0;
  while (from < n) {
    // The global search: the first position where `(preceding)(url)` matches.
    let found: { before: string; q: number; domainStart: number; domainEnd: number } | null = null;
    for (let p = from; p < n && !found; p++) {
      if ((table[text.charCodeAt(p)]! & PRECEDING) !== 0) {
        const url = urlAt(p + 1);
        if (url) found = { before: text.charAt(p), q: p + 1, ...url };
      }
      if (!found && p === 0) {
        const url = urlAt(0);
        if (url) found = { before: '', q: 0, ...url };
      }
    }
    if (!found) break;
    const { before, q, domainStart, domainEnd } = found;

    let end = domainEnd;
    if (text.charCodeAt(end) === COLON) {
      let digits = end + 1;
      while (digits < n && text.charCodeAt(digits) >= 0x30 && text.charCodeAt(digits) <= 0x39) digits++;
      if (digits > end + 1) end = digits;
    }
    const hasPath = text.charCodeAt(end) === SLASH;
    if (hasPath) end = pathEnd(text, table, end);
    if (text.charCodeAt(end) === QUESTION) {
      const query = queryEnd(text, table, end);
      if (query >= 0) end = query;
    }
    from = end;

    // The body of extractUrlsWithIndices' loop for this match.
    const protocol = text.slice(q, domainStart);
    const urlLength = end - q;
    if ((protocol || 'https://').length + urlLength > maxUrlLength) continue;
    const domain = text.slice(domainStart, domainEnd);
    if (!validDomain(domain, table)) continue;
    if (!protocol) {
      if (invalidPrecedingWithoutProtocol.test(before)) continue;
      let last: { start: number; length: number } | null = null;
      let asciiEnd = 0;
      for (const ascii of asciiDomains(domain, table)) {
        const asciiStart = domain.indexOf(ascii, asciiEnd);
        asciiEnd = asciiStart + ascii.length;
        last = { start: q + asciiStart, length: ascii.length };
        urls.push(last);
      }
      if (!last) continue;
      // The URL's text with the domain replaced by the ASCII one: what parseTweet skips.
      if (hasPath) last.length = urlLength - domain.length + last.length;
    } else {
      let length = urlLength;
      const tco = domain.toLowerCase() === 't.co' ? tcoPattern.exec(text.slice(q, end)) : null;
      if (tco) {
        const slug = tco[1];
        if (slug && slug.length > maxTcoSlugLength) continue;
        length = tco[0].length;
      }
      urls.push({ start: q, length });
    }
  }
  return urls;
}

function characterWeight(unit: number): number {
  for (const range of config.ranges) {
    if (unit >= range.start && unit <= range.end) return range.weight;
  }
  return config.defaultWeight;
}

/** `twitterText.parseTweet(text).weightedLength`, in linear time. */
export function xWeightedLength(text: string): number {
  const normalized = text.normalize();
  const n = normalized.length;
  const urlAt = new Int32Array(n);
  for (const { start, length } of urlEntities(normalized)) urlAt[start] = length;
  const emojiAt = new Int32Array(n);
  if (config.emojiParsingEnabled) {
    emojiPattern.lastIndex = 0;
    for (let match = emojiPattern.exec(normalized); match; match = emojiPattern.exec(normalized)) {
      if (match[0].length === 0) {
        emojiPattern.lastIndex++;
        continue;
      }
      emojiAt[match.index] = match[0].length;
    }
  }
  let weighted = 0;
  for (let i = 0; i < n; i++) {
    const url = urlAt[i]!;
    if (url > 0) {
      weighted += config.transformedURLLength * config.scale;
      i += url - 1;
      continue;
    }
    const emoji = emojiAt[i]!;
    if (emoji > 0) {
      weighted += config.defaultWeight;
      i += emoji - 1;
      continue;
    }
    const unit = normalized.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i < n - 1) {
      const next = normalized.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    weighted += characterWeight(normalized.charCodeAt(i));
  }
  return weighted / config.scale;
}
