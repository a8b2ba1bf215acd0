import { parentPort } from "node:worker_threads";
import { renderPurchaseOrderPdf } from "./purchase-order-pdf.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";

/**
 * A PDF thread of the render pool (render-pool.ts): renders one document at a time and hands the
 * bytes back without copying them. Built as its own bundle (scripts/build.mjs) beside dist/server.mjs.
 */

export interface RenderRequest {
  readonly document: PurchaseOrderDocument;
  readonly receivingCopy: boolean;
}

export type RenderResponse =
  | { readonly id: number; readonly pdf: Uint8Array }
  | { readonly id: number; readonly error: string };

const port = parentPort;
if (port) {
  port.on("message", async (message: RenderRequest & { id: number }) => {
    try {
      const pdf = await renderPurchaseOrderPdf(message.document, { receivingCopy: message.receivingCopy });
      const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
      // A pooled small Buffer shares its ArrayBuffer with others: copy it rather than transfer it.
      const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength ? bytes : bytes.slice();
      port.postMessage({ id: message.id, pdf: own } satisfies RenderResponse, [own.buffer as ArrayBuffer]);
    } catch (error) {
      port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
