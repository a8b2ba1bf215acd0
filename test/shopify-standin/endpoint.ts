// POST /admin/api/<version>/graphql.json for one shop: validate against the schema, charge the requested
// cost to the shop's bucket (THROTTLED as HTTP 200 when it does not hold it; MAX_COST_EXCEEDED over
// 1,000 points), execute (root fields the token's scopes do not cover are ACCESS_DENIED), refund the
// difference to the actual cost, and report the cost on every answer.
import { executeSync, type FragmentDefinitionNode, Kind, type OperationDefinitionNode } from "graphql";
import type { BulkRunner } from "./bulk.ts";
import { type CostBucket, queryCost } from "./cost.ts";
import { type MutationHost, mutationRoot } from "./mutations.ts";
import { queryRoot } from "./queries.ts";
import { adminSchema } from "./schema.ts";
import { guardScopes } from "./scopes.ts";
import type { ShopState } from "./state.ts";
import { checkDocument } from "./validate.ts";
import { viewsOf } from "./views.ts";

const SINGLE_QUERY_MAX = 1000;

export interface GraphqlRequest {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

/** The app's installation as the token's grant sees it: its access scopes. */
function installation(scopes: string[]) {
  return {
    __typename: "AppInstallation",
    id: "gid://shopify/AppInstallation/1",
    accessScopes: scopes.map((handle) => ({ __typename: "AccessScope", handle, description: handle })),
  };
}

export function answerGraphql(
  { shop, scopes }: { shop: ShopState; scopes: string[] },
  bucket: CostBucket,
  bulk: BulkRunner,
  host: MutationHost,
  request: GraphqlRequest,
): Record<string, unknown> {
  const cost = (requested: number, actual: number | null) => ({
    cost: { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: bucket.status() },
  });
  if (typeof request.query !== "string") {
    return { errors: [{ message: "No query string was present" }], extensions: cost(0, 0) };
  }
  const checked = checkDocument(request.query);
  if (!checked.ok) return { errors: checked.errors, extensions: cost(0, 0) };

  const schema = adminSchema();
  const operations = checked.document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation =
    operations.length === 1 ? operations[0] : operations.find((o) => o.name?.value === request.operationName);
  if (!operation) {
    return { errors: [{ message: "An operation name is required" }], extensions: cost(0, 0) };
  }
  const fragments = Object.fromEntries(
    checked.document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const variables = (request.variables ?? {}) as Record<string, unknown>;
  const requested = queryCost(schema, operation, fragments, variables);
  if (requested > SINGLE_QUERY_MAX) {
    return {
      errors: [
        {
          message: `Query cost is ${requested}, which exceeds the single query max cost limit (${SINGLE_QUERY_MAX}).`,
          extensions: { code: "MAX_COST_EXCEEDED", cost: requested, maxCost: SINGLE_QUERY_MAX },
        },
      ],
      extensions: cost(requested, null),
    };
  }
  if (!bucket.take(requested)) {
    return {
      errors: [
        {
          message: "Throttled",
          extensions: { code: "THROTTLED", documentation: "https://shopify.dev/api/usage/rate-limits" },
        },
      ],
      extensions: cost(requested, null),
    };
  }
  const views = viewsOf(shop, false);
  const root =
    operation.operation === "mutation"
      ? mutationRoot(shop, views, bulk, host)
      : { ...queryRoot(shop, views, bulk, false), currentAppInstallation: () => installation(scopes) };
  const rootValue = guardScopes(root, scopes);
  const result = executeSync({
    schema,
    document: checked.document,
    rootValue,
    variableValues: variables,
    operationName: operation.name?.value,
  });
  const data = JSON.parse(JSON.stringify(result.data ?? null));
  const actual = Math.min(requested, queryCost(schema, operation, fragments, variables, data ?? {}));
  bucket.refund(requested - actual);
  const errors = result.errors?.map((e) => e.toJSON());
  return { ...(errors ? { errors } : {}), data, extensions: cost(requested, actual) };
}
