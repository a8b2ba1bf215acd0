import type { CatalogFeed } from "../domain/catalog/index.ts";

/**
 * What any commerce platform must offer Stockroom. Platform-neutral, and shaped so a Shopify Admin
 * GraphQL connector fits without change:
 *
 * - `listChanges(null)` is the full catalog import (Shopify: a bulk operation over products, variants,
 *   inventory items, locations and inventory levels); `listChanges(watermark)` returns what changed
 *   after the watermark (Shopify: change notifications / `updated_at:>` queries). The watermark is
 *   opaque to Stockroom: it stores it and hands it back.
 * - `adjustInventory` is one ledger document: signed deltas by quantity name (Shopify:
 *   `inventoryAdjustQuantities` with `name` available / incoming / …, `reason`,
 *   `referenceDocumentUri`, and the mandatory `@idempotent(key:)`), plus item unit costs (Shopify:
 *   `inventoryItemUpdate(cost:)`, the cost lives on the inventory item). It answers the levels as they
 *   stand after the change, each with its version (Shopify: read back after the push, since its
 *   `quantityAfterChange` comes back null).
 * - Failures are `PlatformTransientError` (retry later: outage, timeout, throttling) or
 *   `PlatformPermanentError` (retrying cannot help: unknown item or location, refused change).
 */

export type {
  PlatformAddress,
  PlatformInventoryItem,
  PlatformItemCost,
  PlatformLocation,
  PlatformProduct,
  PlatformProductOption,
  PlatformVariant,
  ProductStatus,
} from "../domain/catalog/index.ts";

export type QuantityName = "available" | "on_hand" | "committed" | "incoming";

export interface PlatformInventoryLevel {
  inventoryItemId: number;
  locationId: number;
  available: number;
  onHand: number;
  committed: number;
  incoming: number;
  /**
   * Monotonic per level: a report with a higher version is newer. (A Shopify connector uses the
   * level's `updatedAt` in milliseconds.) Lets the mirror tell a stale report from a fresh one.
   */
  version: number;
  updatedAt: Date;
  /**
   * When our read was taken (its request's start, by the service's clock), where versions can tie:
   * Shopify's `updatedAt` has whole seconds, so two changes in one second share a version, and of two
   * such reports with other quantities the later read is newer. None: the report never wins a tie.
   */
  readAt?: Date | null;
}

/** One batch of the change feed: the catalog's part, the levels, and where the next batch starts. */
export interface CatalogChanges extends CatalogFeed {
  levels: PlatformInventoryLevel[];
  /** Hand back to the next `listChanges`. */
  watermark: string;
  /** More changes wait after this batch. */
  hasMore: boolean;
}

export interface InventoryQuantityChange {
  /**
   * `available` (on_hand follows it, as a sale or a receipt does), `on_hand` (on_hand alone, the
   * difference parked outside available), or `incoming`.
   */
  name: "available" | "on_hand" | "incoming";
  inventoryItemId: number;
  locationId: number;
  delta: number;
}

export interface InventoryAdjustment {
  /** Mandatory: the same key twice moves stock once (the second call answers the first result). */
  idempotencyKey: string;
  /** Why stock moved (received, correction, …). */
  reason: string;
  /** The ledger document behind the change, e.g. `stockroom://receipts/12`. */
  referenceDocumentUri: string | null;
  changes: InventoryQuantityChange[];
  /** Unit costs to set on inventory items (a receipt's landed cost). */
  itemCosts: Array<{ inventoryItemId: number; unitCost: string; currency: string | null }>;
}

export interface InventoryAdjustResult {
  /** True when the key had been applied before and nothing moved now. */
  replayed: boolean;
  /** Every level the adjustment touched, as it stood right after the adjustment. */
  levels: PlatformInventoryLevel[];
  /**
   * Inventory items the platform no longer has (deleted there): their changes were left out of what
   * was still to send, and the rest of the document went. Absent or empty: nothing left out.
   */
  skippedItems?: number[];
  /**
   * Every inventory item the platform answered it no longer has while it took the document: the
   * skipped ones, and any found gone while costs were set or levels read back (its changes went
   * before it was deleted). The mirror marks their variants deleted. Absent or empty: none.
   */
  goneItems?: number[];
  /**
   * Where the platform's change feed stood right before and right after this adjustment, when the
   * changes in between are this adjustment's alone (its levels as `levels` reports them, and its item
   * costs): a mirror at `before` that adopted both is at `after`. Absent: the platform cannot say
   * (Shopify), or nothing moved.
   */
  feed?: { before: string; after: string };
  /**
   * The items whose cost was set, each with its updatedAt as the platform answered the mutation and
   * when that answer came (service clock): the mirror adopts the cost as that report of it
   * (adoptUnitCosts), so a sync read before the mutation does not put the older cost back. Absent: the
   * platform gives none (the simulated one).
   */
  costVersions?: Array<{ inventoryItemId: number; updatedAt: Date; readAt: Date }>;
}

export interface PlatformConnector {
  readonly platform: string;
  /** Catalog changes after `watermark` (null: everything, the initial import), at most about `limit`. */
  listChanges(watermark: string | null, limit: number): Promise<CatalogChanges>;
  /** Applies one stock document; throws PlatformTransientError or PlatformPermanentError. */
  adjustInventory(adjustment: InventoryAdjustment): Promise<InventoryAdjustResult>;
  /**
   * Set when one document may carry several records' movements (their references differ; the
   * document then has none) and up to `maxChanges` quantity changes: a push takes the store's waiting
   * pushes along (push-batches.ts). Absent: a document carries one record's movements and at most
   * MAX_DOCUMENT_CHANGES (Shopify: one referenceDocumentUri and 250 changes a call).
   * A platform that takes batches must apply a document in a commit of the service's own database
   * that waits for the disk (the simulated platform does): the in-flight mark and the record of a
   * record's own document's key commit before the send without waiting (markMovementsSent), and only
   * that later commit guarantees they outlive a document the platform kept; lost, a later attempt
   * could put the movements in a batch under another key. Another such platform would need that
   * mark to wait for the disk.
   */
  readonly batches?: { maxChanges: number };
}

/**
 * Marks a platform error as one after which nothing of the document moved (refused before anything
 * was applied, or rolled back), so a batch may be taken apart and its records pushed alone.
 */
export function movedNothing<E extends Error>(error: E): E {
  return Object.assign(error, { movedNothing: true });
}

/** Whether the platform said nothing of the document moved (movedNothing). */
export function nothingMoved(error: unknown): boolean {
  return error instanceof Error && (error as { movedNothing?: boolean }).movedNothing === true;
}

/** Retry later: the platform is down, timed out or throttled us. */
export class PlatformTransientError extends Error {
  override name = "PlatformTransientError";
}

/**
 * The platform's rate budget is spent (Shopify: THROTTLED beyond the client's retries): try again
 * `retryAfterMs` from now, when it has refilled. Waiting for it is not a failed attempt.
 */
export class PlatformBusyError extends PlatformTransientError {
  override name = "PlatformBusyError";
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/** Retrying cannot help: the platform refused the change (unknown item or location, rejected). */
export class PlatformPermanentError extends Error {
  override name = "PlatformPermanentError";
}
