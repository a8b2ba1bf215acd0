import type PDFDocument from "pdfkit";
import { shipToLines, splitLines } from "./address-format.ts";
import { FONT_BOLD, FONT_REGULAR, registerDocumentFonts } from "./fonts.ts";
import { countLabel, taxLabel } from "./labels.ts";
import {
  type Cell,
  type Column,
  layoutColumns,
  PRICED_COLUMNS,
  printedLines,
  RECEIVING_COLUMNS,
} from "./pdf-columns.ts";
import {
  formatAmount,
  formatInteger,
  formatMoney,
  formatTimestampAsDate,
  humanize,
  oneLine,
  parseTimestamp,
  storeLines,
  supplierLines,
} from "./pdf-text.ts";
import type { PurchaseOrderDocument, PurchaseOrderLineView } from "./purchase-order-view.ts";

/**
 * Purchase order PDF: the priced order sent to the supplier, or (receivingCopy) the sheet the
 * warehouse counts a delivery on, which shows quantities only and never a price.
 *
 * Layout is drawn at explicit coordinates and page breaks are decided here, row by row, so the
 * table header can repeat on every page; pdfkit only flows the free-text notes by itself. Pages
 * are buffered so "Page X of Y" can be written once the total is known.
 */

type Pdf = InstanceType<typeof PDFDocument>;

let pdfkit: typeof PDFDocument | undefined;
/** pdfkit is loaded on the first document, not at start: ~20 MB an API process may never need. */
async function loadPdfkit(): Promise<typeof PDFDocument> {
  pdfkit ??= (await import("pdfkit")).default;
  return pdfkit;
}

export interface RenderOptions {
  readonly receivingCopy: boolean;
}

// A4 in points; the top and bottom margins hold the running header and the footer.
const PAGE = { size: "A4", left: 40, right: 40, top: 56, bottom: 48 } as const;
const COLOR = { text: "#1a1a1a", muted: "#5c5c5c", rule: "#d0d0d0", band: "#ececec", box: "#808080" };
const SIZE = { body: 8.5, small: 7.5, table: 8, heading: 16, storeName: 14 };
const CELL_PAD_X = 3;
const CELL_PAD_Y = 4;

interface Style {
  readonly bold?: boolean;
  readonly size?: number;
  readonly color?: string;
}

export async function renderPurchaseOrderPdf(
  doc: PurchaseOrderDocument,
  opts: RenderOptions,
): Promise<Buffer> {
  const title = `Purchase order ${doc.number}`;
  const stamp = parseTimestamp(doc.updated_at ?? doc.created_at);
  const pdf = new (await loadPdfkit())({
    size: PAGE.size,
    margins: { top: PAGE.top, bottom: PAGE.bottom, left: PAGE.left, right: PAGE.right },
    bufferPages: true,
    // Fixed from the order so re-rendering an unchanged order gives the same metadata.
    info: {
      Title: opts.receivingCopy ? `${title} (receiving copy)` : title,
      Author: doc.store.name,
      Subject: opts.receivingCopy ? "Receiving copy" : `Purchase order for ${doc.supplier.name}`,
      Creator: "Stockroom",
      Producer: "Stockroom",
      ...(stamp ? { CreationDate: stamp, ModDate: stamp } : {}),
    },
    lang: "en",
    displayTitle: true,
  });
  const done = collect(pdf);
  registerDocumentFonts(pdf);

  const r = new Renderer(pdf, { ...doc, lines: printedLines(doc.lines, opts.receivingCopy) }, opts);
  r.draw();
  pdf.end();
  return done;
}

function collect(pdf: Pdf): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
}

class Renderer {
  private readonly left: number;
  private readonly width: number;
  private readonly columns: { column: Column; x: number; width: number }[];
  private style: Required<Style> = { bold: false, size: SIZE.body, color: COLOR.text };

  constructor(
    private readonly pdf: Pdf,
    private readonly doc: PurchaseOrderDocument,
    private readonly opts: RenderOptions,
  ) {
    this.left = PAGE.left;
    this.width = pdf.page.width - PAGE.left - PAGE.right;
    this.columns = layoutColumns(
      opts.receivingCopy ? RECEIVING_COLUMNS : PRICED_COLUMNS,
      this.left,
      this.width,
    );
  }

  draw(): void {
    this.apply({});
    // Pages after the first (ours or pdfkit's, when notes flow over) get a running header.
    this.pdf.on("pageAdded", () => this.runningHeader());
    let y = this.header(PAGE.top - 16);
    y = this.parties(y + 18);
    y = this.linesTable(y + 16);
    y = this.opts.receivingCopy ? this.receivingSummary(y + 12) : this.totals(y + 12);
    this.notes(y + 16);
    this.footers();
  }

