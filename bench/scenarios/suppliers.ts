import { supplierListQuery } from "../../src/domain/suppliers/repository.ts";
import { suppliersFixture } from "../fixtures.ts";
import type { LoadRequest } from "../lib/load-types.ts";
import { output, type Scenario } from "./scenario.ts";
import { singleReadLoad } from "./single-reads.ts";

export const supplierGet: Scenario = {
  name: "supplier-get",
  title: "GET /v2/suppliers/{id} (1,000 suppliers, each in turn)",
  issue: 4,
  requires: ["GET /v2/suppliers/{id}", "POST /v2/suppliers"],
  async run(b) {
    const { ids } = await suppliersFixture(b);
    const requests: LoadRequest[] = ids.map((id) => ({ method: "GET", path: `/v2/suppliers/${id}` }));
    b.plan("supplier-get", "Query plan of GET /v2/suppliers/{id}", (db) =>
      db.selectFrom("suppliers").selectAll().where("store_id", "=", b.storeId).where("id", "=", ids[0]),
    );
    return singleReadLoad(b, "GET /v2/suppliers/{id}", requests, { suppliers: ids.length });
  },
};

export const supplierList: Scenario = {
  name: "supplier-list",
  title: "GET /v2/suppliers?limit=250 (every page in turn)",
  issue: 4,
  requires: ["GET /v2/suppliers", "POST /v2/suppliers"],
  async run(b) {
    const { ids } = await suppliersFixture(b);
    const paths = ["/v2/suppliers?limit=250"];
    for (;;) {
      const page: { next_cursor: string | null } = await b.api.get(paths[paths.length - 1]);
      if (!page.next_cursor) break;
      paths.push(`/v2/suppliers?limit=250&cursor=${encodeURIComponent(page.next_cursor)}`);
    }
    const requests: LoadRequest[] = paths.map((path) => ({ method: "GET", path }));
    b.plan("supplier-list", "Query plan of GET /v2/suppliers?limit=250 (first page)", (db) =>
      supplierListQuery(db, b.storeId, "active")
        .orderBy("s.updated_at", "asc")
        .orderBy("s.id", "asc")
        .limit(251),
    );
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    return output({ rows: [c1, c32], figures: { suppliers: ids.length, pages: paths.length } });
  },
};
