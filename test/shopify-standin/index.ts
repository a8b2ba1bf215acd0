// The Shopify stand-in: one origin serving the Admin GraphQL API, OAuth and bulk results for any number
// of shops (told apart by access token and by OAuth code), with fault switches for tests. Start it with
// `startShopifyStandin()`; `npm run shopify-standin` runs it alone.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { BulkRunner } from "./bulk.ts";
import { CostBucket } from "./cost.ts";
import { answerGraphql } from "./endpoint.ts";
import type { MutationHost } from "./mutations.ts";
import { TokenRegistry } from "./oauth.ts";
import {
  deactivatedLocationPayload,
  deletedLocationPayload,
  deletedProductPayload,
  disconnectedLevelPayload,
  itemPayload,
  levelPayload,
  productPayload,
} from "./payloads.ts";
import { ADMIN_API_VERSION } from "./schema.ts";
import {
  gid,
  type InventoryItem,
  type Product,
  type QuantityName,
  type ShopState as Shop,
  ShopState,
  type Variant,
} from "./state.ts";
import { shopifyDateTime } from "./time.ts";
import { WebhookOutbox } from "./webhooks.ts";

export interface StandinOptions {
  port?: number;
  apiKey?: string;
  apiSecret?: string;
  /** Milliseconds since the epoch; drives token expiry, bucket restore and timestamps. */
  now?: () => number;
  /** Shopify's Standard plan: 100 points/s (shopify.dev rate limits); the bucket holds 20 s of it. */
  bucket?: { maximumAvailable: number; restoreRate: number };
  /** How long a bulk query runs; null: until completeBulkOperations(). */
  bulkDurationMs?: number | null;
  bulkOrder?: "parents-first" | "children-first";
}

type Outage = null | { kind: "5xx" | "refused"; remaining: number };

export class ShopifyStandin implements MutationHost {
  readonly apiVersion = ADMIN_API_VERSION;
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly shops = new Map<string, Shop>();
  readonly tokens: TokenRegistry;
  readonly webhooks: WebhookOutbox;
  readonly bulk: BulkRunner;
  /** Every GraphQL request a shop's token made, in order (what a test asserts was sent). */
  readonly requests: Array<{ shop: string; query: string; variables: Record<string, unknown> }> = [];
  /** The shop whose merchant approves the next OAuth authorize request (default: the first shop). */
  installingShop: string | null = null;
  private readonly buckets = new Map<Shop, CostBucket>();
  private forcedRefusals: { code: string; message: string }[] = [];
  /** The test's hold on the next adjustment that takes a new key (holdNextAdjust). */
  private adjustHold: { reached: () => void; released: Promise<void> } | null = null;
  /** The hold a request took while it was answered, its answer sent once released. */
  private heldAnswer: { shop: Shop; key: string; released: Promise<void> } | null = null;
  /** The test's hold on the answer of the next request whose query has a given text (holdNextAnswer). */
  private answerHold: { text: string; reached: () => void; released: Promise<void> } | null = null;
  private outage: Outage = null;
  private throttledRequests = 0;
  private port = 0;
  readonly clock: () => number;

