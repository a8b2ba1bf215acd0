// inventoryAdjustQuantities with the rules of API 2026-10 (issue 19; the schema's descriptions of
// InventoryChangeInput and InventoryAdjustQuantitiesUserErrorCode): a mandatory @idempotent(key:), one
// adjustable name per call, changeFromQuantity sent on every change, a ledger document for every name but
// available (refused there, never gid://shopify/, one per call), at most 250 changes, all or nothing.
// `available` and the parked names move on_hand too; incoming moves nothing else; quantityAfterChange is
// null, as observed in live answers.
import { createHash } from "node:crypto";
import { GraphQLError, type GraphQLResolveInfo, getDirectiveValues } from "graphql";
import { checkInputArray } from "./connection.ts";
import { adminSchema } from "./schema.ts";
import { gid, newId, parseGid, type QuantityName, type ShopState } from "./state.ts";
import { shopifyDateTime } from "./time.ts";
import type { Views } from "./views.ts";

const ADJUSTABLE = ["available", "incoming", "damaged", "quality_control", "reserved", "safety_stock"];
const MOVES_ON_HAND = ["available", "damaged", "quality_control", "reserved", "safety_stock"];
// Shopify's adjustment reasons (the `reason` field's description links the list).
const REASONS = (
  "correction cycle_count_available damaged movement_canceled movement_created movement_received " +
  "movement_updated other promotion quality_control received reservation_created reservation_deleted " +
  "reservation_updated restock safety_stock shrinkage"
).split(" ");
const LIMIT = 2_000_000_000;

interface ChangeInput {
  inventoryItemId: string;
  locationId: string;
  delta: number;
  changeFromQuantity?: number | null;
  ledgerDocumentUri?: string | null;
}
interface AdjustInput {
  name: string;
  reason: string;
  referenceDocumentUri?: string | null;
  changes: ChangeInput[];
}
type UserError = { field: string[]; message: string; code: string | null };

export interface AdjustHost {
  now(): Date;
  /** A refusal forced by the test's fault switch, taken once. */
  takeForcedRefusal(): { code: string; message: string } | null;
  /**
   * Whether this request, which takes a new key, is held by the test's switch: its key stays in
   * progress and its answer waits until the test releases it.
   */
  takeHold(shop: ShopState, key: string): boolean;
  levelsChanged(shop: ShopState, levels: { itemId: number; locationId: number }[]): void;
}

const isUri = (value: string) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(value);

export function adjustQuantities(
  shop: ShopState,
  views: Views,
  host: AdjustHost,
  input: AdjustInput,
  info: GraphQLResolveInfo,
) {
  const directive = adminSchema().getDirective("idempotent")!;
  const key = getDirectiveValues(directive, info.fieldNodes[0], info.variableValues)?.key as
    | string
    | undefined;
  if (!key) {
    throw new GraphQLError("The @idempotent directive is required for this mutation.", {
      extensions: { code: "BAD_REQUEST" },
    });
  }
  checkInputArray(input.changes.length, ["inventoryAdjustQuantities", "input", "changes"]);
  const refused = (errors: UserError[]) => ({ inventoryAdjustmentGroup: null, userErrors: errors });
  const fingerprint = createHash("sha256").update(JSON.stringify(input)).digest("hex");
  const known = shop.idempotency.get(key);
  // The schema's InventoryAdjustQuantitiesUserErrorCode: a request under a key whose first request is
  // still being processed is refused ("currently in progress, please try again"), not answered its
  // result. Requests here run one at a time, so only a held request (holdNextAdjust) is in progress.
  if (known?.inProgress) {
    return refused([
      {
        field: ["input"],
        message: "This request is currently in progress, please try again.",
        code: "IDEMPOTENCY_CONCURRENT_REQUEST",
      },
    ]);
  }
  if (known?.failed) {
    return refused([
      {
        field: ["input"],
        message: "A previous attempt with this idempotency key failed: use a new key.",
        code: "IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED",
      },
    ]);
  }
  if (known && known.fingerprint !== fingerprint) {
    return refused([
      {
        field: ["input"],
        message: "The idempotency key was used with different parameters.",
        code: "IDEMPOTENCY_KEY_PARAMETER_MISMATCH",
      },
    ]);
  }
  if (known) return known.payload;

  const forced = host.takeForcedRefusal();
  if (forced) {
    if (forced.code === "IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED")
      shop.idempotency.set(key, { fingerprint, payload: null, failed: true });
    return refused([{ field: ["input"], message: forced.message, code: forced.code }]);
  }

  const errors = checkInput(shop, input);
  if (errors.length) return refused(errors);

  const at = host.now();
  const name = input.name as QuantityName;
  const applied = input.changes.map((change) => {
    const level = shop.level(
      parseGid(change.inventoryItemId, "InventoryItem")!,
      parseGid(change.locationId, "Location")!,
    )!;
    level.quantities[name] += change.delta;
    if (MOVES_ON_HAND.includes(name)) level.quantities.on_hand += change.delta;
    level.updatedAt = at;
    return { level, change };
  });
  const changes = applied.flatMap(({ level, change }) => {
    const base = {
      __typename: "InventoryChange",
      delta: change.delta,
      quantityAfterChange: null,
      item: () => views.item(shop.items.get(level.itemId)!),
      location: () => views.location(shop.locations.get(level.locationId)!),
    };
    const own = { ...base, name, ledgerDocumentUri: change.ledgerDocumentUri ?? null };
    return MOVES_ON_HAND.includes(name)
      ? [own, { ...base, name: "on_hand", ledgerDocumentUri: null }]
      : [own];
  });
  const payload = {
    inventoryAdjustmentGroup: {
      __typename: "InventoryAdjustmentGroup",
      id: gid("InventoryAdjustmentGroup", newId()),
      createdAt: shopifyDateTime(at),
      reason: input.reason,
      referenceDocumentUri: input.referenceDocumentUri ?? null,
      app: null,
      staffMember: null,
      changes: (args: { quantityNames?: string[] }) =>
        changes.filter((c) => !args.quantityNames || args.quantityNames.includes(c.name)),
    },
    userErrors: [],
  };
  shop.idempotency.set(key, { fingerprint, payload, failed: false, inProgress: host.takeHold(shop, key) });
  host.levelsChanged(
    shop,
    applied.map(({ level }) => level),
  );
  return payload;
}

