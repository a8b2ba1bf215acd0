import { createHash } from "node:crypto";
import type { AppContext } from "../../context.ts";
import { loadPurchaseOrderDocument } from "./document-data.ts";
import { PdfCache } from "./pdf-cache.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";
import { RenderPool } from "./render-pool.ts";

/** Rendered bytes kept per process: a few hundred typical orders, or a handful of the biggest. */
const CACHE_BYTES = 32 * 1024 * 1024;

interface Renderer {
  readonly pool: RenderPool;
  readonly cache: PdfCache;
  /** Renders under way by key, so identical requests at once share one rendering. */
  readonly inFlight: Map<string, Promise<Buffer>>;
}

const RENDERER = { name: "documents.renderer" };

function rendererOf(ctx: AppContext): Renderer {
  return ctx.resources.get(
    RENDERER,
    () => ({ pool: new RenderPool(), cache: new PdfCache(CACHE_BYTES), inFlight: new Map() }),
    (r) => r.pool.close(),
  );
}

/**
 * The key of a rendering: the store, the order, the copy and a digest of the whole document. The
 * document is everything the PDF prints (the order as GET shows it, the store's name and zone, the
 * supplier record, the ship-to location), so a change to any of them, even one that leaves the
 * order's updated_at alone (a renamed store or location, a supplier's new address), is a new key.
 */
function keyOf(storeId: number, document: PurchaseOrderDocument, receivingCopy: boolean): string {
  const digest = createHash("sha256").update(JSON.stringify(document)).digest("base64url");
  return `${storeId}:${receivingCopy ? "receiving" : "priced"}:${digest}`;
}

export interface RenderedPdf {
  readonly document: PurchaseOrderDocument;
  readonly pdf: Buffer;
}

/**
 * A purchase order's PDF (or receiving copy): from the cache when nothing it shows has changed, else
 * rendered off the event loop. `refusable` (the API) may be answered 429 when the store already has
 * its share of renders under way; the mail job always waits its turn.
 */
export async function purchaseOrderPdf(
  ctx: AppContext,
  storeId: number,
  orderId: number,
  options: { receivingCopy: boolean; refusable: boolean },
): Promise<RenderedPdf> {
  const document = await loadPurchaseOrderDocument(ctx.db, storeId, orderId);
  const renderer = rendererOf(ctx);
  const key = keyOf(storeId, document, options.receivingCopy);
  const cached = renderer.cache.get(key);
  if (cached) return { document, pdf: cached };
  let rendering = renderer.inFlight.get(key);
  if (!rendering) {
    rendering = renderer.pool.render(storeId, document, options.receivingCopy, options.refusable);
    renderer.inFlight.set(key, rendering);
    const forget = () => renderer.inFlight.delete(key);
    rendering.then((pdf) => {
      renderer.cache.set(key, pdf);
      forget();
    }, forget);
  }
  return { document, pdf: await rendering };
}
