// Grapheme counting for the platforms that count user-perceived characters (Bluesky; Threads weighs each one),
// equal to walking the text with Intl.Segmenter but without handing it the whole text: V8's segmenter costs
// about a microsecond per grapheme and grows faster than the text (30,000 characters took most of a second).
//
// Most text is made of "plain" characters: letters, digits, punctuation, symbols and spaces of scripts whose
// characters never join (Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic, Han, Hiragana, Katakana,
// Bopomofo, Hangul syllables and the common ones), other than emoji, regional indicators, emoji modifiers and
// combining (Grapheme_Extend) characters. No rule of Unicode's grapheme clusters (UAX #29) keeps two plain
// characters together, and none looks back across one, so the text splits between any two of them: a plain
// character next to plain ones is a grapheme of its own, and only the stretches around other characters (emoji,
// marks, Indic scripts, control characters) go through the segmenter, a few hundred characters at a time.
// test/domain/graphemes.test.ts compares the counts with the segmenter's on generated texts.

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

const PLAIN = 1;
const PICTOGRAPHIC = 2;
const MARK = 4;

/** Longest stretch handed to the segmenter at once when the text offers a place to split it. */
const chunkLength = 256;

const plainPattern =
  /^(?![\p{Extended_Pictographic}\p{Regional_Indicator}\p{Emoji_Modifier}\p{Grapheme_Extend}])(?=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}\p{Script=Georgian}\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Script=Common}\uAC00-\uD7A3])[\p{L}\p{N}\p{P}\p{S}\p{Zs}]$/u;
const pictographicPattern = /^\p{Extended_Pictographic}$/u;
const markPattern = /^[\p{M}\p{Grapheme_Extend}\p{Emoji_Modifier}]$/u;

function classify(char: string): number {
  return (
    (plainPattern.test(char) ? PLAIN : 0) |
    (pictographicPattern.test(char) ? PICTOGRAPHIC : 0) |
    (markPattern.test(char) ? MARK : 0)
  );
}

let bmpTable: Uint8Array | undefined;

function bmpClasses(): Uint8Array {
  if (bmpTable) return bmpTable;
  const table = new Uint8Array(0x10000);
  for (let unit = 0; unit < 0x10000; unit++) {
    // Lone surrogates are no characters of any class.
    if (unit < 0xd800 || unit > 0xdfff) table[unit] = classify(String.fromCharCode(unit));
  }
  bmpTable = table;
  return table;
}

/**
 * Calls `visit` with each grapheme of `text`, or with `null` for a plain character (a grapheme on its own: no
 * emoji, BMP, one UTF-16 unit), so counting needs no substring; returns the sum of what `visit` returns.
 */
export function sumOverGraphemes(text: string, visit: (grapheme: string | null) => number): number {
  const table = bmpClasses();
  let total = 0;
  let pieceStart = 0;
  let previous = 0;
  const flush = (end: number) => {
    if (end === pieceStart) return;
    if (end === pieceStart + 1 && (table[text.charCodeAt(pieceStart)]! & PLAIN) !== 0) {
      total += visit(null);
    } else {
      for (const { segment } of segmenter.segment(text.slice(pieceStart, end))) total += visit(segment);
    }
    pieceStart = end;
  };
  for (let i = 0; i < text.length;) {
    const code = text.codePointAt(i)!;
    const width = code > 0xffff ? 2 : 1;
    const bits = width === 1 ? table[code]! : classify(String.fromCodePoint(code));
    if (i > 0) {
      // Between two plain characters there is always a break. Once the stretch is long, also before a plain
      // character or an emoji that follows a plain character, an emoji or a mark: no rule holds a plain
      // character to those, and an emoji is only held by a ZWJ (not among them) or a prefix such as U+0600
      // (none of them either).
      const bothPlain = (previous & PLAIN) !== 0 && (bits & PLAIN) !== 0;
      const longStretch =
        i - pieceStart >= chunkLength &&
        (bits & (PLAIN | PICTOGRAPHIC)) !== 0 &&
        (previous & (PLAIN | PICTOGRAPHIC | MARK)) !== 0;
      if (bothPlain || longStretch) flush(i);
    }
    previous = bits;
    i += width;
  }
  flush(text.length);
  return total;
}

/** The number of graphemes (user-perceived characters) in `text`, as Intl.Segmenter counts them. */
export function graphemeCount(text: string): number {
  return sumOverGraphemes(text, () => 1);
}
