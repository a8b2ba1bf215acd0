import type { AppContext } from "../../context.ts";
import { loadPurchaseOrderDocument } from "./document-data.ts";
import { PdfCache } from "./pdf-cache.ts";
import { pdfKeyOf, readPdfHead } from "./pdf-version.ts";
import type { PurchaseOrderDocument } from "./purchase-order-view.ts";
import { RenderPool } from "./render-pool.ts";
import type { DocumentSource } from "./render-worker.ts";

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

export interface PdfOptions {
  readonly receivingCopy: boolean;
  /** The API may be answered 429 when the store already has its share of renders under way. */
  readonly refusable: boolean;
}

/** The cached rendering of `key`, or a new one of the document (shared with a render of it under way). */
function renderedOnce(
  ctx: AppContext,
  storeId: number,
  key: string,
  document: DocumentSource,
  options: PdfOptions,
): Promise<Buffer> {
  const renderer = rendererOf(ctx);
  const cached = renderer.cache.get(key);
  if (cached) return Promise.resolve(cached);
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
  return rendering;
}

export interface PdfFile {
  /** The order's number, for the file's name. */
  readonly number: string;
  readonly pdf: Buffer;
}

/**
 * A purchase order's PDF (or receiving copy) to serve: from the cache when nothing it shows has
 * changed (one statement of two columns, the version: pdf-version.ts), else read and rendered off the
 * event loop, cached under the version read with the document (never older than what it renders).
 */
export async function purchaseOrderPdfFile(
  ctx: AppContext,
  storeId: number,
  orderId: number,
  options: PdfOptions,
): Promise<PdfFile> {
  const head = await readPdfHead(ctx.db, storeId, orderId);
  const cached = rendererOf(ctx).cache.get(pdfKeyOf(storeId, orderId, options.receivingCopy, head.version));
  if (cached) return { number: head.order_number, pdf: cached };
  // Not cached: rendered under the version just read, from what is read after it.
  const key = pdfKeyOf(storeId, orderId, options.receivingCopy, head.version);
  const document = await loadPurchaseOrderDocument(ctx.db, storeId, orderId, head);
  return { number: head.order_number, pdf: await renderedOnce(ctx, storeId, key, document, options) };
}

export interface RenderedPdf {
  /** What the PDF shows but its lines (a big order's may be left as text for the render thread). */
  readonly document: Omit<PurchaseOrderDocument, "lines">;
  readonly pdf: Buffer;
}

/**
 * A purchase order's PDF with the document it shows (the mail job writes its message from it): the
 * document is always read, the rendering comes from the cache when one of the same version is there.
 */
export async function purchaseOrderPdf(
  ctx: AppContext,
  storeId: number,
  orderId: number,
  options: PdfOptions,
): Promise<RenderedPdf> {
  const head = await readPdfHead(ctx.db, storeId, orderId);
  const source = await loadPurchaseOrderDocument(ctx.db, storeId, orderId, head);
  const key = pdfKeyOf(storeId, orderId, options.receivingCopy, head.version);
  return { document: source.document, pdf: await renderedOnce(ctx, storeId, key, source, options) };
}
