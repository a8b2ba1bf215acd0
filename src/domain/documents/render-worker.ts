import { type TextOrBytes, textOf } from "../../db/text-bytes.ts";
import { renderPurchaseOrderPdf } from "./purchase-order-pdf.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";
import { ONLINE, RENDER_NICENESS, setProcessNiceness } from "./render-process.ts";

/**
 * A PDF renderer of the render pool (render-pool.ts), run as a child process (render-process.ts):
 * renders one document at a time and sends the bytes back. Built as its own bundle
 * (scripts/build.mjs) beside dist/server.mjs.
 */

/**
 * A document to render. A big order's lines may come as the JSON text the database wrote
 * (purchase-orders/line-text.ts), `document.lines` then empty: this thread parses them, so the API's
 * event loop neither presents 500 lines nor copies 500 objects to the thread (issue 18 item 2).
 */
export interface DocumentSource {
  readonly document: PurchaseOrderDocument;
  /** In pieces whose concatenation is the text (purchase-orders/text-read.ts). */
  readonly linesJson?: readonly TextOrBytes[];
}

export interface RenderRequest extends DocumentSource {
  readonly receivingCopy: boolean;
}

/** The document with its lines in place. */
export function documentOf(source: DocumentSource): PurchaseOrderDocument {
  return source.linesJson === undefined
    ? source.document
    : { ...source.document, lines: JSON.parse(source.linesJson.map(textOf).join("")) };
}

export type RenderResponse =
  | { readonly id: number; readonly pdf: Uint8Array }
  | { readonly id: number; readonly error: string };

/** Renders one request; the answer's bytes are the PDF's own (a pooled Buffer's are copied out). */
async function answer(message: RenderRequest & { id: number }): Promise<RenderResponse> {
  try {
    const pdf = await renderPurchaseOrderPdf(documentOf(message), { receivingCopy: message.receivingCopy });
    return { id: message.id, pdf: new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength) };
  } catch (error) {
    return { id: message.id, error: error instanceof Error ? error.message : String(error) };
  }
}

// Run as a render process (render-process.ts): renders one document at a time, in the order sent.
// The parent gone (the service stopped or crashed), the process ends with it.
if (process.env.STOCKROOM_RENDER_PROCESS === "1" && process.send) {
  // Every thread of this process to RENDER_NICENESS; where not permitted (a sandbox) renders keep the
  // priority they had.
  setProcessNiceness(process.pid, RENDER_NICENESS);
  let renders = Promise.resolve();
  process.on("message", (message: RenderRequest & { id: number }) => {
    renders = renders.then(async () => {
      process.send!(await answer(message));
    });
  });
  process.on("disconnect", () => process.exit(0));
  process.send(ONLINE);
}
