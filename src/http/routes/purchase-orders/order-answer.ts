import type { FastifyReply } from "fastify";
import {
  hasLinesText,
  linesPieces,
  type OrderWithLinesText,
  type PresentedOrder,
  type PurchaseOrder,
} from "../../../domain/purchase-orders/index.ts";
import { JsonText } from "../../json-text-reply.ts";

/**
 * `{data: order}` for an order whose lines PostgreSQL wrote as JSON text, serialized here by the
 * route's own response schema with its lines left empty and the text put in their place: the bytes
 * the schema gives for the whole order, without the event loop presenting and serializing its 500
 * lines (issue 18 item 2). The answer's status must be the one whose schema applies (200).
 */
export function orderText(reply: FastifyReply, order: OrderWithLinesText): JsonText {
  return new JsonText(linesPieces(reply.serialize({ data: order.order }) as string, order.linesJson));
}

/** A route's `{data: order}` answer, already serialized when the order's lines are text. */
export function orderAnswer(reply: FastifyReply, order: PresentedOrder): { data: PurchaseOrder } | JsonText {
  return hasLinesText(order) ? orderText(reply, order) : { data: order };
}
