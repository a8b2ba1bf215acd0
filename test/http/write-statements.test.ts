/**
 * The write path's statements, counted at the driver (issue 22 item 1): each write runs a fixed
 * number of statements whatever its line count, and the cuts made to reach the write ceiling stay
 * made. Each count is the whole request's (the idempotency claim, the transaction) but the API key's
 * lookup, which the embedded database answers from its cache and PostgreSQL does not (decisions.md);
 * the answers are checked against GET so a cut cannot change what the client sees.
 */
import "../helpers/statements.ts";
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { expectStatus } from "../helpers/assertions.ts";
import {
  createOrderedOrder,
  createSupplier,
  getOrder,
  idempotencyKey,
  listLocations,
  type Variant,
} from "../helpers/factories.ts";
import { countStatements } from "../helpers/statements.ts";

describe("statements per write", () => {
  let t: TestApp;
  let store: TestStore;
  let variants: Variant[];
  let supplierId: number;
  let locationId: number;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore();
    expectStatus(
      await t.admin.post(`/admin/stores/${store.id}/platform/catalog/generate`, {
        products: 4,
        variants_per_product: 50,
      }),
      201,
    );
    await t.drain();
    variants = [];
    for (let cursor: string | null = null; ; ) {
      const page: HttpResult<{ data: Variant[]; next_cursor: string | null }> = await store.api.get(
        `/v2/variants?limit=250${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      expectStatus(page, 200);
      variants.push(...page.body.data.filter((v) => v.sku?.startsWith("BULK-")));
      if (!page.body.next_cursor) break;
      cursor = page.body.next_cursor;
    }
    assert.ok(variants.length >= 200, `${variants.length} generated variants`);
    supplierId = (await createSupplier(store.api)).id;
    locationId = (await listLocations(store.api))[0].id;
  });

  after(() => t.close());

  /**
   * On PostgreSQL the write's statements in its transaction go as named prepared statements, parsed
   * once per connection, not on every request: the ledger's (every row a receipt or an apply writes),
   * the event with the store's active subscriptions read in it, the key's claim and stored answer, and
   * `others` (each pattern matching one statement sent under a name).
   */
  function expectPrepared(named: string[], others: RegExp[]) {
    if (t.runtime.ctx.dbKind !== "postgres") return;
    for (const pattern of [
      /^with moved as \(insert into "stock_movements"/,
      /^insert into events .* returning seq, \(select coalesce\(json_agg\(events\), '\[\]'\)::text from webhooks /,
      /^insert into idempotency_keys /,
      /^update idempotency_keys set state = 'done'/,
      ...others,
    ])
      assert.equal(named.filter((s) => pattern.test(s)).length, 1, `${pattern} in:\n${named.join("\n")}`);
  }

  /** One request, counted alone (the request log's buffered insert written before it), key lookup aside. */
  async function counted<T>(request: () => Promise<T>) {
    await t.runtime.ctx.requestLog.flush();
    const seen = await countStatements(request);
    return { ...seen, statements: seen.statements.filter((s) => !/from "api_keys" as "k"/.test(s)) };
  }

  test("creating a 100-line order: 9 statements, what it refers to read in one, the order read back in two", async () => {
    const { result: created, statements } = await counted(() =>
      store.api.post("/v2/purchase_orders", {
        supplier_id: supplierId,
        lines: variants.slice(0, 100).map((v) => ({ variant_id: v.id, quantity: 3 })),
      }),
    );
    expectStatus(created, 201);
    // The supplier, the ship-to default, the variants and the supplier's catalog rows: one read (four
    // until the order lookups were one statement).
    assert.equal(statements.length, 9, statements.join("\n"));
    const reads = /\bfrom "?(suppliers|variants|supplier_catalog_items|locations)\b/;
    assert.equal(statements.filter((s) => reads.test(s)).length, 1, statements.join("\n"));
    assert.equal(created.body.data.lines.length, 100);
    // What the full read presents, field by field.
    assert.deepEqual(created.body.data, await getOrder(store.api, created.body.data.id));
  });

  test("a header-only PATCH: 7 statements, its row's version read with the lock, the row written and the subscriptions answered by the update and the event's insert", async () => {
    const created = await store.api.post("/v2/purchase_orders", {
      supplier_id: supplierId,
      lines: variants.slice(0, 100).map((v) => ({ variant_id: v.id, quantity: 2 })),
    });
    expectStatus(created, 201);
    const id = created.body.data.id;
    const { result: patched, statements } = await counted(() =>
      store.api.patch(`/v2/purchase_orders/${id}`, { notes: "counted" }),
    );
    expectStatus(patched, 200);
    const all = statements.join("\n");
    // The read-ahead before the transaction; then the lock, the rates, the update, the history row,
    // the sync states and the event. Before (issue 18 item 2): 10, with the version read after the
    // lock, the order's row read again after the update and the subscriptions read after the event.
    assert.equal(statements.length, 7, all);
    assert.ok(!statements.some((s) => /^select xmin::text/i.test(s)), all);
    assert.ok(!statements.some((s) => /^select .*from "purchase_orders" as "po"/i.test(s)), all);
    assert.ok(!statements.some((s) => /^select .*from webhooks/i.test(s)), all);
    assert.equal(patched.body.data.notes, "counted");
    assert.deepEqual(patched.body.data, await getOrder(store.api, id));
  });

  test("a 50-line receipt: 6 statements in one transaction, every row it writes in one; its claim commits without waiting for the disk", async () => {
    const order = await createOrderedOrder(store.api, {
      supplier_id: supplierId,
      location_id: locationId,
      lines: variants.slice(100, 150).map((v) => ({ variant_id: v.id, quantity: 10 })),
    });
    const body = { lines: order.lines.map((l: { id: number }) => ({ line_id: l.id, quantity: 1 })) };
    const { result, statements, named, begins, commits } = await counted(() =>
      store.api.post(`/v2/purchase_orders/${order.id}/receipts`, body, idempotencyKey("receipt")),
    );
    expectStatus(result, 201);
    assert.equal(statements.length, 6, statements.join("\n"));
    assert.deepEqual([begins, commits], [1, 1]);
    expectPrepared(named, [/^select "po"\.\*.* for update of "po"$/]);
    // The claim runs before the transaction, on its own: a concurrent retry sees it at once.
    const claim = statements.findIndex((s) => /^insert into idempotency_keys/i.test(s));
    assert.equal(claim, 0, statements.join("\n"));
    assert.match(statements[claim], /set_config\('synchronous_commit', 'off', true\)/);
    assert.deepEqual(result.body.purchase_order, await getOrder(store.api, order.id));
  });

  test("a 200-line apply: 4 statements in one transaction, the deleted items and the levels' lock read with the lines, every row it writes, its event and its stored answer in one", async () => {
    const draft = await store.api.post("/v2/stock_adjustments", {
      location_id: locationId,
      lines: variants.slice(0, 200).map((v, i) => ({ variant_id: v.id, delta: (i % 5) + 1 })),
    });
    expectStatus(draft, 201);
    const { result, statements, named, begins, commits } = await counted(() =>
      store.api.post(`/v2/stock_adjustments/${draft.body.data.id}/apply`, undefined, idempotencyKey("apply")),
    );
    expectStatus(result, 200);
    // The claim, the lock, the lines with their levels locked, and the ledger's statement with the
    // event (the store's subscriptions read in it) and the stored answer as parts of it. Before: 7, the
    // levels' lock after the lines, the event and the stored answer after the ledger's, each a
    // statement of its own.
    assert.equal(statements.length, 4, statements.join("\n"));
    assert.deepEqual([begins, commits], [1, 1]);
    const ledger = statements.find((s) => /^with moved as /.test(s)) ?? "";
    assert.match(
      ledger,
      /"applied_event" as \(insert into events .* returning seq, \(select coalesce\(json_agg\(events\)/,
    );
    assert.match(ledger, /"answer_stored" as \(update idempotency_keys set state = 'done'/);
    // Its levels, locked with its lines, are updated by key: no upsert (no insert tried per level).
    assert.match(ledger, /added as \(update inventory_levels as l set /);
    assert.doesNotMatch(ledger, /insert into "inventory_levels"/);
    if (t.runtime.ctx.dbKind === "postgres")
      for (const pattern of [
        /^with moved as \(insert into "stock_movements"/,
        /^insert into idempotency_keys /,
        /^select sa\.\*, loc\.name as current_location_name from stock_adjustments sa /,
        /^select l\.\*, exists \(.* left join lateral \(select id, available from inventory_levels .* for update\) k on true order by l\.position$/,
      ])
        assert.equal(named.filter((s) => pattern.test(s)).length, 1, `${pattern} in:\n${named.join("\n")}`);
    // The applied adjustment is presented without reading it back: what GET reads, field by field.
    const read = await store.api.get(`/v2/stock_adjustments/${draft.body.data.id}`);
    expectStatus(read, 200);
    assert.deepEqual(result.body.data, read.body.data);
  });
});
