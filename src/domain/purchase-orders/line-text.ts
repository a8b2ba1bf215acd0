/**
 * A big order's lines as PostgreSQL writes them: the JSON text of `lines` exactly as the presenter
 * and the response schema give it (issue 18 item 2). A 500-line order's GET or PATCH made the API's
 * event loop parse 500 rows in the driver, present them (Big.js for three amounts a line), serialize
 * them for the answer and again for the PATCH's event: milliseconds of synchronous work and a young
 * generation full of garbage per request, which another store's request waited behind. Built by the
 * server, the lines reach Node as one string, which it only splices into the answer and the event.
 *
 * The text is what JSON.stringify gives for `presentLine` (presenter.ts), byte for byte: the same
 * keys in the same order (also the response schema's), strings escaped as JSON (`to_json`), numbers as
 * their shortest text (`trim_scale`), money as `formatMoney`/`formatUnitCost` write it (half-up
 * rounding to the currency's minor units, which money-sql.ts takes from the same Intl data).
 * test/http/purchase-order-line-text.test.ts compares the two on lines with every field set.
 */
import type { TextOrBytes } from "../../db/text-bytes.ts";
import { moneySqlText } from "../money-sql.ts";
import type { PurchaseOrder } from "./presenter.ts";

/** A JSON value of a nullable SQL value: its JSON (text or json), or null. */
export const orNull = (text: string) => `coalesce(${text}, 'null')`;

/**
 * JSON of each kind of column, as JSON.stringify writes the presenter's value: text, or `json`
 * (`to_json`), which `concat` writes as its text. Not `to_json(…)::text`: that cast is an I/O
 * conversion the server sets up anew on every execution of the statement and runs on every value.
 */
export const json = {
  /** An integer (ids, quantities). */
  int: (expr: string) => orNull(`to_json(${expr})`),
  /** A string: quoted and escaped by PostgreSQL's JSON output. */
  text: (expr: string) => orNull(`to_json(${expr})`),
  bool: (expr: string) => `to_json(${expr})`,
  /** `Number(numeric text)`: the value without trailing zeros (numerics never print an exponent). */
  number: (expr: string) => orNull(`to_json(trim_scale(${expr}))`),
  /** formatMoney (money-sql.ts): rounded half up to `places`, exactly that many decimals. */
  money: (expr: string, places: string) => `'"' || ${moneySqlText.money(expr, places)} || '"'`,
  /** formatUnitCost (money-sql.ts; numeric(20, 8): no rounding), never fewer than `places` decimals. */
  unitCost: (expr: string, places: string) => `'"' || ${moneySqlText.unitCost(expr, places)} || '"'`,
};

/** PostgreSQL's limit on a function's arguments (FUNC_MAX_ARGS). */
const MAX_ARGS = 100;

/**
 * `{"key":value,…}` from [key, JSON expression] pairs, in that order; every value must be non-null
 * text or json. One `concat` call writes the object, where a chain of `||` called the text
 * concatenation once per piece and copied the growing text each time (an order's header is 90
 * pieces).
 */
export function object(fields: ReadonlyArray<readonly [string, string]>): string {
  const pieces = fields.flatMap(([key, value], i) => [`'${i === 0 ? "{" : ","}"${key}":'`, value]);
  pieces.push("'}'");
  return concatSql(pieces);
}

/** `concat(…)` of text pieces, nested when they are more than one call takes. */
function concatSql(pieces: readonly string[]): string {
  if (pieces.length <= MAX_ARGS) return `concat(${pieces.join(", ")})`;
  const groups: string[] = [];
  for (let i = 0; i < pieces.length; i += MAX_ARGS) groups.push(concatSql(pieces.slice(i, i + MAX_ARGS)));
  return concatSql(groups);
}