function checkInput(shop: ShopState, input: AdjustInput): UserError[] {
  const errors: UserError[] = [];
  const add = (field: (string | number)[], code: string | null, message: string) =>
    errors.push({ field: field.map(String), code, message });
  if (!ADJUSTABLE.includes(input.name)) {
    add(
      ["input", "name"],
      "INVALID_QUANTITY_NAME",
      `The quantity name must be one of: ${ADJUSTABLE.join(", ")}.`,
    );
  }
  if (!REASONS.includes(input.reason))
    add(["input", "reason"], "INVALID_REASON", "The specified reason is invalid.");
  if (input.referenceDocumentUri != null && !isUri(input.referenceDocumentUri)) {
    add(
      ["input", "referenceDocumentUri"],
      "INVALID_REFERENCE_DOCUMENT",
      "The reference document URI is invalid.",
    );
  }
  const ledgers = new Set(input.changes.map((c) => c.ledgerDocumentUri ?? null));
  if (ledgers.size > 1) {
    add(["input", "changes"], "MAX_ONE_LEDGER_DOCUMENT", "Only one ledger document URI is allowed per call.");
  }
  for (const [i, change] of input.changes.entries()) {
    const at = ["input", "changes", i];
    if (!("changeFromQuantity" in change)) {
      // The schema says the mutation "returns an error" without naming a code: a userError without one.
      add(
        [...at, "changeFromQuantity"],
        null,
        "changeFromQuantity is required: send null to skip the compare.",
      );
    }
    const ledger = change.ledgerDocumentUri ?? null;
    if (!ADJUSTABLE.includes(input.name)) {
      // The name is refused already: which ledger rule applies is unknown.
    } else if (input.name === "available" && ledger !== null) {
      add(
        [...at, "ledgerDocumentUri"],
        "INVALID_AVAILABLE_DOCUMENT",
        "A ledger document URI is not allowed when adjusting available.",
      );
    } else if (input.name !== "available" && ledger === null) {
      add(
        [...at, "ledgerDocumentUri"],
        "INVALID_QUANTITY_DOCUMENT",
        "A ledger document URI is required except when adjusting available.",
      );
    } else if (ledger?.startsWith("gid://shopify/")) {
      add(
        [...at, "ledgerDocumentUri"],
        "INTERNAL_LEDGER_DOCUMENT",
        "Internal (gid://shopify/) ledger documents are not allowed.",
      );
    } else if (ledger !== null && !isUri(ledger)) {
      add(
        [...at, "ledgerDocumentUri"],
        "INVALID_LEDGER_DOCUMENT",
        "The specified ledger document is invalid.",
      );
    }
    const itemId = parseGid(change.inventoryItemId, "InventoryItem");
    const locationId = parseGid(change.locationId, "Location");
    if (itemId === null || !shop.items.has(itemId)) {
      add(
        [...at, "inventoryItemId"],
        "INVALID_INVENTORY_ITEM",
        "The specified inventory item could not be found.",
      );
      continue;
    }
    const level = locationId === null ? undefined : shop.level(itemId, locationId);
    if (!level) {
      add([...at, "locationId"], "INVALID_LOCATION", "The specified location could not be found.");
      continue;
    }
    const current = ADJUSTABLE.includes(input.name) ? level.quantities[input.name as QuantityName] : 0;
    if (change.changeFromQuantity != null && change.changeFromQuantity !== current) {
      add(
        [...at, "changeFromQuantity"],
        "CHANGE_FROM_QUANTITY_STALE",
        "The quantity has changed since changeFromQuantity was read.",
      );
    }
    if (current + change.delta > LIMIT)
      add([...at, "delta"], "INVALID_QUANTITY_TOO_HIGH", "The quantity can't be higher than 2,000,000,000.");
    if (current + change.delta < -LIMIT)
      add([...at, "delta"], "INVALID_QUANTITY_TOO_LOW", "The quantity can't be lower than -2,000,000,000.");
  }
  return errors;
}