  // --- text primitives ---------------------------------------------------------------------

  private apply(style: Style): void {
    this.style = { bold: false, size: SIZE.body, color: COLOR.text, ...style };
    this.pdf.font(this.style.bold ? FONT_BOLD : FONT_REGULAR, this.style.size).fillColor(this.style.color);
  }

  private lineHeight(): number {
    return this.pdf.currentLineHeight(true);
  }

  /** Height `value` takes in `width`, capped at `maxLines` lines; measured in the current style. */
  private measure(value: string, width: number, maxLines: number): number {
    if (value === "") return 0;
    const full = this.pdf.heightOfString(value, { width });
    return Math.min(full, maxLines * this.lineHeight());
  }

  /**
   * Writes `value` in a box of `width`, wrapping to at most `maxLines` lines and ending with an
   * ellipsis when it is longer. A bounded height also keeps pdfkit from starting a page by itself.
   * Returns the height used.
   */
  private write(
    value: string,
    x: number,
    y: number,
    width: number,
    style: Style = {},
    maxLines = 1,
    align: "left" | "right" | "center" = "left",
  ): number {
    this.apply(style);
    const height = this.measure(value, width, maxLines);
    if (height === 0) return 0;
    // Slack so float rounding never drops the last allowed line.
    this.pdf.text(value, x, y, { width, height: height + 0.5, ellipsis: true, align });
    return height;
  }

  // --- page furniture ----------------------------------------------------------------------

  /**
   * Drawn from pdfkit's pageAdded event, possibly in the middle of flowing the notes: pdfkit goes on
   * from the document's current position and font afterwards, so both are put back.
   */
  private runningHeader(): void {
    const saved = { style: this.style, x: this.pdf.x, y: this.pdf.y };
    const y = 24;
    const label = this.opts.receivingCopy ? "Receiving copy" : "Purchase order";
    this.write(
      `${this.doc.store.name} · ${label} ${this.doc.number} (continued)`,
      this.left,
      y,
      this.width * 0.7,
      {
        size: SIZE.small,
        color: COLOR.muted,
      },
    );
    this.write(
      this.doc.supplier.name,
      this.left + this.width * 0.7,
      y,
      this.width * 0.3,
      {
        size: SIZE.small,
        color: COLOR.muted,
      },
      1,
      "right",
    );
    this.rule(y + 12, COLOR.rule);
    this.apply(saved.style);
    this.pdf.x = saved.x;
    this.pdf.y = saved.y;
  }

  /** "Page X of Y" on every page, written once all pages exist. */
  private footers(): void {
    const { start, count } = this.pdf.bufferedPageRange();
    const label = `${this.opts.receivingCopy ? "Receiving copy" : "Purchase order"} ${this.doc.number}`;
    for (let i = 0; i < count; i++) {
      this.pdf.switchToPage(start + i);
      const y = this.pdf.page.height - PAGE.bottom + 18;
      const style = { size: SIZE.small, color: COLOR.muted };
      this.write(label, this.left, y, this.width / 2, style);
      this.write(
        `Page ${i + 1} of ${count}`,
        this.left + this.width / 2,
        y,
        this.width / 2,
        style,
        1,
        "right",
      );
    }
  }

  private rule(y: number, color: string, x = this.left, width = this.width): void {
    this.pdf
      .moveTo(x, y)
      .lineTo(x + width, y)
      .lineWidth(0.5)
      .strokeColor(color)
      .stroke();
  }

  private bottom(): number {
    return this.pdf.page.height - PAGE.bottom;
  }

  /** Starts a new page when `height` doesn't fit below `y`; returns where to draw. */
  private ensureRoom(y: number, height: number): number {
    if (y + height <= this.bottom()) return y;
    this.pdf.addPage();
    return PAGE.top;
  }

  // --- first-page blocks -------------------------------------------------------------------

