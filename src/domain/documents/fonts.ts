import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type PDFDocument from "pdfkit";

/**
 * Fonts for generated documents.
 *
 * The PDF standard fonts only cover WinAnsi, so "Łódź" would come out wrong; we embed DejaVu Sans
 * Condensed instead (Latin incl. Central European, Greek, Cyrillic; condensed so an eight-column
 * line table fits A4). The TTF files are committed beside this module (licence in
 * fonts/LICENSE-DejaVu.txt), so a fresh machine needs nothing beyond `npm install`. pdfkit subsets
 * them: a PDF carries only the glyphs it uses.
 */

export const FONT_REGULAR = "Document-Regular";
export const FONT_BOLD = "Document-Bold";

/** A parsed fontkit font; pdfkit only needs to know it is one (it checks for `layout`). */
interface ParsedFont {
  layout(...args: unknown[]): unknown;
}

interface Fontkit {
  create(data: Uint8Array): ParsedFont;
}

interface DocumentFonts {
  readonly regular: ParsedFont;
  readonly bold: ParsedFont;
}

// Parsed once per process and shared by every document. Handing pdfkit a file buffer would make it
// re-parse the font tables (GSUB/GPOS, cmap, ...) for each PDF, which is most of the time a small
// order takes; pdfkit (>= 0.16) accepts an already-parsed fontkit font and still subsets it per
// document. The fonts are only ever read, and a PDF is laid out synchronously, so sharing is safe.
let cached: DocumentFonts | undefined;

function documentFonts(): DocumentFonts {
  if (!cached) {
    const fontkit = loadFontkit();
    const parse = (file: string) => fontkit.create(readFileSync(new URL(`./fonts/${file}`, import.meta.url)));
    cached = { regular: parse("DejaVuSansCondensed.ttf"), bold: parse("DejaVuSansCondensed-Bold.ttf") };
  }
  return cached;
}

/**
 * fontkit is pdfkit's own font parser. Resolving it from pdfkit's location gives the very copy pdfkit
 * depends on, without declaring a second dependency that could drift from it.
 */
function loadFontkit(): Fontkit {
  const requireFromPdfkit = createRequire(import.meta.resolve("pdfkit"));
  return requireFromPdfkit("fontkit") as Fontkit;
}

/** Makes FONT_REGULAR and FONT_BOLD usable in `doc.font(...)`. */
export function registerDocumentFonts(doc: InstanceType<typeof PDFDocument>): void {
  const fonts = documentFonts();
  // @types/pdfkit lags pdfkit here: it doesn't list fontkit fonts among the accepted sources.
  doc.registerFont(FONT_REGULAR, fonts.regular as unknown as Buffer);
  doc.registerFont(FONT_BOLD, fonts.bold as unknown as Buffer);
}
