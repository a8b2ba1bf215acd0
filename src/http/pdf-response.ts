import type { FastifyReply } from "fastify";
import type { Db } from "../db/database.ts";
import { loadPurchaseOrderDocument, renderPurchaseOrderPdf } from "../domain/documents/index.ts";

/** Route response schema of a PDF (for the OpenAPI document). */
export const PdfResponse = {
  description: "The PDF document",
  content: { "application/pdf": { schema: { type: "string", format: "binary" } } },
} as const;

/** Renders a purchase order (or its receiving copy) and sends it inline; shared by the API and admin routes. */
export async function sendPurchaseOrderPdf(
  reply: FastifyReply,
  db: Db,
  storeId: number,
  orderId: number,
  receivingCopy: boolean,
): Promise<FastifyReply> {
  const document = await loadPurchaseOrderDocument(db, storeId, orderId);
  const pdf = await renderPurchaseOrderPdf(document, { receivingCopy });
  const filename = `${document.number}${receivingCopy ? "-receiving" : ""}.pdf`.replace(
    /[^A-Za-z0-9._-]/g,
    "_",
  );
  return reply
    .type("application/pdf")
    .header("content-disposition", `inline; filename="${filename}"`)
    .send(pdf as never);
}
