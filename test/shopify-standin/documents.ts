// The documents a Shopify connector sends, in the shapes the stand-in's tests use. The unit test checks
// each against the real schema, so a shape that drifts from Shopify's API fails there first.
export const SHOP = "query Shop { shop { name currencyCode ianaTimezone } }";

const PAGE = "pageInfo { hasNextPage endCursor }";
const LEVEL_FIELDS =
  'updatedAt item { id } location { id } quantities(names: ["available", "on_hand", "incoming", "committed"]) { name quantity }';

export const PRODUCTS_SINCE = `query Products($first: Int!, $after: String, $query: String) {
  products(first: $first, after: $after, query: $query, sortKey: UPDATED_AT) {
    edges { cursor node { id title status vendor productType updatedAt } }
    ${PAGE}
  }
}`;

export const VARIANTS_SINCE = `query Variants($first: Int!, $after: String, $query: String) {
  productVariants(first: $first, after: $after, query: $query) {
    nodes { id sku title price barcode updatedAt product { id } inventoryItem { id } }
    ${PAGE}
  }
}`;

export const INVENTORY_ITEMS_SINCE = `query Items($first: Int!, $after: String, $query: String) {
  inventoryItems(first: $first, after: $after, query: $query) {
    nodes { id sku tracked updatedAt unitCost { amount currencyCode } }
    ${PAGE}
  }
}`;

export const LOCATIONS = `query Locations($first: Int!, $after: String) {
  locations(first: $first, after: $after, includeInactive: true) {
    nodes { id name isActive updatedAt }
    ${PAGE}
  }
}`;

export const LOCATION_LEVELS_SINCE = `query Levels($location: ID!, $first: Int!, $after: String, $query: String) {
  location(id: $location) {
    inventoryLevels(first: $first, after: $after, query: $query) { nodes { ${LEVEL_FIELDS} } ${PAGE} }
  }
}`;

export const ITEM_LEVELS = `query ItemLevels($ids: [ID!]!) {
  nodes(ids: $ids) {
    ... on InventoryItem { id inventoryLevels(first: 50) { nodes { ${LEVEL_FIELDS} } } }
  }
}`;

export const ADJUST = `mutation Adjust($input: InventoryAdjustQuantitiesInput!, $key: String!) {
  inventoryAdjustQuantities(input: $input) @idempotent(key: $key) {
    inventoryAdjustmentGroup {
      id createdAt reason referenceDocumentUri
      changes { name delta quantityAfterChange ledgerDocumentUri item { id } location { id } }
    }
    userErrors { field message code }
  }
}`;

export const ITEM_COST = `mutation ItemCost($id: ID!, $cost: Decimal!) {
  inventoryItemUpdate(id: $id, input: { cost: $cost }) {
    inventoryItem { id unitCost { amount currencyCode } }
    userErrors { field message }
  }
}`;

export const SUBSCRIBE = `mutation Subscribe($topic: WebhookSubscriptionTopic!, $uri: String!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
    webhookSubscription { id topic uri }
    userErrors { field message }
  }
}`;

export const BULK_RUN = `mutation Bulk($query: String!) {
  bulkOperationRunQuery(query: $query) {
    bulkOperation { id status }
    userErrors { field message code }
  }
}`;

// The inner query of a catalog import: products, their variants, and every level of each item.
export const BULK_CATALOG = `{
  products {
    edges { node {
      id title status updatedAt
      variants { edges { node { id sku title price updatedAt inventoryItem { id unitCost { amount } } } } }
    } }
  }
}`;

export const BULK_LEVELS = `{
  locations(includeInactive: true) {
    edges { node { id name inventoryLevels { edges { node { id ${LEVEL_FIELDS} } } } } }
  }
}`;

const BULK_FIELDS =
  "id status errorCode objectCount rootObjectCount fileSize url partialDataUrl createdAt completedAt";

export const BULK_CURRENT = `query Current { currentBulkOperation(type: QUERY) { ${BULK_FIELDS} } }`;

export const BULK_BY_ID = `query BulkById($id: ID!) { node(id: $id) { ... on BulkOperation { ${BULK_FIELDS} } } }`;
