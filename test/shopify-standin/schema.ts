// The real Admin API schema, loaded from the introspection shipped beside this file (see schema/NOTICE),
// so validating a document needs no network. Built once per process: it is 11 MB of JSON.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from "graphql";

export const ADMIN_API_VERSION = "2026-10";

let cached: GraphQLSchema | undefined;

export function adminSchema(): GraphQLSchema {
  if (!cached) {
    const file = new URL(`./schema/admin-${ADMIN_API_VERSION}.json.gz`, import.meta.url);
    const introspection = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as {
      data: IntrospectionQuery;
    };
    cached = buildClientSchema(introspection.data);
  }
  return cached;
}
