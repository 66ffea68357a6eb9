import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as fontkit from 'fontkit';

/**
 * The invoice PDF's fonts, shipped in npm packages so a PDF looks the same on every machine:
 * Noto Sans (Latin with its extensions, Greek, Cyrillic, Vietnamese) and Noto Sans SC for Chinese
 * (simplified and traditional hanzi) and Japanese kana, which Noto Sans lacks. Neither covers
 * Korean Hangul, Arabic, Hebrew, Thai or the Indic scripts but Devanagari: such characters come out as empty boxes.
 */
export type FontFace = 'regular' | 'bold';
export type FontFamily = 'latin' | 'cjk';

const FILES: Record<FontFamily, Record<FontFace, string>> = {
  latin: {
    regular: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
    bold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  },
  cjk: {
    regular: '@expo-google-fonts/noto-sans-sc/400Regular/NotoSansSC_400Regular.ttf',
    bold: '@expo-google-fonts/noto-sans-sc/700Bold/NotoSansSC_700Bold.ttf',
  },
};

const require = createRequire(import.meta.url);
const parsed = new Map<string, fontkit.Font>();

/**
 * The font, parsed once per process and shared by every PDF (pdfkit takes a fontkit font as it is;
 * parsing the 10 MB CJK files for each document would cost more than the rest of the PDF). The CJK
 * ones are read only when a PDF needs them.
 */
export function loadFont(family: FontFamily, face: FontFace): fontkit.Font {
  const path = FILES[family][face];
  let font = parsed.get(path);
  if (!font) {
    font = fontkit.create(readFileSync(require.resolve(path))) as fontkit.Font;
    parsed.set(path, font);
  }
  return font;
}

/** Han ideographs, kana, bopomofo, CJK punctuation and full-width forms: drawn with Noto Sans SC. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\u3000-\u303f\u30fc\uff00-\uffef]/u;

/** The text cut into runs of one family each, in order. */
export function fontRuns(text: string): Array<{ family: FontFamily; text: string }> {
  const runs: Array<{ family: FontFamily; text: string }> = [];
  for (const char of text) {
    const family: FontFamily = CJK.test(char) ? 'cjk' : 'latin';
    const last = runs[runs.length - 1];
    if (last && last.family === family) last.text += char;
    else runs.push({ family, text: char });
  }
  return runs;
}
