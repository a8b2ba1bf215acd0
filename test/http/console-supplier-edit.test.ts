/**
 * Editing a supplier in the console (issue 20 item 2: "create and edit every SupplierInput field"),
 * through HTTP as a browser without script: the edit form shows every field as it is stored, saving it
 * untouched changes nothing, and every field can be changed or emptied through it, with the change's
 * event and history written as the API's own PATCH writes them.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestApp, type TestApp, type TestStore } from "../helpers/app.ts";
import { ConsoleAgent, hiddenValue, pageText as text } from "../helpers/console-agent.ts";
import { createSupplier, eventsOf } from "../helpers/factories.ts";

/** What a browser would post from the page's supplier form, as it is drawn (checkboxes as checked). */
function supplierFormFields(html: string): Record<string, string> {
  const form = /<form method="post" action="[^"]*\/suppliers\/\d+" class="stack wide"[\s\S]*?<\/form>/.exec(
    html,
  );
  assert.ok(form, "no supplier form in the page");
  const entities = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  const out: Record<string, string> = {};
  for (const m of form[0].matchAll(/<input ([^>]*)>/g)) {
    const name = /name="([^"]*)"/.exec(m[1])?.[1];
    if (!name) continue;
    const type = /type="([^"]*)"/.exec(m[1])?.[1] ?? "text";
    if (type === "checkbox" && !/ checked/.test(m[1])) continue;
    out[name] = entities(/value="([^"]*)"/.exec(m[1])?.[1] ?? "");
  }
  for (const m of form[0].matchAll(/<textarea [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]] = entities(m[2]);
  for (const m of form[0].matchAll(/<select [^>]*name="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g))
    out[m[1]] = entities(/<option value="([^"]*)" selected[ >]/.exec(m[2])?.[1] ?? "");
  return out;
}

describe("console supplier edit", () => {
  let t: TestApp;
  let store: TestStore;
  let agent: ConsoleAgent;
  const base = () => `/console/stores/${store.id}/suppliers`;

  before(async () => {
    t = await startTestApp();
    store = await t.createStore({ seed: "demo" });
    agent = new ConsoleAgent(t);
    assert.equal((await agent.login()).status, 303);
  });
  after(() => t.close());

  const full = {
    name: "Rose City Ceramics",
    company_name: "Rose City Ceramics LLC",
    type: "manufacturer",
    contact_name: "Dana Park",
    email: "orders@rosecity.test",
    email_cc: ["ap@rosecity.test", "boss@rosecity.test"],
    phone: "+1 503 555 0199",
    account_number: "ACC-9",
    payment_terms: "Net 30",
    notes: "Call before noon.\nAsk for Dana.",
    bill_to_address: "Rose City Ceramics\nPO Box 1",
    currency: "USD",
    location_account_numbers: { "1": "WH-1", "2": "WH 2" },
    lead_time_days: 12,
    min_order_value: "250.00",
    free_freight_threshold: "1000.00",
    taxable: true,
    ships_direct: true,
    auto_restock: true,
    exclude_from_reorder: true,
    default_updates_stock: false,
    address_line1: "1 Main St",
    address_line2: "Suite 4",
    city: "Portland",
    province: "OR",
    zip: "97209",
    country: "United States",
    match_vendors: ["Rose City", "RCC"],
    match_tags: ["ceramic", "mug"],
    match_exclude_tags: ["clearance"],
    dropship_tags: ["dropship"],
  };
  const stored = async (id: number) => {
    const { updated_at, ...rest } = (await store.api.get(`/v2/suppliers/${id}`)).body.data;
    return rest;
  };

  test("the edit form shows every field as stored, and saving it untouched changes nothing", async () => {
    const s = await createSupplier(store.api, full);
    const before = await stored(s.id);
    const edit = await agent.get(`${base()}/${s.id}/edit`);
    assert.equal(edit.status, 200);
    const fields = supplierFormFields(edit.body);
    const { _csrf, ...shown } = fields;
    assert.deepEqual(shown, {
      name: "Rose City Ceramics",
      company_name: "Rose City Ceramics LLC",
      type: "manufacturer",
      currency: "USD",
      account_number: "ACC-9",
      payment_terms: "Net 30",
      lead_time_days: "12",
      min_order_value: "250.00",
      free_freight_threshold: "1000.00",
      contact_name: "Dana Park",
      email: "orders@rosecity.test",
      email_cc: "ap@rosecity.test\nboss@rosecity.test",
      phone: "+1 503 555 0199",
      address_line1: "1 Main St",
      address_line2: "Suite 4",
      city: "Portland",
      province: "OR",
      zip: "97209",
      country: "United States",
      bill_to_address: "Rose City Ceramics\nPO Box 1",
      taxable: "true",
      ships_direct: "true",
      auto_restock: "true",
      exclude_from_reorder: "true",
      default_updates_stock: "false",
      location_account_numbers: "1 = WH-1\n2 = WH 2",
      match_vendors: "Rose City\nRCC",
      match_tags: "ceramic\nmug",
      match_exclude_tags: "clearance",
      dropship_tags: "dropship",
      notes: "Call before noon.\nAsk for Dana.",
    });
    const saved = await agent.post(`${base()}/${s.id}`, fields);
    assert.equal(saved.status, 303, text(saved.body));
    assert.deepEqual(await stored(s.id), before);
    assert.match(text((await agent.get(saved.location as string)).body), /Changes saved\./);
  });

  test("every field is changed or emptied through the form", async () => {
    const s = await createSupplier(store.api, full);
    const fields = supplierFormFields((await agent.get(`${base()}/${s.id}/edit`)).body);
    const changed: Record<string, string> = {
      ...fields,
      name: "Rose City Pottery",
      company_name: "",
      type: "wholesaler",
      currency: "cad",
      account_number: "",
      payment_terms: "Net 60",
      lead_time_days: "",
      min_order_value: "1,250.5",
      free_freight_threshold: "",
      contact_name: "Lee Ortiz",
      email: "",
      email_cc: "",
      phone: "",
      address_line1: "",
      address_line2: "",
      city: "",
      province: "",
      zip: "",
      country: "",
      bill_to_address: "",
      default_updates_stock: "",
      location_account_numbers: "",
      match_vendors: "Pottery Co",
      match_tags: "",
      match_exclude_tags: "",
      dropship_tags: "",
      notes: "",
    };
    // Unchecked boxes are not posted.
    for (const box of ["taxable", "ships_direct", "auto_restock", "exclude_from_reorder"])
      delete changed[box];
    const saved = await agent.post(`${base()}/${s.id}`, changed);
    assert.equal(saved.status, 303, text(saved.body));
    const { id, created_at, archived_at, ...now } = await stored(s.id);
    assert.deepEqual(now, {
      name: "Rose City Pottery",
      company_name: null,
      type: "wholesaler",
      contact_name: "Lee Ortiz",
      email: null,
      email_cc: [],
      phone: null,
      account_number: null,
      payment_terms: "Net 60",
      notes: null,
      bill_to_address: null,
      currency: "CAD",
      location_account_numbers: {},
      lead_time_days: null,
      min_order_value: "1250.50",
      free_freight_threshold: null,
      taxable: false,
      ships_direct: false,
      auto_restock: false,
      exclude_from_reorder: false,
      default_updates_stock: null,
      address: { line1: null, line2: null, city: null, province: null, zip: null, country: null },
      match_vendors: ["Pottery Co"],
      match_tags: [],
      match_exclude_tags: [],
      dropship_tags: [],
      archived: false,
      merged_into_id: null,
    });
    const page = text((await agent.get(saved.location as string)).body);
    assert.match(page, /Changes saved\./);
    assert.match(page, /Minimum order \$1,250\.50 CAD/);
    // The API's own PATCH wrote the change, with its event.
    const events = await eventsOf(t, { type: "supplier", id: s.id });
    assert.deepEqual(
      events.map((e) => e.name),
      ["supplier.created", "supplier.updated"],
    );
  });

  test("a refused edit names the field by its label and keeps the supplier as it was", async () => {
    const s = await createSupplier(store.api, full);
    const before = await stored(s.id);
    const fields = supplierFormFields((await agent.get(`${base()}/${s.id}/edit`)).body);
    const refused = await agent.post(`${base()}/${s.id}`, { ...fields, name: "", lead_time_days: "soon" });
    assert.equal(refused.status, 422);
    const shown = text(refused.body);
    assert.match(shown, /Nothing was saved\. Please correct:/);
    assert.match(refused.body, /<a href="#supplier-lead-time-days">Lead time \(days\)<\/a>/);
    assert.doesNotMatch(shown, /lead_time_days/);
    assert.match(
      refused.body,
      /id="supplier-lead-time-days" name="lead_time_days" value="soon"[^>]* aria-invalid="true"/,
    );
    assert.deepEqual(await stored(s.id), before);
    // The form came back with what was typed, not what is stored.
    assert.equal(supplierFormFields(refused.body).payment_terms, "Net 30");
    assert.equal(hiddenValue(refused.body, "_csrf"), fields._csrf);
  });
});
