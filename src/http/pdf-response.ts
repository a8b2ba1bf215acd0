import type { FastifyReply } from "fastify";
import type { AppContext } from "../context.ts";
import { purchaseOrderPdfFile } from "../domain/documents/index.ts";

/** Route response schema of a PDF (for the OpenAPI document). */
export const PdfResponse = {
  description: "The PDF document",
  content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
} as const;

/**
 * Sends a purchase order (or its receiving copy) inline; shared by the API and admin routes. The PDF
 * is rendered off the event loop, at most a few at once per store (429 `rate_limited` beyond).
 */
export async function sendPurchaseOrderPdf(
  reply: FastifyReply,
  ctx: AppContext,
  storeId: number,
  orderId: number,
  receivingCopy: boolean,
): Promise<FastifyReply> {
  const { number, pdf } = await purchaseOrderPdfFile(ctx, storeId, orderId, {
    receivingCopy,
    refusable: true,
  });
  const filename = `${number}${receivingCopy ? "-receiving" : ""}.pdf`.replace(/[^A-Za-z0-9._-]/g, "_");
  return reply
    .type("application/pdf")
    .header("content-disposition", `inline; filename="${filename}"`)
    .send(pdf as never);
}
