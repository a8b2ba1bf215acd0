import type { Statements } from "./index.ts";

/**
 * Text search for pickers (`q=` on GET /v2/variants and /v2/suppliers). pg_trgm would match inside words
 * but is an extension the embedded database has to load and a hosted server may refuse; these are core
 * PostgreSQL. Each searchable row gets a `simple` tsvector of its words, lower-cased, every run of
 * characters that is neither letter nor digit made a space (so "ABC-123" is the words "abc" and "123",
 * which the stock parser would not do), plus the compact form of codes ("abc123"). A query is each typed
 * word as a prefix (`abc:* & 12:*`). The vectors are SQL functions so that the index expression and the
 * query's are one text; their bodies call only built-in functions, so they never depend on search_path.
 */
const words = (column: string) => `lower(regexp_replace(coalesce(${column}, ''), '[^[:alnum:]]+', ' ', 'g'))`;
const compact = (column: string) =>
  `lower(regexp_replace(coalesce(${column}, ''), '[^[:alnum:]]+', '', 'g'))`;
const vector = (parts: string[]) => `to_tsvector('simple'::regconfig, ${parts.join(" || ' ' || ")})`;

export const searchMigration: Statements = [
  `create function variant_search_vector(product_title text, title text, sku text, barcode text)
    returns tsvector language sql immutable parallel safe as
    $$ select ${vector([
      words("product_title"),
      words("title"),
      words("sku"),
      words("barcode"),
      compact("sku"),
      compact("barcode"),
    ])} $$`,
  `create index variants_search on variants using gin (variant_search_vector(product_title, title, sku, barcode))`,
  `create function supplier_search_vector(name text, company_name text, contact_name text, email text,
      account_number text)
    returns tsvector language sql immutable parallel safe as
    $$ select ${vector([
      words("name"),
      words("company_name"),
      words("contact_name"),
      words("email"),
      words("account_number"),
      compact("account_number"),
    ])} $$`,
  `create index suppliers_search on suppliers using gin
    (supplier_search_vector(name, company_name, contact_name, email, account_number))`,
];