  /** Store on the left; document title, number and key dates on the right. */
  private header(top: number): number {
    const { doc } = this;
    const leftWidth = this.width * 0.55;
    let yl = top;
    yl += this.write(doc.store.name, this.left, yl, leftWidth, { bold: true, size: SIZE.storeName }, 2);
    yl += 2;
    for (const line of storeLines(doc.store)) {
      yl += this.write(line, this.left, yl, leftWidth, { color: COLOR.muted }, 2);
    }

    const rx = this.left + leftWidth;
    const rw = this.width - leftWidth;
    let yr = top;
    const heading = this.opts.receivingCopy
      ? "RECEIVING COPY"
      : doc.type === "return"
        ? "RETURN ORDER"
        : "PURCHASE ORDER";
    yr += this.write(heading, rx, yr, rw, { bold: true, size: SIZE.heading }, 1, "right");
    yr += this.write(doc.number, rx, yr + 2, rw, { bold: true, size: 12 }, 1, "right") + 6;
    const timezone = doc.store.timezone ?? "UTC";
    const facts: [string, string | null | undefined][] = [
      doc.ordered_at
        ? ["Order date", formatTimestampAsDate(doc.ordered_at, timezone)]
        : ["Created", formatTimestampAsDate(doc.created_at, timezone)],
      ["Expected", doc.expected_at],
      ["Reference", doc.reference],
      ["Supplier ref.", doc.supplier_order_number],
      ["Account no.", doc.account_number ?? doc.supplier.account_number],
    ];
    if (this.opts.receivingCopy) {
      // The order's state is ours: the warehouse may use it, the supplier's copy leaves it off.
      facts.splice(2, 0, ["Status", humanize(doc.status)]);
    } else {
      facts.push(["Payment due", doc.payment_due_on], ["Currency", doc.totals.currency]);
    }
    for (const [label, value] of facts) {
      if (!value) continue;
      this.write(label, rx, yr, rw * 0.45, { color: COLOR.muted });
      yr += Math.max(this.write(value, rx + rw * 0.45, yr, rw * 0.55, {}, 2, "right"), this.lineHeight());
    }
    return Math.max(yl, yr);
  }

  /** Supplier, ship-to and bill-to side by side. */
  private parties(top: number): number {
    const { doc } = this;
    const gutter = 14;
    const width = (this.width - 2 * gutter) / 3;
    const blocks: [string, string[]][] = [
      ["Supplier", supplierLines(doc.supplier)],
      ["Ship to", shipToLines(doc)],
      [
        "Bill to",
        doc.bill_to ? splitLines(doc.bill_to) : [doc.store.name, ...(doc.store.address_lines ?? [])],
      ],
    ];
    let bottom = top;
    blocks.forEach(([label, lines], i) => {
      const x = this.left + i * (width + gutter);
      let y = top;
      y +=
        this.write(label.toUpperCase(), x, y, width, { bold: true, size: SIZE.small, color: COLOR.muted }) +
        3;
      lines.forEach((line, n) => {
        y += this.write(line, x, y, width, { bold: n === 0 }, 3);
      });
      bottom = Math.max(bottom, y);
    });
    return bottom;
  }

  // --- lines table -------------------------------------------------------------------------

  private tableHeader(top: number): number {
    this.apply({ bold: true, size: SIZE.small });
    const height = this.lineHeight() + 2 * CELL_PAD_Y;
    this.pdf.rect(this.left, top, this.width, height).fill(COLOR.band);
    for (const { column, x, width } of this.columns) {
      this.write(
        column.label,
        x + CELL_PAD_X,
        top + CELL_PAD_Y,
        width - 2 * CELL_PAD_X,
        {
          bold: true,
          size: SIZE.small,
        },
        1,
        column.align,
      );
    }
    return top + height;
  }

  private linesTable(top: number): number {
    const { lines } = this.doc;
    let y = this.ensureRoom(top, 80);
    y = this.tableHeader(y);
    lines.forEach((line, index) => {
      const cells = this.columns.map(({ column }) => column.cell(line, index));
      const height = this.rowHeight(cells) + 2 * CELL_PAD_Y;
      if (y + height > this.bottom()) {
        this.pdf.addPage();
        y = this.tableHeader(PAGE.top);
      }
      this.drawRow(cells, y, height);
      y += height;
      this.rule(y, COLOR.rule);
    });
    if (lines.length === 0) {
      y += this.write("No lines.", this.left + CELL_PAD_X, y + CELL_PAD_Y, this.width, {
        color: COLOR.muted,
      });
      y += 2 * CELL_PAD_Y;
    }
    return y;
  }

  private rowHeight(cells: Cell[]): number {
    let height = 0;
    cells.forEach((cell, i) => {
      const inner = this.columns[i].width - 2 * CELL_PAD_X;
      height = Math.max(height, this.cellHeight(cell, inner));
    });
    return height;
  }

  private cellHeight(cell: Cell, width: number): number {
    switch (cell.kind) {
      case "text":
        this.apply({ size: SIZE.table });
        return Math.max(this.measure(cell.text, width, cell.maxLines), this.lineHeight());
      case "box":
        return 14;
      case "item":
        return this.itemParts(cell.line).reduce((sum, part) => {
          this.apply(part.style);
          return sum + this.measure(part.text, width, part.maxLines);
        }, 0);
    }
  }

