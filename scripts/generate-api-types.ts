/**
 * Rewrites test/client/stockroom-api.generated.ts from the live /v2/openapi.json (a fresh in-memory
 * service): run it after changing a route's schema or the document, then commit the file.
 */
import { writeFile } from "node:fs/promises";
import { startTestApp } from "../test/helpers/app.ts";
import { GENERATED_TYPES_PATH, generateApiTypes } from "../test/helpers/openapi-client.ts";

const t = await startTestApp();
try {
  const res = await t.client().get("/v2/openapi.json");
  if (res.status !== 200) throw new Error(`GET /v2/openapi.json answered ${res.status}`);
  await writeFile(GENERATED_TYPES_PATH, await generateApiTypes(res.body));
  console.log(`wrote ${GENERATED_TYPES_PATH.pathname}`);
} finally {
  await t.close();
}