/** A line's warnings as presentLine maps them (code, message, suggested_quantity). */
function warnings(alias: string): string {
  const warning = object([
    ["code", orNull("w.value->'code'")],
    ["message", orNull("w.value->'message'")],
    ["suggested_quantity", orNull("w.value->'suggested_quantity'")],
  ]);
  return `'[' || case when ${alias}.warnings = '[]'::jsonb then '' else array_to_string(array(select ${warning}
    from jsonb_array_elements(${alias}.warnings) with ordinality w order by w.ordinality), ',') end || ']'`;
}

/**
 * One line (table alias `l`) as presentLine's JSON text; `places` is the SQL of the order currency's
 * minor units.
 */
function lineObject(places: string): string {
  return object([
    ["id", json.int("l.id")],
    ["position", json.int("l.position")],
    ["product_title", json.text("l.product_title")],
    ["variant_title", json.text("l.variant_title")],
    ["sku", json.text("l.sku")],
    ["supplier_sku", json.text("l.supplier_sku")],
    ["barcode", json.text("l.barcode")],
    ["pack_code", json.text("l.pack_code")],
    ["inventory_item_id", json.int("l.inventory_item_id")],
    ["variant_id", json.int("l.variant_id")],
    ["product_id", json.int("l.product_id")],
    ["location_id", json.int("l.location_id")],
    ["quantity", json.int("l.quantity")],
    ["cancelled_quantity", json.int("l.cancelled_quantity")],
    ["received_quantity", json.int("l.received_quantity")],
    [
      "outstanding_quantity",
      json.int("greatest(0, l.quantity - l.received_quantity - l.cancelled_quantity)"),
    ],
    ["unit_cost", json.unitCost("l.unit_cost", places)],
    ["discount_percent", json.number("l.discount_percent")],
    ["line_total", json.money("l.line_total", places)],
    ["taxable", json.bool("l.taxable")],
    ["tax_rate_percent", `case when l.taxable then ${json.number("l.tax_rate_percent")} else '0' end`],
    ["weight_grams", json.int("l.weight_grams")],
    ["supplier_note", json.text("l.supplier_note")],
    ["internal_note", json.text("l.internal_note")],
    ["tax_rate_id", json.int("l.tax_rate_id")],
    ["tax_amount", json.money("l.tax_amount", places)],
    ["warnings", warnings("l")],
  ]);
}

/**
 * SQL of the JSON array text (`[…]`) of the lines of the order `po` (an alias in the enclosing
 * statement), in position order, as the presented order's `lines`; `places`: SQL of the minor units
 * of the order's currency, found for each line unless the statement has them already.
 */
export function linesJsonSql(places = moneySqlText.minorUnits("po.currency")): string {
  return jsonArraySql(lineObject(places), LINES_OF_PO, LINES_ORDER);
}

const LINES_OF_PO =
  "from purchase_order_lines l where l.store_id = po.store_id and l.purchase_order_id = po.id";
const LINES_ORDER = "l.position, l.id";

/**
 * JSON text a piece of an order's lines holds, about: a piece starts at the first line that begins
 * past each multiple of it, so it is at most this and one line (linePiecesSql).
 */
export const LINES_PIECE_BYTES = 32 * 1024;

/** linePiecesSql's text before and after its `where`; built on first use. */
let linePiecesText: [string, string] | undefined;

/**
 * SQL of the lines' JSON text of the orders `po` that `where` picks, in pieces: rows of (order id,
 * piece number from 0, text), each piece the JSON texts of consecutive lines joined by commas, the
 * first after `[`, the others after `,`, the last followed by `]`: an order's pieces in number order
 * are linesJsonSql's text byte for byte, and an order without lines has none. For PostgreSQL's COPY
 * (purchase-orders/text-read.ts), which sends a row per message: as one text a 500-line order's
 * ~280 KB came as one message, while which the driver's parser doubled its buffer three times
 * (db/copy-binary.ts); with messages of LINES_PIECE_BYTES (under a socket read of 64 KB) its buffer
 * stays at twice a socket read. The pieces go on to the answer as they are (never joined on the loop).
 */