  /** Product title (bold), variant title, then the note for the supplier. */
  private itemParts(line: PurchaseOrderLineView): { text: string; style: Style; maxLines: number }[] {
    const parts = [
      {
        text: oneLine(line.product_title) || "Untitled item",
        style: { bold: true, size: SIZE.table },
        maxLines: 2,
      },
      { text: oneLine(line.variant_title), style: { size: SIZE.table, color: COLOR.muted }, maxLines: 2 },
      { text: oneLine(line.supplier_note), style: { size: SIZE.small, color: COLOR.muted }, maxLines: 3 },
    ];
    return parts.filter((part) => part.text !== "");
  }

  private drawRow(cells: Cell[], top: number, height: number): void {
    cells.forEach((cell, i) => {
      const { column, x, width } = this.columns[i];
      const innerX = x + CELL_PAD_X;
      const innerWidth = width - 2 * CELL_PAD_X;
      const y = top + CELL_PAD_Y;
      switch (cell.kind) {
        case "text":
          this.write(cell.text, innerX, y, innerWidth, { size: SIZE.table }, cell.maxLines, column.align);
          break;
        case "box":
          this.pdf
            .rect(innerX, top + (height - 14) / 2, innerWidth, 14)
            .lineWidth(0.75)
            .strokeColor(COLOR.box)
            .stroke();
          break;
        case "item": {
          let py = y;
          for (const part of this.itemParts(cell.line)) {
            py += this.write(part.text, innerX, py, innerWidth, part.style, part.maxLines);
          }
          break;
        }
      }
    });
  }

  // --- after the table ---------------------------------------------------------------------

  /** Subtotal, each charge, tax and total, right-aligned, kept together on one page. */
  private totals(top: number): number {
    const { doc } = this;
    const { totals } = doc;
    const rows: [string, string][] = [["Subtotal", formatAmount(totals.subtotal)]];
    for (const charge of doc.charges) {
      const label = oneLine(charge.label) || humanize(charge.kind);
      // A charge billed in another currency shows its original amount beside the converted one.
      const original =
        charge.currency !== totals.currency ? ` (${formatMoney(charge.amount, charge.currency)})` : "";
      rows.push([`${label}${original}`, formatAmount(charge.amount_in_order_currency)]);
    }
    if (doc.charges.length > 1) rows.push(["Charges", formatAmount(totals.charges)]);
    rows.push([taxLabel(doc.tax), formatAmount(totals.tax)]);

    this.apply({});
    const rowHeight = this.lineHeight() + 4;
    const height = (rows.length + 1) * rowHeight + 12;
    let y = this.ensureRoom(top, height);
    const width = 250;
    const x = this.left + this.width - width;
    const valueWidth = 90;
    for (const [label, value] of rows) {
      this.write(label, x, y, width - valueWidth - 6, { color: COLOR.muted });
      this.write(value, x + width - valueWidth, y, valueWidth, {}, 1, "right");
      y += rowHeight;
    }
    this.rule(y, COLOR.text, x, width);
    y += 4;
    this.write("Total", x, y, width - valueWidth - 6, { bold: true, size: 10 });
    this.write(
      formatMoney(totals.total, totals.currency),
      x + width - 130,
      y,
      130,
      { bold: true, size: 10 },
      1,
      "right",
    );
    return y + rowHeight + 4;
  }

  /** Unit counts and a sign-off line for whoever counted the delivery. */
  private receivingSummary(top: number): number {
    const sum = (pick: (line: PurchaseOrderLineView) => number) =>
      this.doc.lines.reduce((total, line) => total + pick(line), 0);
    const summary =
      `${countLabel(this.doc.lines.length, "line")} · Ordered ${formatInteger(sum((l) => l.quantity))}` +
      ` · Received ${formatInteger(sum((l) => l.received_quantity))}` +
      ` · Outstanding ${formatInteger(sum((l) => l.outstanding_quantity))}`;
    let y = this.ensureRoom(top, 70);
    y += this.write(summary, this.left, y, this.width, { bold: true }) + 24;
    const fields = ["Counted by", "Date", "Signature"];
    const width = (this.width - 2 * 20) / fields.length;
    fields.forEach((label, i) => {
      const x = this.left + i * (width + 20);
      this.rule(y, COLOR.box, x, width);
      this.write(label, x, y + 3, width, { size: SIZE.small, color: COLOR.muted });
    });
    return y + 16;
  }

  /** Free text; pdfkit flows it onto further pages (which get the running header). */
  private notes(top: number): void {
    const notes = this.doc.notes?.trim();
    if (!notes) return;
    this.apply({});
    let y = this.ensureRoom(top, 3 * this.lineHeight() + 12);
    y +=
      this.write("NOTES", this.left, y, this.width, { bold: true, size: SIZE.small, color: COLOR.muted }) + 3;
    this.apply({});
    this.pdf.text(notes, this.left, y, { width: this.width });
  }
}
