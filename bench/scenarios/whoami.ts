import { hashSecret } from "../../src/domain/secrets.ts";
import { output, type Scenario, target } from "./scenario.ts";

/**
 * GET /v2/whoami with everything a request goes through: key lookup (one indexed query joining the
 * key to its store), scope check, rate limits (in memory), the request log (buffered, one multi-row
 * insert every 250 ms), the response schema.
 */
export const whoami: Scenario = {
  name: "whoami",
  title: "GET /v2/whoami",
  issue: 2,
  requires: ["GET /v2/whoami"],
  async run(b) {
    const requests = [{ method: "GET" as const, path: "/v2/whoami" }];
    // The key lookup of src/http/plugins/auth.ts (same FROM, JOIN and WHERE; fewer columns shown).
    b.plan("whoami", "Query plan of the key lookup every /v2 request makes", (db) =>
      db
        .selectFrom("api_keys as k")
        .innerJoin("stores as s", "s.id", "k.store_id")
        .select(["k.id as key_id", "k.scopes", "k.revoked_at", "s.id as store_id", "s.api_access"])
        .where("k.key_hash", "=", hashSecret(b.key)),
    );
    const c1 = await b.load("c=1", { connections: 1, requests });
    const c32 = await b.load("c=32", { connections: 32, requests });
    const pg = b.kind === "postgres";
    return output({
      rows: [c1, c32],
      targets: [
        target(
          2,
          "whoami at 32 connections ≥ 60% of the ceiling (PostgreSQL)",
          c32.ratio,
          "%",
          pg ? (c32.ratio ?? 0) >= 0.6 : null,
        ),
        target(
          2,
          "whoami p99 at 32 connections < 20 ms (PostgreSQL)",
          c32.p99,
          "ms",
          pg ? c32.p99 < 20 : null,
        ),
        target(2, "whoami p99 at 1 connection (printed beside it)", c1.p99, "ms", null),
      ],
    });
  },
};
