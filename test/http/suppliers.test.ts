import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/clock.ts";
import { type Client, type HttpResult, startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { eventsOf, insertFixtureVariants } from "../helpers/factories.ts";

const eventsFor = (t: TestApp, storeId: number, subjectId: number) =>
  eventsOf(t, { type: "supplier", id: subjectId, storeId });

const SUPPLIER_KEYS = [
  "account_number",
  "address",
  "archived",
  "archived_at",
  "auto_restock",
  "bill_to_address",
  "company_name",
  "contact_name",
  "created_at",
  "currency",
  "default_updates_stock",
  "dropship_tags",
  "email",
  "email_cc",
  "exclude_from_reorder",
  "free_freight_threshold",
  "id",
  "lead_time_days",
  "location_account_numbers",
  "match_exclude_tags",
  "match_tags",
  "match_vendors",
  "merged_into_id",
  "min_order_value",
  "name",
  "notes",
  "payment_terms",
  "phone",
  "ships_direct",
  "taxable",
  "type",
  "updated_at",
];

describe("suppliers", () => {
  let t: TestApp;
  let store: TestStore;
  let api: Client;
  const clock = new ManualClock("2025-03-10T12:00:00.000Z");
  before(async () => {
    t = await startTestApp({ clock });
    store = await t.createStore({ currency: "USD" });
    api = store.api;
  });
  after(() => t.close());

  describe("POST /v2/suppliers", () => {
    test("creates a supplier: address flat in, nested out; money as decimal strings; defaults", async () => {
      const res = await api.post("/v2/suppliers", {
        name: "Acme Tools",
        company_name: "Acme Tools GmbH",
        email: "orders@acme.test",
        email_cc: ["a@acme.test", "b@acme.test"],
        currency: "EUR",
        lead_time_days: 7,
        min_order_value: 250,
        free_freight_threshold: "1000.5",
        address_line1: "Hauptstr. 1",
        city: "Berlin",
        country: "DE",
        match_vendors: ["Acme"],
        location_account_numbers: { "101": "ACC-9" },
        ships_direct: true,
      });
      assert.equal(res.status, 201);
      const s = res.body.data;
      assert.deepEqual(Object.keys(res.body), ["data"]);
      assert.deepEqual(Object.keys(s).sort(), SUPPLIER_KEYS);
      assert.equal(typeof s.id, "number");
      assert.equal(s.name, "Acme Tools");
      assert.equal(s.company_name, "Acme Tools GmbH");
      assert.equal(s.type, null);
      assert.equal(s.email, "orders@acme.test");
      assert.deepEqual(s.email_cc, ["a@acme.test", "b@acme.test"]);
      assert.equal(s.currency, "EUR");
      assert.equal(s.lead_time_days, 7);
      assert.equal(s.min_order_value, "250.00");
      assert.equal(s.free_freight_threshold, "1000.50");
      assert.deepEqual(s.address, {
        line1: "Hauptstr. 1",
        line2: null,
        city: "Berlin",
        province: null,
        zip: null,
        country: "DE",
      });
      assert.deepEqual(s.location_account_numbers, { "101": "ACC-9" });
      assert.deepEqual(s.match_vendors, ["Acme"]);
      assert.deepEqual(s.match_tags, []);
      assert.deepEqual(s.dropship_tags, []);
      assert.equal(s.taxable, true);
      assert.equal(s.ships_direct, true);
      assert.equal(s.auto_restock, false);
      assert.equal(s.exclude_from_reorder, false);
      assert.equal(s.default_updates_stock, null);
      assert.equal(s.archived, false);
      assert.equal(s.archived_at, null);
      assert.equal(s.merged_into_id, null);
      assert.equal(s.created_at, t.clock.now().toISOString());
      assert.equal(s.updated_at, s.created_at);

      const got = await api.get(`/v2/suppliers/${s.id}`);
      assert.equal(got.status, 200);
      assert.deepEqual(got.body, { data: s });

      const events = await eventsFor(t, store.id, s.id);
      assert.deepEqual(
        events.map((e) => e.name),
        ["supplier.created"],
      );
      assert.deepEqual(events[0].data, s);
    });

    test("null lists become [], null account numbers {}; money follows the currency's minor units", async () => {
      const res = await api.post("/v2/suppliers", {
        name: "Nulls Inc",
        email_cc: null,
        match_vendors: null,
        match_tags: null,
        match_exclude_tags: null,
        dropship_tags: null,
        location_account_numbers: null,
        currency: "JPY",
        min_order_value: "5000",
        company_name: "",
      });
      assert.equal(res.status, 201);
      const s = res.body.data;
      assert.deepEqual(s.email_cc, []);
      assert.deepEqual(s.match_vendors, []);
      assert.deepEqual(s.match_exclude_tags, []);
      assert.deepEqual(s.location_account_numbers, {});
      assert.equal(s.min_order_value, "5000");
      assert.equal(s.company_name, null);

      const noCurrency = await api.post("/v2/suppliers", { name: "No currency", min_order_value: 12.5 });
      assert.equal(noCurrency.status, 201);
      assert.equal(noCurrency.body.data.currency, null);
      assert.equal(noCurrency.body.data.min_order_value, "12.50");
    });

    describe("refusals: missing or blank name, bad emails, negative lead time, bad money, unknown fields", () => {
      test("a missing name is 422 required", async () => {
        const missing = await api.post("/v2/suppliers", { email: "x@y.test" });
        assert.equal(missing.status, 422);
        assert.equal(missing.body.error.code, "validation_failed");
        assert.deepEqual(missing.body.error.details, [
          { field: "name", code: "required", message: "is required" },
        ]);
      });

      test("a blank name is 422 blank", async () => {
        const blank = await api.post("/v2/suppliers", { name: "   " });
        assert.equal(blank.status, 422);
        assert.deepEqual(
          blank.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [["name", "blank"]],
        );
      });

      test("bad emails, a negative lead time and an unknown field are each named", async () => {
        const bad = await api.post("/v2/suppliers", {
          name: "Bad",
          email: "not-an-email",
          email_cc: ["ok@x.test", "nope"],
          lead_time_days: -1,
          surname: "x",
        });
        assert.equal(bad.status, 422);
        assert.equal(bad.body.error.code, "validation_failed");
        const fields = bad.body.error.details.map(
          (d: { field: string; code: string }) => `${d.field}:${d.code}`,
        );
        assert.deepEqual(fields.sort(), [
          "email:invalid_format",
          "email_cc.1:invalid_format",
          "lead_time_days:out_of_range",
          "surname:unknown_field",
        ]);
      });

      test("money with too many decimals or below zero", async () => {
        const money = await api.post("/v2/suppliers", {
          name: "Money",
          currency: "USD",
          min_order_value: "12.345",
          free_freight_threshold: -5,
        });
        assert.equal(money.status, 422);
        assert.deepEqual(
          money.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [
            ["min_order_value", "too_many_decimals"],
            ["free_freight_threshold", "must_not_be_negative"],
          ],
        );
      });

      test("a lower-case currency code and wrongly typed fields", async () => {
        const currency = await api.post("/v2/suppliers", { name: "Cur", currency: "usd" });
        assert.equal(currency.status, 422);
        assert.deepEqual(
          currency.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [["currency", "invalid_value"]],
        );
        const typed = await api.post("/v2/suppliers", { name: "Cur", lead_time_days: "3", taxable: null });
        assert.equal(typed.status, 422);
        assert.deepEqual(
          typed.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]).sort(),
          [
            ["lead_time_days", "invalid_type"],
            ["taxable", "invalid_type"],
          ],
        );
      });

      test("none of the refused suppliers was created", async () => {
        const list = await api.get("/v2/suppliers?archived=all&limit=250");
        assert.ok(!list.body.data.some((s: { name: string }) => ["Bad", "Money", "Cur"].includes(s.name)));
      });
    });

    test("an Idempotency-Key replays the creation instead of creating twice", async () => {
      const body = { name: "Once only", email: "once@x.test" };
      const first = await api.post("/v2/suppliers", body, { "idempotency-key": "create-once" });
      const replay = await api.post("/v2/suppliers", body, { "idempotency-key": "create-once" });
      assert.equal(first.status, 201);
      assert.equal(replay.status, 201);
      assert.equal(replay.headers["idempotent-replayed"], "true");
      assert.deepEqual(replay.body, first.body);
      const reused = await api.post("/v2/suppliers", { name: "Other" }, { "idempotency-key": "create-once" });
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error.code, "idempotency_key_reused");
      const all = await api.get("/v2/suppliers?limit=250");
      assert.equal(all.body.data.filter((x: { name: string }) => x.name === "Once only").length, 1);
    });

    test("an Idempotency-Key replays a PATCH too, and a read ignores it", async () => {
      const created = await api.post("/v2/suppliers", { name: "Patched once" });
      const id = created.body.data.id;
      const first = await api.patch(
        `/v2/suppliers/${id}`,
        { notes: "first" },
        { "idempotency-key": "patch-once" },
      );
      assert.equal(first.status, 200);
      assert.equal(first.headers["idempotent-replayed"], undefined);
      await api.patch(`/v2/suppliers/${id}`, { notes: "in between" });
      const replay = await api.patch(
        `/v2/suppliers/${id}`,
        { notes: "first" },
        { "idempotency-key": "patch-once" },
      );
      assert.equal(replay.status, 200);
      assert.equal(replay.headers["idempotent-replayed"], "true");
      assert.deepEqual(replay.body, first.body);
      assert.equal(
        (await api.get(`/v2/suppliers/${id}`)).body.data.notes,
        "in between",
        "the replay wrote nothing",
      );
      const reused = await api.patch(
        `/v2/suppliers/${id}`,
        { notes: "other" },
        { "idempotency-key": "patch-once" },
      );
      assert.equal(reused.status, 409);
      assert.equal(reused.body.error.code, "idempotency_key_reused");
      const read = await api.get(`/v2/suppliers/${id}`, { "idempotency-key": "patch-once" });
      assert.equal(read.status, 200);
      assert.equal(read.headers["idempotent-replayed"], undefined);
      assert.equal(read.body.data.notes, "in between");
    });

    test("403 without write:suppliers; reads work with read only", async () => {
      const reader = await store.keyWithScopes(["read"]);
      const res = await reader.post("/v2/suppliers", { name: "Nope" });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, "insufficient_scope");
      const list = await reader.get("/v2/suppliers");
      assert.equal(list.status, 200);
      const created = await api.post("/v2/suppliers", { name: "Scoped" });
      for (const call of [
        reader.patch(`/v2/suppliers/${created.body.data.id}`, { name: "x" }),
        reader.post(`/v2/suppliers/${created.body.data.id}/archive`),
        reader.post(`/v2/suppliers/${created.body.data.id}/unarchive`),
        reader.post("/v2/suppliers/merge", { target_id: created.body.data.id, source_ids: [1] }),
        reader.put(`/v2/suppliers/${created.body.data.id}/catalog`, { rows: [] }),
        reader.delete(`/v2/suppliers/${created.body.data.id}/catalog/1`),
      ]) {
        const r = await call;
        assert.equal(r.status, 403);
        assert.equal(r.body.error.code, "insufficient_scope");
      }
    });
  });

  describe("GET, PATCH /v2/suppliers/{id}", () => {
    test("PATCH changes only the fields sent and emits supplier.updated", async () => {
      const created = (
        await api.post("/v2/suppliers", {
          name: "Patchable",
          email: "p@x.test",
          phone: "123",
          address_line1: "Street 1",
          city: "Town",
          currency: "USD",
          min_order_value: "10",
        })
      ).body.data;
      clock.advance(1000);
      const res = await api.patch(`/v2/suppliers/${created.id}`, {
        phone: null,
        city: "Other town",
        email_cc: ["c@x.test"],
        lead_time_days: 0,
        default_updates_stock: false,
        min_order_value: "10.5",
      });
      assert.equal(res.status, 200);
      const s = res.body.data;
      assert.equal(s.name, "Patchable");
      assert.equal(s.email, "p@x.test");
      assert.equal(s.phone, null);
      assert.deepEqual(s.address, {
        line1: "Street 1",
        line2: null,
        city: "Other town",
        province: null,
        zip: null,
        country: null,
      });
      assert.deepEqual(s.email_cc, ["c@x.test"]);
      assert.equal(s.lead_time_days, 0);
      assert.equal(s.default_updates_stock, false);
      assert.equal(s.min_order_value, "10.50");
      assert.equal(s.created_at, created.created_at);
      assert.equal(s.updated_at, t.clock.now().toISOString());
      const events = await eventsFor(t, store.id, created.id);
      assert.deepEqual(
        events.map((e) => e.name),
        ["supplier.created", "supplier.updated"],
      );
      assert.deepEqual(events[1].data, s);

      // The same values again change nothing: no new updated_at, no event.
      clock.advance(1000);
      const same = await api.patch(`/v2/suppliers/${created.id}`, {
        city: "Other town",
        min_order_value: 10.5,
      });
      assert.equal(same.status, 200);
      assert.deepEqual(same.body.data, s);
      assert.equal((await eventsFor(t, store.id, created.id)).length, 2);
    });

    test("PATCH refusals: null or blank name, bad email, unknown field; nothing changes", async () => {
      const created = (await api.post("/v2/suppliers", { name: "Keep me" })).body.data;
      for (const [body, field, code] of [
        [{ name: null }, "name", "invalid_type"],
        [{ name: "" }, "name", "blank"],
        [{ email: "bad" }, "email", "invalid_format"],
        [{ lead_time_days: -3 }, "lead_time_days", "out_of_range"],
        [{ archived: true }, "archived", "unknown_field"],
        [{ address: { city: "x" } }, "address", "unknown_field"],
      ] as const) {
        const res = await api.patch(`/v2/suppliers/${created.id}`, body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error.code, "validation_failed");
        assert.deepEqual(
          res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [[field, code]],
        );
      }
      assert.deepEqual((await api.get(`/v2/suppliers/${created.id}`)).body.data, created);
    });

    test("another store's supplier is 404 everywhere", async () => {
      const other = await t.createStore();
      const theirs = (await other.api.post("/v2/suppliers", { name: "Theirs" })).body.data;
      for (const res of [
        await api.get(`/v2/suppliers/${theirs.id}`),
        await api.patch(`/v2/suppliers/${theirs.id}`, { name: "Mine now" }),
        await api.post(`/v2/suppliers/${theirs.id}/archive`),
        await api.post(`/v2/suppliers/${theirs.id}/unarchive`),
        await api.get(`/v2/suppliers/${theirs.id}/catalog`),
        await api.put(`/v2/suppliers/${theirs.id}/catalog`, { rows: [] }),
        await api.delete(`/v2/suppliers/${theirs.id}/catalog/1`),
        await api.get("/v2/suppliers/99999999"),
      ]) {
        assert.equal(res.status, 404);
        assert.equal(res.body.error.code, "not_found");
      }
      assert.equal((await other.api.get(`/v2/suppliers/${theirs.id}`)).body.data.name, "Theirs");
    });
  });

  describe("archive and unarchive", () => {
    test("archive hides from the default list, unarchive brings back; refusals name the state", async () => {
      const s = (await api.post("/v2/suppliers", { name: "Seasonal" })).body.data;
      clock.advance(1000);
      const archived = await api.post(`/v2/suppliers/${s.id}/archive`);
      assert.equal(archived.status, 200);
      assert.equal(archived.body.data.archived, true);
      assert.equal(archived.body.data.archived_at, t.clock.now().toISOString());
      assert.equal(archived.body.data.updated_at, t.clock.now().toISOString());

      const again = await api.post(`/v2/suppliers/${s.id}/archive`);
      assert.equal(again.status, 422);
      assert.equal(again.body.error.code, "invalid_transition");
      assert.match(again.body.error.message, /archived/);

      const ids = async (query: string) =>
        (await api.get(`/v2/suppliers?limit=250${query}`)).body.data.map((x: { id: number }) => x.id);
      assert.ok(!(await ids("")).includes(s.id));
      assert.ok((await ids("&archived=true")).includes(s.id));
      assert.ok((await ids("&archived=all")).includes(s.id));

      clock.advance(1000);
      const back = await api.post(`/v2/suppliers/${s.id}/unarchive`);
      assert.equal(back.status, 200);
      assert.equal(back.body.data.archived, false);
      assert.equal(back.body.data.archived_at, null);
      const twice = await api.post(`/v2/suppliers/${s.id}/unarchive`);
      assert.equal(twice.status, 422);
      assert.equal(twice.body.error.code, "invalid_transition");
      assert.match(twice.body.error.message, /active/);

      const events = await eventsFor(t, store.id, s.id);
      assert.deepEqual(
        events.map((e) => e.name),
        ["supplier.created", "supplier.archived", "supplier.updated"],
      );
      assert.deepEqual(events[1].data, archived.body.data);
      assert.deepEqual(events[2].data, back.body.data);

      const withBody = await api.post(`/v2/suppliers/${s.id}/archive`, { close: true });
      assert.equal(withBody.status, 422);
      assert.equal(withBody.body.error.details[0].code, "unknown_field");
    });
  });

  describe("GET /v2/suppliers: pages oldest update first; archived filter; bad filter values are 422; cursors bound to filters", () => {
    let fresh: TestStore;
    const made: number[] = [];
    before(async () => {
      fresh = await t.createStore();
      for (let i = 0; i < 7; i++) {
        made.push((await fresh.api.post("/v2/suppliers", { name: `S${i}` })).body.data.id);
        clock.advance(10);
      }
      // Touching S0 moves it to the end of the feed; archiving S3 takes it out of the default list.
      await fresh.api.patch(`/v2/suppliers/${made[0]}`, { notes: "touched" });
      clock.advance(10);
      await fresh.api.post(`/v2/suppliers/${made[3]}/archive`);
    });

    test("walking two at a time: oldest update first, the touched one last, the archived one out", async () => {
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: {
          status: number;
          body: { data: { id: number }[]; next_cursor: string | null; has_more: boolean };
        } = await fresh.api.get(
          `/v2/suppliers?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        assert.equal(res.status, 200);
        seen.push(...res.body.data.map((x) => x.id));
        assert.equal(res.body.has_more, res.body.next_cursor !== null);
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor);
      assert.equal(pages, 3);
      assert.deepEqual(seen, [made[1], made[2], made[4], made[5], made[6], made[0]]);
    });

    test("archived=all lists every supplier, archived=true the archived only", async () => {
      const all = await fresh.api.get("/v2/suppliers?archived=all&limit=250");
      assert.deepEqual(
        all.body.data.map((x: { id: number }) => x.id),
        [made[1], made[2], made[4], made[5], made[6], made[0], made[3]],
      );
      const onlyArchived = await fresh.api.get("/v2/suppliers?archived=true");
      assert.deepEqual(
        onlyArchived.body.data.map((x: { id: number }) => x.id),
        [made[3]],
      );
      assert.equal(onlyArchived.body.has_more, false);
      assert.equal(onlyArchived.body.next_cursor, null);
    });

    test("bad archived values and unknown filters are 422", async () => {
      for (const bad of ["false", "yes", ""]) {
        const res = await fresh.api.get(`/v2/suppliers?archived=${bad}`);
        assert.equal(res.status, 422, bad);
        assert.equal(res.body.error.code, "validation_failed");
        assert.equal(res.body.error.details[0].field, "archived");
      }
      const unknown = await fresh.api.get("/v2/suppliers?status=open");
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.error.details[0].code, "unknown_field");
    });

    test("a cursor is bound to its filters and its store", async () => {
      const first = await fresh.api.get("/v2/suppliers?limit=2");
      const other = await fresh.api.get(
        `/v2/suppliers?limit=2&archived=all&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      );
      assert.equal(other.status, 400);
      assert.equal(other.body.error.code, "invalid_cursor");
      const foreign = await api.get(
        `/v2/suppliers?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`,
      );
      assert.equal(foreign.status, 400);
      assert.equal(foreign.body.error.code, "invalid_cursor");
    });

    test("updated_at_min keeps the recently updated only", async () => {
      const since = await fresh.api.get(
        `/v2/suppliers?updated_at_min=${encodeURIComponent(new Date(t.clock.now().getTime() - 10).toISOString())}`,
      );
      assert.deepEqual(
        since.body.data.map((x: { id: number }) => x.id),
        [made[0]],
      );
    });
  });

  describe("POST /v2/suppliers/merge", () => {
    // One merge of two sources into a target, set up once; each of its effects is its own test.
    describe("moves orders and catalog rows, fills blanks, archives sources, counts what moved", () => {
      let shop: TestStore;
      let target: any;
      let a: any;
      let b: any;
      let orderIds: number[];
      let res: HttpResult;
      let mergedAt: string;
      let survivor: any;

      before(async () => {
        shop = await t.createStore({ currency: "USD" });
        await insertFixtureVariants(t, shop.id, [11, 12, 13, 14]);
        target = (
          await shop.api.post("/v2/suppliers", { name: "Target", email: null, currency: "USD", city: "Keep" })
        ).body.data;
        a = (
          await shop.api.post("/v2/suppliers", {
            name: "Source A",
            email: "a@src.test",
            phone: "111",
            currency: "USD",
            min_order_value: 99,
            address_line1: "A street",
          })
        ).body.data;
        b = (await shop.api.post("/v2/suppliers", { name: "Source B", phone: "222", contact_name: "Bea" }))
          .body.data;
        // Target has item 11; A has 11 (dropped, but its primary pin passes on) and 12; B has 12 (dropped) and 13.
        await shop.api.put(`/v2/suppliers/${target.id}/catalog`, {
          rows: [{ inventory_item_id: 11, supplier_sku: "T-11", tiers: [{ min_qty: 1, price: 5 }] }],
        });
        await shop.api.put(`/v2/suppliers/${a.id}/catalog`, {
          rows: [
            { inventory_item_id: 11, supplier_sku: "A-11", is_primary: true },
            { inventory_item_id: 12, supplier_sku: "A-12", tiers: [{ min_qty: 1, price: "3.5" }] },
          ],
        });
        await shop.api.put(`/v2/suppliers/${b.id}/catalog`, {
          rows: [
            { inventory_item_id: 12, supplier_sku: "B-12" },
            { inventory_item_id: 13, supplier_sku: "B-13" },
          ],
        });
        await shop.api.post(`/v2/suppliers/${b.id}/archive`);

        // The purchase orders module owns the table; rows are written directly so this test does not
        // depend on its routes.
        orderIds = [];
        for (const supplierId of [a.id, a.id, b.id, target.id]) {
          const row = await t.runtime.ctx.db
            .insertInto("purchase_orders")
            .values({
              store_id: shop.id,
              sequential_id: orderIds.length + 1,
              number: `PO-${orderIds.length + 1}`,
              supplier_id: supplierId,
              currency: "USD",
              exchange_rate_base_currency: "USD",
              exchange_rate_date: "2024-01-01",
              location_id: 1,
              return_reason: null,
              return_source_po_id: null,
              archived_at: null,
              reference: null,
              customer_order_number: null,
              supplier_order_number: null,
              invoice_number: null,
              account_number: null,
              notes: null,
              expected_at: null,
              payment_due_on: null,
              paid_at: null,
              ship_to_override: null,
              bill_to_override: null,
              tax_rate_id: null,
              sent_at: null,
              ordered_at: null,
              in_transit_at: null,
              received_at: null,
              closed_at: null,
              last_overdue_on: null,
            })
            .returning("id")
            .executeTakeFirstOrThrow();
          orderIds.push(row.id);
        }

        clock.advance(5000);
        res = await shop.api.post("/v2/suppliers/merge", {
          target_id: target.id,
          source_ids: [a.id, b.id],
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        mergedAt = t.clock.now().toISOString();
        survivor = res.body.data;
      });

      test("answers the target with blanks filled from the sources, and counts what moved", () => {
        assert.deepEqual(Object.keys(res.body).sort(), ["data", "moved"]);
        assert.deepEqual(res.body.moved, { purchase_orders: 3, items: 2, suppliers: 2 });
        assert.equal(survivor.id, target.id);
        assert.equal(survivor.name, "Target");
        assert.equal(survivor.email, "a@src.test");
        assert.equal(survivor.phone, "111");
        assert.equal(survivor.contact_name, "Bea");
        assert.equal(survivor.min_order_value, "99.00");
        assert.deepEqual(survivor.address, {
          line1: null,
          line2: null,
          city: "Keep",
          province: null,
          zip: null,
          country: null,
        });
        assert.equal(survivor.updated_at, mergedAt);
      });

      test("archives the sources, pointing at the target; an earlier archived_at is kept", async () => {
        const srcA = (await shop.api.get(`/v2/suppliers/${a.id}`)).body.data;
        const srcB = (await shop.api.get(`/v2/suppliers/${b.id}`)).body.data;
        assert.equal(srcA.archived, true);
        assert.equal(srcA.merged_into_id, target.id);
        assert.equal(srcA.archived_at, mergedAt);
        assert.equal(srcB.merged_into_id, target.id);
        assert.notEqual(srcB.archived_at, mergedAt, "an earlier archived_at is kept");
      });

      test("catalog rows move to the target, whose own row wins; a source's primary pin passes on", async () => {
        const catalog = (await shop.api.get(`/v2/suppliers/${target.id}/catalog`)).body.data;
        const byItem = new Map(catalog.map((r: { inventory_item_id: number }) => [r.inventory_item_id, r]));
        assert.deepEqual([...byItem.keys()].sort(), [11, 12, 13]);
        assert.equal((byItem.get(11) as { supplier_sku: string }).supplier_sku, "T-11");
        assert.equal((byItem.get(11) as { is_primary: boolean }).is_primary, true);
        assert.equal((byItem.get(12) as { supplier_sku: string }).supplier_sku, "A-12");
        assert.equal((byItem.get(12) as { price: string }).price, "3.50");
        assert.equal((byItem.get(13) as { supplier_sku: string }).supplier_sku, "B-13");
        assert.deepEqual((await shop.api.get(`/v2/suppliers/${a.id}/catalog`)).body.data, []);
        assert.deepEqual((await shop.api.get(`/v2/suppliers/${b.id}/catalog`)).body.data, []);
      });

      test("purchase orders move, each with a history row and an updated event; the target's own don't", async () => {
        const orders = await t.runtime.ctx.db
          .selectFrom("purchase_orders")
          .select(["id", "supplier_id"])
          .where("id", "in", orderIds)
          .orderBy("id")
          .execute();
        assert.deepEqual(
          orders.map((o) => o.supplier_id),
          [target.id, target.id, target.id, target.id],
        );
        // Each moved order has its history row and a purchase_order.updated event; the target's own doesn't.
        const history = await t.runtime.ctx.db
          .selectFrom("purchase_order_history")
          .select(["purchase_order_id", "type", "by_name", "data"])
          .where("purchase_order_id", "in", orderIds)
          .orderBy("purchase_order_id")
          .execute();
        assert.deepEqual(
          history.map((h) => [h.purchase_order_id, h.type, h.data]),
          [
            [orderIds[0], "updated", { changes: { supplier_id: [a.id, target.id] }, merge: true }],
            [orderIds[1], "updated", { changes: { supplier_id: [a.id, target.id] }, merge: true }],
            [orderIds[2], "updated", { changes: { supplier_id: [b.id, target.id] }, merge: true }],
          ],
        );
        const orderEvents = await t.runtime.ctx.db
          .selectFrom("events")
          .select(["subject_id", "name", "data"])
          .where("store_id", "=", shop.id)
          .where("subject_type", "=", "purchase_order")
          .orderBy("seq")
          .execute();
        assert.deepEqual(
          orderEvents.map((e) => [e.subject_id, e.name]),
          orderIds.slice(0, 3).map((id) => [id, "purchase_order.updated"]),
        );
        const shown = await shop.api.get(`/v2/purchase_orders/${orderIds[0]}`);
        assert.equal(shown.status, 200);
        assert.deepEqual(orderEvents[0].data, shown.body.data);
      });

      test("events: supplier.merged carries the target, each source ends archived", async () => {
        const targetEvents = await eventsFor(t, shop.id, target.id);
        assert.equal(targetEvents.at(-1)?.name, "supplier.merged");
        assert.deepEqual(targetEvents.at(-1)?.data, survivor);
        assert.equal((await eventsFor(t, shop.id, a.id)).at(-1)?.name, "supplier.archived");
      });

      test("a merged supplier cannot be unarchived, re-merged, nor take catalog writes", async () => {
        // A merged supplier cannot be unarchived, re-merged, nor take catalog writes.
        const unarchive = await shop.api.post(`/v2/suppliers/${a.id}/unarchive`);
        assert.equal(unarchive.status, 422);
        assert.equal(unarchive.body.error.code, "invalid_transition");
        assert.match(unarchive.body.error.message, /merged/);
        const put = await shop.api.put(`/v2/suppliers/${a.id}/catalog`, {
          rows: [{ inventory_item_id: 14 }],
        });
        assert.equal(put.status, 422);
        assert.equal(put.body.error.code, "invalid_transition");
      });
    });

    describe("refusals: source = target, already merged, missing, duplicate, bad target; nothing changes", () => {
      let shop: TestStore;
      let target: any;
      let s1: any;
      let s2: any;
      let foreign: any;
      before(async () => {
        shop = await t.createStore();
        const other = await t.createStore();
        target = (await shop.api.post("/v2/suppliers", { name: "T" })).body.data;
        s1 = (await shop.api.post("/v2/suppliers", { name: "S1" })).body.data;
        s2 = (await shop.api.post("/v2/suppliers", { name: "S2" })).body.data;
        foreign = (await other.api.post("/v2/suppliers", { name: "F" })).body.data;
        assert.equal(
          (await shop.api.post("/v2/suppliers/merge", { target_id: target.id, source_ids: [s2.id] })).status,
          200,
        );
      });

      test("each bad source is named: the target itself, merged, missing, another store's, a duplicate; nothing changes", async () => {
        const res = await shop.api.post("/v2/suppliers/merge", {
          target_id: target.id,
          source_ids: [target.id, s2.id, 99999999, foreign.id, s1.id, s1.id],
        });
        assert.equal(res.status, 422);
        assert.equal(res.body.error.code, "validation_failed");
        assert.deepEqual(
          res.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [
            ["source_ids.0", "same_as_target"],
            ["source_ids.1", "merged"],
            ["source_ids.2", "not_found"],
            ["source_ids.3", "not_found"],
            ["source_ids.5", "duplicate"],
          ],
        );
        assert.equal((await shop.api.get(`/v2/suppliers/${s1.id}`)).body.data.archived, false);
      });

      test("a merged target is 422 merged; another store's is 422 not_found", async () => {
        const badTarget = await shop.api.post("/v2/suppliers/merge", {
          target_id: s2.id,
          source_ids: [s1.id],
        });
        assert.equal(badTarget.status, 422);
        assert.deepEqual(
          badTarget.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]),
          [["target_id", "merged"]],
        );
        const missingTarget = await shop.api.post("/v2/suppliers/merge", {
          target_id: foreign.id,
          source_ids: [s1.id],
        });
        assert.equal(missingTarget.status, 422);
        assert.deepEqual(missingTarget.body.error.details[0].field, "target_id");
        assert.deepEqual(missingTarget.body.error.details[0].code, "not_found");
      });

      test("an empty source list and an unknown field are named", async () => {
        const shape = await shop.api.post("/v2/suppliers/merge", {
          target_id: target.id,
          source_ids: [],
          extra: 1,
        });
        assert.equal(shape.status, 422);
        assert.deepEqual(
          shape.body.error.details.map((d: { field: string; code: string }) => [d.field, d.code]).sort(),
          [
            ["extra", "unknown_field"],
            ["source_ids", "invalid_length"],
          ],
        );
      });
    });

    test("a network-linked source refuses the merge with merge_network_blocked and changes nothing", async () => {
      const shop = await t.createStore();
      await insertFixtureVariants(t, shop.id, [21]);
      const target = (await shop.api.post("/v2/suppliers", { name: "T" })).body.data;
      const free = (await shop.api.post("/v2/suppliers", { name: "Free", email: "free@x.test" })).body.data;
      const linked = (await shop.api.post("/v2/suppliers", { name: "Linked" })).body.data;
      await shop.api.put(`/v2/suppliers/${free.id}/catalog`, { rows: [{ inventory_item_id: 21 }] });

      const link = await t.admin.post(`/admin/stores/${shop.id}/suppliers/${linked.id}/network_link`, {
        linked: true,
      });
      assert.equal(link.status, 200);
      assert.equal(link.body.data.id, linked.id);
      assert.equal(link.body.data.network_linked, true);
      assert.equal(link.body.data.updated_at, linked.updated_at);

      const before = await Promise.all(
        [target, free, linked].map((s) => shop.api.get(`/v2/suppliers/${s.id}`)),
      );
      const eventCount = async () =>
        (
          await t.runtime.ctx.db
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("store_id", "=", shop.id)
            .executeTakeFirstOrThrow()
        ).n;
      const eventsBefore = Number(await eventCount());
      clock.advance(1000);
      const res = await shop.api.post("/v2/suppliers/merge", {
        target_id: target.id,
        source_ids: [free.id, linked.id],
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.code, "merge_network_blocked");
      assert.match(res.body.error.message, new RegExp(String(linked.id)));
      const afterRes = await Promise.all(
        [target, free, linked].map((s) => shop.api.get(`/v2/suppliers/${s.id}`)),
      );
      assert.deepEqual(
        afterRes.map((r) => r.body),
        before.map((r) => r.body),
      );
      assert.equal((await shop.api.get(`/v2/suppliers/${free.id}/catalog`)).body.data.length, 1);
      assert.equal(Number(await eventCount()), eventsBefore);

      // Unlinked, the same merge goes through.
      const unlink = await t.admin.post(`/admin/stores/${shop.id}/suppliers/${linked.id}/network_link`, {
        linked: false,
      });
      assert.equal(unlink.body.data.network_linked, false);
      const ok = await shop.api.post("/v2/suppliers/merge", {
        target_id: target.id,
        source_ids: [free.id, linked.id],
      });
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.body.moved, { purchase_orders: 0, items: 1, suppliers: 2 });
    });

    test("admin network_link: 404 for another store's supplier, 422 for a bad body, 401 without the token", async () => {
      const shop = await t.createStore();
      const other = await t.createStore();
      const theirs = (await other.api.post("/v2/suppliers", { name: "Theirs" })).body.data;
      const notMine = await t.admin.post(`/admin/stores/${shop.id}/suppliers/${theirs.id}/network_link`, {
        linked: true,
      });
      assert.equal(notMine.status, 404);
      assert.equal(notMine.body.error.code, "not_found");
      const bad = await t.admin.post(`/admin/stores/${other.id}/suppliers/${theirs.id}/network_link`, {
        linked: "yes",
      });
      assert.equal(bad.status, 422);
      const anon = await t.client().post(`/admin/stores/${other.id}/suppliers/${theirs.id}/network_link`, {
        linked: true,
      });
      assert.equal(anon.status, 401);
    });
  });
});