  constructor(
    private readonly server: Server,
    private readonly options: StandinOptions,
  ) {
    this.apiKey = options.apiKey ?? "standin-api-key";
    this.apiSecret = options.apiSecret ?? "standin-api-secret";
    this.clock = options.now ?? Date.now;
    this.tokens = new TokenRegistry(this.apiKey, this.apiSecret, this.clock);
    this.webhooks = new WebhookOutbox(this.apiSecret, this.apiVersion, () => this.now());
    this.bulk = new BulkRunner({
      origin: () => this.origin,
      now: () => this.now(),
      durationMs: options.bulkDurationMs === undefined ? 20 : options.bulkDurationMs,
      order: options.bulkOrder ?? "parents-first",
      finished: (op) =>
        this.webhooks.emit(op.shop, "bulk_operations/finish", {
          admin_graphql_api_id: gid("BulkOperation", op.id),
          completed_at: op.completedAt && shopifyDateTime(op.completedAt),
          created_at: shopifyDateTime(op.createdAt),
          error_code: null,
          status: "completed",
          type: "query",
        }),
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  now(): Date {
    return new Date(this.clock());
  }

  /** A shop and a custom app's access token for it. */
  addShop(
    domain: string,
    details: { name?: string; currency?: string; timezone?: string; scope?: string } = {},
  ) {
    const shop = new ShopState(
      domain,
      details.name ?? domain.split(".")[0],
      details.currency ?? "USD",
      details.timezone ?? "America/New_York",
      () => this.now(),
    );
    this.shops.set(domain, shop);
    const accessToken = this.tokens.issueFixed(
      shop,
      details.scope ?? "read_products,read_inventory,write_inventory,read_locations",
    );
    return { shop, accessToken };
  }

  /** The app is uninstalled: app/uninstalled goes out, then tokens and subscriptions are gone. */
  uninstall(domain: string): void {
    const shop = this.shops.get(domain)!;
    this.webhooks.emit(shop, "app/uninstalled", { id: 1, name: shop.name, domain, myshopify_domain: domain });
    this.tokens.revoke(shop);
    shop.subscriptions.length = 0;
  }

  /** The inventoryAdjustQuantities calls a shop received (throttled and refused ones included): key and input. */
  adjustCalls(domain: string): Array<{ key: unknown; input: unknown }> {
    return this.requests
      .filter((r) => r.shop === domain && r.query.includes("inventoryAdjustQuantities"))
      .map((r) => ({ key: r.variables.key, input: r.variables.input }));
  }

  /** A shop's cost bucket (null before its first GraphQL request): points spent, THROTTLED answers. */
  bucketOf(domain: string): CostBucket | null {
    const shop = this.shops.get(domain);
    return (shop && this.buckets.get(shop)) ?? null;
  }

  // Fault switches ---------------------------------------------------------------------------------------

  /** The next inventoryAdjustQuantities answers this userError (IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED burns the key). */
  refuseNextAdjust(code: string, message = "The quantities couldn't be adjusted. Try again."): void {
    this.forcedRefusals.push({ code, message });
  }

  /**
   * The next inventoryAdjustQuantities that takes a new key is applied, but its request stays in
   * progress (its answer unsent, its key answering IDEMPOTENCY_CONCURRENT_REQUEST) until `release`.
   * `reached` settles once it was applied.
   */
  holdNextAdjust(): { reached: Promise<void>; release: () => void } {
    const { hold, handle } = holdGate();
    this.adjustHold = hold;
    return handle;
  }

  /**
   * The next GraphQL request whose query contains `text` is answered as Shopify holds things when it
   * arrives, and that answer is sent only at `release` (a slow network or a slow read: what it says may
   * be older than changes made meanwhile). `reached` settles once it was answered.
   */
  holdNextAnswer(text: string): { reached: Promise<void>; release: () => void } {
    const { hold, handle } = holdGate();
    this.answerHold = { text, ...hold };
    return handle;
  }

  /** The next `requests` GraphQL requests answer THROTTLED (HTTP 200), whatever the bucket holds. */
  throttleNext(requests: number): void {
    this.throttledRequests = requests;
  }

  /** Every request (or the next `requests`) answers 503, or the port refuses connections. */
  async startOutage(kind: "5xx" | "refused", requests = Number.POSITIVE_INFINITY): Promise<void> {
    this.outage = { kind, remaining: requests };
    if (kind === "refused") {
      this.server.closeAllConnections();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  async endOutage(): Promise<void> {
    const refused = this.outage?.kind === "refused";
    this.outage = null;
    if (refused) await new Promise<void>((resolve) => this.server.listen(this.port, "127.0.0.1", resolve));
  }

  /** How many bulk operations run for the shop now (a sixth is refused with LIMIT_REACHED). */
  runningBulkOperations(domain: string): number {
    const shop = this.shops.get(domain);
    return shop ? this.bulk.runningCount(shop) : 0;
  }

  completeBulkOperations(): void {
    this.bulk.completeAll();
  }

  async close(): Promise<void> {
    await this.webhooks.settled();
    this.server.closeAllConnections();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // MutationHost -----------------------------------------------------------------------------------------

  takeForcedRefusal() {
    return this.forcedRefusals.shift() ?? null;
  }

  takeHold(shop: Shop, key: string): boolean {
    const hold = this.adjustHold;
    if (!hold) return false;
    this.adjustHold = null;
    this.heldAnswer = { shop, key, released: hold.released };
    hold.reached();
    return true;
  }

  levelsChanged(shop: Shop, levels: { itemId: number; locationId: number }[]): void {
    for (const { itemId, locationId } of levels) {
      this.webhooks.emit(shop, "inventory_levels/update", levelPayload(shop.level(itemId, locationId)!));
    }
  }

  itemChanged(shop: Shop, itemId: number): void {
    this.webhooks.emit(shop, "inventory_items/update", itemPayload(shop.items.get(itemId)!));
  }

  // What the merchant does in Shopify's admin, with the webhooks it sends --------------------------------

  /** Edits a variant: products/update goes out with the product and all its variants. */
  editVariant(
    shop: Shop,
    variantId: number,
    changes: Partial<
      Pick<Variant, "sku" | "title" | "price" | "barcode" | "inventoryPolicy" | "taxable" | "image">
    >,
  ) {
    const variant = shop.variants.get(variantId)!;
    const product = shop.products.get(variant.productId)!;
    Object.assign(variant, changes);
    variant.updatedAt = product.updatedAt = this.now();
    this.webhooks.emit(shop, "products/update", productPayload(shop, product));
  }

  /**
   * Edits a variant's weight, which lives on its inventory item: the item and the product move
   * (inventory_items/update and products/update go out), the variant's own updatedAt does not.
   */
  editWeight(shop: Shop, variantId: number, weight: InventoryItem["weight"]): void {
    const variant = shop.variants.get(variantId)!;
    const item = shop.items.get(variant.inventoryItemId)!;
    const product = shop.products.get(variant.productId)!;
    item.weight = weight;
    item.updatedAt = product.updatedAt = this.now();
    this.webhooks.emit(shop, "products/update", productPayload(shop, product));
    this.webhooks.emit(shop, "inventory_items/update", itemPayload(item));
  }

  /** Sets an item's cost, as the merchant does on its variant's page: inventory_items/update goes out. */
  editCost(shop: Shop, itemId: number, cost: string | null): void {
    const item = shop.items.get(itemId)!;
    item.cost = cost;
    item.updatedAt = this.now();
    this.webhooks.emit(shop, "inventory_items/update", itemPayload(item));
  }

  /** Edits a product's own fields: products/update goes out. */
  editProduct(
    shop: Shop,
    productId: number,
    changes: Partial<Pick<Product, "title" | "status" | "tags" | "options" | "image">>,
  ) {
    const product = shop.products.get(productId)!;
    Object.assign(product, changes);
    product.updatedAt = this.now();
    this.webhooks.emit(shop, "products/update", productPayload(shop, product));
  }

  /** Deletes a product with its variants, items and levels: products/delete goes out with its id. */
  deleteProduct(shop: Shop, productId: number): void {
    shop.removeProduct(productId);
    this.webhooks.emit(shop, "products/delete", deletedProductPayload(productId));
  }

  /** Deletes one variant of a product (its item and levels go too): products/update goes out. */
  deleteVariant(shop: Shop, variantId: number): void {
    const product = shop.products.get(shop.variants.get(variantId)!.productId)!;
    shop.removeVariant(variantId);
    product.updatedAt = this.now();
    this.webhooks.emit(shop, "products/update", productPayload(shop, product));
  }

  /**
   * Stops stocking an item at a location (Shopify's inventoryDeactivate): the level goes, the item
   * and the location stay; inventory_levels/disconnect goes out.
   */
  deactivateLevel(shop: Shop, itemId: number, locationId: number): void {
    shop.removeLevel(itemId, locationId);
    this.webhooks.emit(shop, "inventory_levels/disconnect", disconnectedLevelPayload(itemId, locationId));
  }

  /**
   * Deactivates a location (Shopify's locationDeactivate): it stays in the shop's list, inactive, its
   * levels with it; locations/deactivate goes out.
   */
  deactivateLocation(shop: Shop, locationId: number): void {
    const location = shop.locations.get(locationId)!;
    location.isActive = false;
    location.updatedAt = this.now();
    this.webhooks.emit(shop, "locations/deactivate", deactivatedLocationPayload(location));
  }

  /**
   * Deletes a location with the levels it held: locations/delete goes out. (Shopify asks for it to be
   * deactivated first, its stock moved elsewhere; the stand-in takes that as done.)
   */
  deleteLocation(shop: Shop, locationId: number): void {
    shop.removeLocation(locationId);
    this.webhooks.emit(shop, "locations/delete", deletedLocationPayload(locationId));
  }

  /** Sets a quantity outside the app (a sale, a count): available and the parked names move on_hand too. */
  setQuantity(shop: Shop, itemId: number, locationId: number, name: QuantityName, quantity: number): void {
    const level = shop.level(itemId, locationId)!;
    const delta = quantity - level.quantities[name];
    level.quantities[name] = quantity;
    if (name !== "incoming" && name !== "on_hand" && name !== "committed") level.quantities.on_hand += delta;
    level.updatedAt = this.now();
    this.levelsChanged(shop, [level]);
  }

  // HTTP -------------------------------------------------------------------------------------------------

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { "content-type": "application/json", ...headers });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (this.outage) {
      if (--this.outage.remaining <= 0) this.outage = null;
      request.resume();
      return send(503, { errors: "Service Unavailable" });
    }
    const url = new URL(request.url ?? "/", this.origin);
    const raw = await readBody(request);
    if (request.method === "POST" && url.pathname === `/admin/api/${this.apiVersion}/graphql.json`) {
      const grant = this.tokens.grantOf(request.headers["x-shopify-access-token"] as string | undefined);
      if (!grant)
        return send(401, {
          errors: "[API] Invalid API key or access token (unrecognized login or wrong password)",
        });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw);
      } catch {
        return send(400, { errors: { query: "Required parameter missing or invalid" } });
      }
      this.requests.push({
        shop: grant.shop.domain,
        query: String(body.query ?? ""),
        variables: (body.variables ?? {}) as Record<string, unknown>,
      });
      const bucket = this.buckets.get(grant.shop) ?? this.newBucket(grant.shop);
      if (this.throttledRequests > 0) {
        this.throttledRequests--;
        return send(200, {
          errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }],
          extensions: {
            cost: { requestedQueryCost: 10, actualQueryCost: null, throttleStatus: bucket.status() },
          },
        });
      }
      const answer = answerGraphql(grant, bucket, this.bulk, this, body);
      const slow = this.answerHold;
      if (slow && String(body.query ?? "").includes(slow.text)) {
        this.answerHold = null;
        slow.reached();
        await slow.released;
      }
      const held = this.heldAnswer;
      this.heldAnswer = null;
      if (held) {
        await held.released;
        const entry = held.shop.idempotency.get(held.key);
        if (entry) entry.inProgress = false;
      }
      return send(200, answer, { "x-shopify-api-version": this.apiVersion });
    }
    if (request.method === "GET" && url.pathname === "/admin/oauth/authorize") {
      const domain = this.installingShop ?? url.searchParams.get("shop") ?? [...this.shops.keys()][0];
      const answer = this.tokens.authorize(url.searchParams, this.shops.get(domain));
      return "location" in answer
        ? send(302, "", { location: answer.location })
        : send(400, { error: answer.error });
    }
    if (request.method === "POST" && url.pathname === "/admin/oauth/access_token") {
      const form = (request.headers["content-type"] ?? "").includes("json")
        ? safeJson(raw)
        : Object.fromEntries(new URLSearchParams(raw));
      const [status, body] = this.tokens.exchange(form);
      return send(status, body);
    }
    const bulkResult = /^\/bulk-results\/(\d+)\.jsonl$/.exec(url.pathname);
    const jsonl = bulkResult && request.method === "GET" ? this.bulk.jsonl(Number(bulkResult[1])) : undefined;
    if (jsonl !== undefined) return send(200, jsonl, { "content-type": "application/jsonl" });
    send(404, { errors: "Not Found" });
  }

