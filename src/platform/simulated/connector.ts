import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type {
  CatalogChanges,
  InventoryAdjustment,
  InventoryAdjustResult,
  PlatformConnector,
} from "../connector.ts";
import { applySimAdjustment } from "./adjustment.ts";
import { listSimChanges } from "./change-feed.ts";

/** The simulated platform behind the same connector interface a real platform uses. */
export class SimulatedConnector implements PlatformConnector {
  readonly platform = "simulated";
  /**
   * The simulated platform takes several records' movements in one document, of any size its one
   * transaction can write: a push takes the store's waiting pushes along (push-batches.ts).
   */
  readonly batches = { maxChanges: 10_000 };
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly storeId: number,
  ) {}

  listChanges(watermark: string | null, limit: number): Promise<CatalogChanges> {
    return listSimChanges(this.db, this.storeId, watermark, limit);
  }

  adjustInventory(adjustment: InventoryAdjustment): Promise<InventoryAdjustResult> {
    return applySimAdjustment(this.db, this.clock, this.storeId, adjustment);
  }
}
