import { fontRuns, loadFont, type FontFace, type FontFamily } from './fonts.js';

/** Text on a pdfkit page: each script in its font (Latin, CJK), cut or wrapped to a width. */
export class PdfText {
  private readonly registered = new Set<string>();

  constructor(protected readonly doc: PDFKit.PDFDocument) {}

  protected font(family: FontFamily, face: FontFace): string {
    const name = `${family}-${face}`;
    if (!this.registered.has(name)) {
      this.doc.registerFont(name, loadFont(family, face) as unknown as Buffer); // pdfkit embeds a parsed fontkit font as it is
      this.registered.add(name);
    }
    return name;
  }

  protected widthOf(text: string, size: number, face: FontFace): number {
    let width = 0;
    for (const run of fontRuns(text)) width += this.doc.font(this.font(run.family, face)).fontSize(size).widthOfString(run.text);
    return width;
  }

  /**
   * One line of text at (x, y), each script in its font; `align: 'right'` ends it at x + width.
   * Text wider than `width` is cut with an ellipsis (callers wrap what may be long).
   */
  protected text(
    text: string,
    x: number,
    y: number,
    options: { size: number; face?: FontFace; color?: string; width?: number; align?: 'left' | 'right' | 'center' },
  ) {
    const face = options.face ?? 'regular';
    let shown = text;
    let width = this.widthOf(shown, options.size, face);
    if (options.width !== undefined && width > options.width) {
      while (shown.length > 1 && this.widthOf(`${shown}…`, options.size, face) > options.width) shown = [...shown].slice(0, -1).join('');
      shown = `${shown}…`;
      width = this.widthOf(shown, options.size, face);
    }
    let cursor = x;
    if (options.width !== undefined && options.align === 'right') cursor = x + options.width - width;
    if (options.width !== undefined && options.align === 'center') cursor = x + (options.width - width) / 2;
    this.doc.fillColor(options.color ?? '#000000');
    for (const run of fontRuns(shown)) {
      this.doc.font(this.font(run.family, face)).fontSize(options.size).text(run.text, cursor, y, { lineBreak: false });
      cursor += this.doc.widthOfString(run.text);
    }
  }

  /** The text broken into lines of at most `width` points: at spaces, between CJK characters, and inside a word only when it alone is too wide. */
  protected wrap(text: string, width: number, size: number, face: FontFace = 'regular'): string[] {
    const tokens = text.split(/(\s+)/).flatMap((token) => (fontRuns(token).some((r) => r.family === 'cjk') ? [...token] : [token]));
    const lines: string[] = [];
    let current = '';
    const push = () => {
      if (current.trim()) lines.push(current.trim());
      current = '';
    };
    for (const token of tokens) {
      if (this.widthOf(current + token, size, face) <= width) {
        current += token;
        continue;
      }
      push();
      if (/^\s+$/.test(token)) continue;
      let rest = token;
      while (this.widthOf(rest, size, face) > width) {
        let cut = [...rest];
        while (cut.length > 1 && this.widthOf(cut.join(''), size, face) > width) cut = cut.slice(0, -1);
        lines.push(cut.join(''));
        rest = [...rest].slice(cut.length).join('');
      }
      current = rest;
    }
    push();
    return lines.length > 0 ? lines : [''];
  }
}