  private newBucket(shop: Shop): CostBucket {
    const { maximumAvailable, restoreRate } = this.options.bucket ?? {
      maximumAvailable: 2000,
      restoreRate: 100,
    };
    const bucket = new CostBucket(maximumAvailable, restoreRate, this.clock);
    this.buckets.set(shop, bucket);
    return bucket;
  }

  async listen(port: number): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(port, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
}

function safeJson(raw: string): Record<string, unknown> {
  try {
    return JSON.parse(raw);
  } catch {
    return {};
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startShopifyStandin(options: StandinOptions = {}): Promise<ShopifyStandin> {
  const server = createServer();
  const standin = new ShopifyStandin(server, options);
  server.on("request", (request, response) => {
    standin.handle(request, response).catch((error) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(JSON.stringify({ errors: (error as Error).message }));
    });
  });
  await standin.listen(options.port ?? 0);
  return standin;
}

/**
 * A held request's two sides: the stand-in calls `reached` when it got there and waits for `released`;
 * the test awaits `reached` and calls `release`.
 */
function holdGate(): {
  hold: { reached: () => void; released: Promise<void> };
  handle: { reached: Promise<void>; release: () => void };
} {
  let reached!: () => void;
  let release!: () => void;
  const reachedPromise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { hold: { reached, released }, handle: { reached: reachedPromise, release } };
}
