import { setPriority } from "node:os";
import { parentPort } from "node:worker_threads";
import { type TextOrBytes, textOf } from "../../db/text-bytes.ts";
import { renderPurchaseOrderPdf } from "./purchase-order-pdf.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";

/**
 * A PDF thread of the render pool (render-pool.ts): renders one document at a time and hands the
 * bytes back without copying them. Built as its own bundle (scripts/build.mjs) beside dist/server.mjs.
 */

/**
 * A document to render. A big order's lines may come as the JSON text the database wrote
 * (purchase-orders/line-text.ts), `document.lines` then empty: this thread parses them, so the API's
 * event loop neither presents 500 lines nor copies 500 objects to the thread (issue 18 item 2).
 */
export interface DocumentSource {
  readonly document: PurchaseOrderDocument;
  readonly linesJson?: TextOrBytes;
}

export interface RenderRequest extends DocumentSource {
  readonly receivingCopy: boolean;
}

/** The document with its lines in place. */
export function documentOf(source: DocumentSource): PurchaseOrderDocument {
  return source.linesJson === undefined
    ? source.document
    : { ...source.document, lines: JSON.parse(textOf(source.linesJson)) };
}

export type RenderResponse =
  | { readonly id: number; readonly pdf: Uint8Array }
  | { readonly id: number; readonly error: string };

/**
 * Niceness of a PDF thread: a render is seconds of CPU, and on a machine with few cores it would take
 * them from the event loop that answers every store (issue 18 item 2). Linux keeps a niceness per
 * thread (setpriority of pid 0 is the calling thread), so only this thread yields the CPU. Elsewhere
 * pid 0 is the whole process, the API's loop included: left alone there.
 */
export const RENDER_NICENESS = 10;

const port = parentPort;
if (port) {
  if (process.platform === "linux") {
    try {
      setPriority(RENDER_NICENESS);
    } catch {
      // Not permitted (a sandbox): renders keep the process's priority.
    }
  }
  port.on("message", async (message: RenderRequest & { id: number }) => {
    try {
      const pdf = await renderPurchaseOrderPdf(documentOf(message), { receivingCopy: message.receivingCopy });
      const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
      // A pooled small Buffer shares its ArrayBuffer with others: copy it rather than transfer it.
      const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength ? bytes : bytes.slice();
      port.postMessage({ id: message.id, pdf: own } satisfies RenderResponse, [own.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
