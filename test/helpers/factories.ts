/**
 * Things most HTTP tests need, made through the public API (so a factory exercises the same paths as
 * the service's clients): suppliers, orders in a state, the demo catalog's variants, the simulated
 * platform's levels, and the events a subject emitted.
 */
import assert from "node:assert/strict";
import { emit } from "../../src/events/outbox.ts";
import type { Client, TestApp } from "./app.ts";
import { expectStatus } from "./assertions.ts";

/** A variant as GET /v2/variants shows it (the fields tests read). */
export interface Variant {
  id: number;
  inventory_item_id: number;
  product_id: number;
  title: string;
  product_title: string;
  sku: string | null;
  barcode: string | null;
  unit_cost: string;
  weight_grams: number;
  inventory_tracked: boolean;
}

/** The first `limit` variants of the store's catalog (the demo seed has enough for every suite). */
export async function listVariants(api: Client, limit = 250): Promise<Variant[]> {
  const res = await api.get(`/v2/variants?limit=${limit}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** The store's inventory-tracked variants. */
export async function trackedVariants(api: Client): Promise<Variant[]> {
  return (await listVariants(api)).filter((v) => v.inventory_tracked);
}

/**
 * Hands out each variant once, so every test reasons about levels no earlier test moved.
 * `next()` fails the test when the catalog runs out.
 */
export function variantPool(variants: () => readonly Variant[]): { next(): Variant } {
  let used = 0;
  return {
    next() {
      const v = variants()[used++];
      assert.ok(v, "the demo catalog ran out of tracked variants");
      return v;
    },
  };
}

/** The store's visible locations, oldest first. */
export async function listLocations(api: Client): Promise<{ id: number; name: string }[]> {
  const res = await api.get("/v2/locations");
  expectStatus(res, 200);
  return (res.body.data as { id: number; name: string }[]).sort((a, b) => a.id - b.id);
}

/** A supplier (201); the body defaults to a USD supplier with a unique name. */
let supplierCounter = 0;
export async function createSupplier(api: Client, body: Record<string, unknown> = {}) {
  const res = await api.post("/v2/suppliers", {
    name: `Supplier ${++supplierCounter}`,
    currency: "USD",
    ...body,
  });
  expectStatus(res, 201);
  return res.body.data;
}

/** One custom line (no catalog item): `quantity` units at `unit_cost`. */
export const customLine = (quantity = 1, unit_cost: number | string = 1) => ({
  product_title: "Custom part",
  quantity,
  unit_cost,
});

/** A draft purchase order (201) from the given body; `supplier_id` is required by the API. */
export async function createDraftOrder(api: Client, body: Record<string, unknown>) {
  const res = await api.post("/v2/purchase_orders", body);
  expectStatus(res, 201);
  return res.body.data;
}

/** A purchase order created and marked ordered (the state receipts and payments start from). */
export async function createOrderedOrder(api: Client, body: Record<string, unknown>) {
  const draft = await createDraftOrder(api, body);
  const res = await api.post(`/v2/purchase_orders/${draft.id}/mark_ordered`, {});
  expectStatus(res, 200);
  return res.body.data;
}

/**
 * An ordered order of the catalog's first `lines` variants (4 units each), every earlier job drained,
 * and one receipt of `received` units a line booked: its platform push is queued and has not run.
 */
export async function receiptWithItsPushQueued(
  t: TestApp,
  api: Client,
  { lines, received, key }: { lines: number; received: number; key: string },
) {
  const variants = (await listVariants(api)).slice(0, lines);
  const order = await createOrderedOrder(api, {
    supplier_id: (await createSupplier(api)).id,
    location_id: (await listLocations(api))[0].id,
    lines: variants.map((v) => ({ variant_id: v.id, quantity: 4 })),
  });
  await t.drain();
  const receipt = await api.post(
    `/v2/purchase_orders/${order.id}/receipts`,
    { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: received })) },
    idempotencyKey(key),
  );
  expectStatus(receipt, 201);
  return { order, receipt: receipt.body.data };
}

/** A full purchase order as GET shows it. */
export async function getOrder(api: Client, id: number) {
  const res = await api.get(`/v2/purchase_orders/${id}`);
  expectStatus(res, 200);
  return res.body.data;
}

/** Fresh `Idempotency-Key` headers, unique within the process. */
let keyCounter = 0;
export function idempotencyKey(prefix = "key"): { "idempotency-key": string } {
  return { "idempotency-key": `${prefix}-${process.pid}-${++keyCounter}` };
}

/** One item's level on the simulated platform (zeros when it has no row there). */
export async function platformLevel(t: TestApp, storeId: number, itemId: number, locationId: number) {
  const res = await t.admin.get(
    `/admin/stores/${storeId}/platform/inventory?inventory_item_id=${itemId}&location_id=${locationId}`,
  );
  expectStatus(res, 200);
  const row = res.body.data[0];
  return {
    available: (row?.available ?? 0) as number,
    on_hand: (row?.on_hand ?? 0) as number,
    incoming: (row?.incoming ?? 0) as number,
    unit_cost: (row?.unit_cost ?? null) as string | null,
  };
}

/** The events one subject emitted, oldest first (optionally one store's only). */
export async function eventsOf(
  t: TestApp,
  subject: { type: string; id: number; storeId?: number },
): Promise<{ name: string; data: any; extra: any }[]> {
  let query = t.runtime.ctx.db
    .selectFrom("events")
    .select(["name", "data", "extra"])
    .where("subject_type", "=", subject.type)
    .where("subject_id", "=", subject.id);
  if (subject.storeId !== undefined) query = query.where("store_id", "=", subject.storeId);
  return query.orderBy("seq").execute();
}

/** Offset between an inserted fixture variant's id and its inventory item id. */
export const FIXTURE_VARIANT_OFFSET = 500_000;

/**
 * Variants for the given inventory items written straight into the catalog mirror (id = item +
 * FIXTURE_VARIANT_OFFSET), for tests that need items without seeding the simulated platform.
 */
export async function insertFixtureVariants(t: TestApp, storeId: number, itemIds: number[]): Promise<void> {
  await t.runtime.ctx.db
    .insertInto("variants")
    .values(
      itemIds.map((item) => ({
        store_id: storeId,
        id: item + FIXTURE_VARIANT_OFFSET,
        product_id: 9_000 + storeId,
        inventory_item_id: item,
        title: `Variant ${item}`,
        product_title: "Fixture product",
        sku: `SKU-${item}`,
        barcode: null,
        compare_at_price: null,
        unit_cost: null,
        unit_cost_currency: null,
        image_url: null,
        platform_updated_at: null,
      })),
    )
    .execute();
}

/**
 * Emits one event as a module would (in its own transaction), for tests of what consumes events; the
 * subject type is the name's first part, the data defaults to `{ id: subjectId }`.
 */
export async function emitTestEvent(
  t: TestApp,
  storeId: number,
  name: string,
  subjectId = 1,
  data: object = { id: subjectId },
  extra?: Record<string, unknown>,
) {
  const ctx = t.runtime.ctx;
  return ctx.db
    .transaction()
    .execute((trx) =>
      emit(ctx, trx, { storeId, name, subjectType: name.split(".")[0], subjectId, data, extra }),
    );
}
