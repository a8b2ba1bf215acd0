// Access scopes: a root field the token's scopes do not cover answers null with ACCESS_DENIED, as the Admin
// API does. A write scope covers its read scope. Only root fields are checked (a nested inventoryItem under
// a product is not), which is enough to catch a connector asking for too few scopes.
import { GraphQLError } from "graphql";

const REQUIRED: Record<string, string> = {
  products: "read_products",
  product: "read_products",
  productVariants: "read_products",
  productVariant: "read_products",
  inventoryItems: "read_inventory",
  inventoryItem: "read_inventory",
  locations: "read_locations",
  location: "read_locations",
  inventoryAdjustQuantities: "write_inventory",
  inventoryItemUpdate: "write_inventory",
};

export function guardScopes<T extends Record<string, unknown>>(root: T, granted: string[]): T {
  const has = (scope: string) =>
    granted.includes(scope) || granted.includes(scope.replace(/^read_/, "write_"));
  const guarded: Record<string, unknown> = { ...root };
  for (const [field, scope] of Object.entries(REQUIRED)) {
    if (field in root && !has(scope)) {
      guarded[field] = () => {
        throw new GraphQLError(
          `Access denied for ${field} field. Required access: \`${scope}\` access scope.`,
          {
            extensions: {
              code: "ACCESS_DENIED",
              documentation: "https://shopify.dev/api/usage/access-scopes",
              requiredAccess: `\`${scope}\` access scope.`,
            },
          },
        );
      };
    }
  }
  return guarded as T;
}
