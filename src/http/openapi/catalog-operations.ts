import type { OperationDoc } from "./operation.ts";

const PAGED =
  "A page of at most `limit` (1 to 250, default 50) rows, oldest update first; pass `next_cursor` as `cursor` for the next page (an unreadable cursor is 400 `invalid_cursor`; a cursor is valid only with the filters that gave it). `updated_at_min` is the change feed: overlap windows by a minute or two.";

/** The account, the catalog mirror and suppliers. */
export const CATALOG_OPERATIONS: Record<string, OperationDoc> = {
  "GET /v2/whoami": {
    operationId: "getWhoami",
    description:
      'The store (`shop`), the key (its scopes and expiry) and `api_version` "2", without a `data` wrapper, so a wrong key or a missing scope shows up at once. Every key may call it.',
  },
  "GET /v2/products": {
    operationId: "listProducts",
    description: `Products of the platform's catalog, filtered by \`status\` and \`vendor\`; \`include=variants\` embeds each product's variants. ${PAGED}`,
  },
  "GET /v2/products/{id}": {
    operationId: "getProduct",
    description: "One product by its platform id, with its variants embedded.",
  },
  "GET /v2/variants": {
    operationId: "listVariants",
    description: `Variants, filtered by \`product_id\`, exact \`sku\` (repeat the parameter for up to 250 SKUs: \`sku=A&sku=B\`, variants having any of them; added by this service), exact \`barcode\`, \`inventory_item_id\` (up to 250, comma-separated) or the \`q\` search. ${PAGED}`,
  },
  "GET /v2/variants/{id}": {
    operationId: "getVariant",
    description: "One variant by its platform id.",
  },
  "GET /v2/locations": {
    operationId: "listLocations",
    description: `The active locations the store has not hidden in its settings. ${PAGED}`,
  },
  "GET /v2/locations/{id}": {
    operationId: "getLocation",
    description: "One location by its platform id.",
  },
  "GET /v2/inventory_levels": {
    operationId: "listInventoryLevels",
    description: `Stock of each item at each location, filtered by \`inventory_item_id\` and \`location_id\`. A level is the platform's last report plus the movements this service has recorded since. ${PAGED}`,
  },
  "GET /v2/suppliers": {
    operationId: "listSuppliers",
    description: `Archived suppliers are left out unless \`archived\` is \`true\` (only archived) or \`all\`. \`q\` searches words; \`name\` (added by this service) finds a supplier by its whole name, ignoring case. ${PAGED}`,
  },
  "POST /v2/suppliers": {
    operationId: "createSupplier",
    description: "Answers 201 with the supplier. Emits `supplier.created`.",
  },
  "POST /v2/suppliers/merge": {
    operationId: "mergeSuppliers",
    description:
      "Moves the sources' purchase orders and catalog rows to the target, fills the target's blank details from the sources, archives the sources with `merged_into_id` set, and answers the survivor with the counts moved. A source with a live network link is refused with `merge_network_blocked`. Emits `supplier.merged` (the survivor), `supplier.archived` per source and `purchase_order.updated` per moved order.",
  },
  "POST /v2/suppliers/merge/preview": {
    operationId: "previewSupplierMerge",
    description:
      "Takes a merge body and answers what the merge would do at this moment: the survivor as it would be and the counts that would move, `moved.price_lists` being the moved catalog items that carry price tiers (in force or upcoming). The same checks and refusals as the merge; nothing is written and no event is sent. Needs only `read`. Not part of the contract's list; added by this service.",
  },
  "GET /v2/suppliers/{id}": {
    operationId: "getSupplier",
    description: "One supplier, archived or not.",
  },
  "PATCH /v2/suppliers/{id}": {
    operationId: "updateSupplier",
    description:
      "Fields left out are left alone; `null` clears a nullable field. Emits `supplier.updated` (changes within 5 s fold into one event); a PATCH that changes nothing emits nothing.",
  },
  "POST /v2/suppliers/{id}/archive": {
    operationId: "archiveSupplier",
    description:
      "Hides the supplier from lists and pickers; its history is kept and new orders refuse it. Takes no body. Emits `supplier.archived`.",
  },
  "POST /v2/suppliers/{id}/unarchive": {
    operationId: "unarchiveSupplier",
    description: "Makes an archived supplier usable again. Takes no body. Emits `supplier.updated`.",
  },
  "GET /v2/suppliers/{id}/catalog": {
    operationId: "listSupplierCatalog",
    description: `The items this supplier sells, with its codes, pack sizes, minimums and tiered prices; \`inventory_item_id\` (added by this service: one id, or up to 250 separated by commas, as on /v2/variants) answers only those items' rows, none for an item the supplier does not list. ${PAGED}`,
  },
  "PUT /v2/suppliers/{id}/catalog": {
    operationId: "upsertSupplierCatalog",
    description:
      "Each row names an item by `inventory_item_id` or `variant_id`; fields left out are left alone; `tiers` replaces the item's whole price list for this supplier and `tiers: []` removes it; `is_primary: true` makes this supplier the item's primary and clears any other supplier's pin. An unknown or another store's item refuses the whole request before anything is written. Answers the rows as they now stand.",
  },
  "DELETE /v2/suppliers/{id}/catalog/{inventory_item_id}": {
    operationId: "removeSupplierCatalogItem",
    description:
      "Removes the association and this supplier's prices for the item; order lines already written keep their values. Answers `{inventory_item_id, deleted}`.",
  },
};