export function linePiecesSql(where: string): string {
  linePiecesText ??= linePiecesSqlAround("\u0000where\u0000").split("\u0000where\u0000") as [string, string];
  return linePiecesText[0] + where + linePiecesText[1];
}

function linePiecesSqlAround(where: string, places = moneySqlText.minorUnits("po.currency")): string {
  return `select p.order_id, p.piece, case when p.piece = 0 then '[' else ',' end
    || string_agg(p.line, ',' order by p.position, p.id)
    || case when p.piece = max(p.piece) over (partition by p.order_id) then ']' else '' end as text
from (
  select t.order_id, t.position, t.id, t.line, coalesce(sum(octet_length(t.line)) over (partition by t.order_id
      order by t.position, t.id rows between unbounded preceding and 1 preceding), 0) / ${LINES_PIECE_BYTES} as piece
  from (select po.id as order_id, l.position, l.id, ${lineObject(places)} as line
    from purchase_orders po join purchase_order_lines l on l.store_id = po.store_id and l.purchase_order_id = po.id
    where ${where}) t
) p group by p.order_id, p.piece`;
}

/**
 * `[…]` of the JSON texts `element` of `from`'s rows in `orderBy` order, `[]` without rows. An
 * array of the rows, not `string_agg`: the server sets up an aggregate's state (its input, its sort)
 * on every execution of the statement, rows or none, and an order's read has one per part.
 */
export function jsonArraySql(element: string, from: string, orderBy: string): string {
  return `('[' || array_to_string(array(select ${element} ${from} order by ${orderBy}), ',') || ']')`;
}

/**
 * An order as GET shows it with its lines as JSON text: `order` is presented with no lines, and
 * `linesJson` goes where its empty `lines` would be written.
 */
export interface OrderWithLinesText {
  readonly order: PurchaseOrder;
  /**
   * As the database wrote it, in pieces whose concatenation is the text (bytes: db/text-bytes.ts;
   * several from PostgreSQL's COPY, text-read.ts).
   */
  readonly linesJson: readonly TextOrBytes[];
}

/** A presented order: an object, or (a big order on PostgreSQL) one with its lines as text. */
export type PresentedOrder = PurchaseOrder | OrderWithLinesText;

export function hasLinesText(order: PresentedOrder): order is OrderWithLinesText {
  return "linesJson" in order;
}

/**
 * The pieces of the JSON text holding an order presented without lines, with the lines' text put in
 * place of its empty `lines`: the text before the lines, the lines' text, the text after. The first
 * `"lines":[]` in the text is the order's: the keys before it are the order's fields, none of them
 * holding a `lines` (a receipt's come after), and a string value cannot hold an unescaped quote.
 *
 * Pieces, not one string: joined on the event loop, the ~280 KB of a 500-line order were copied into
 * a new string, and again when the answer's headers were put before it, garbage in the loop's young
 * generation twice per request whose collections another store's requests wait behind (issue 18
 * item 2). The answer is written from the pieces (http/json-text-reply.ts) and the event's data is
 * joined by the database (events/outbox.ts).
 */
export function linesPieces(textWithoutLines: string, linesJson: readonly TextOrBytes[]): TextOrBytes[] {
  const marker = '"lines":[]';
  const at = textWithoutLines.indexOf(marker);
  if (at < 0) throw new Error("no empty lines to fill in the order's JSON");
  return [
    `${textWithoutLines.slice(0, at)}"lines":`,
    ...linesJson,
    textWithoutLines.slice(at + marker.length),
  ];
}

/** The presented order's JSON text (JSON.stringify's, as the order's events store it), in pieces. */
export function orderJsonPieces(order: PresentedOrder): readonly TextOrBytes[] {
  return hasLinesText(order)
    ? linesPieces(JSON.stringify(order.order), order.linesJson)
    : [JSON.stringify(order)];
}
