import type { AppContext } from "./context.ts";
import { anyStoreExists, createKey, createStore, FULL_SCOPES } from "./domain/stores/index.ts";

export interface DemoStore {
  storeId: number;
  apiKey: string;
  /** The store's owner, invited at once: the invitation mail's link sets the password for the console. */
  ownerEmail: string;
}

const DEMO_OWNER_EMAIL = "owner@demo-store.shop.test";

/** On an empty database: a demo store on the simulated platform, seeded, with a full-scope key. */
export async function bootstrapDemoStore(ctx: AppContext): Promise<DemoStore | null> {
  if (await anyStoreExists(ctx.db)) return null;
  const store = await createStore(ctx, {
    name: "Demo Store",
    domain: "demo-store.shop.test",
    currency: "USD",
    timezone: "UTC",
    owner_email: DEMO_OWNER_EMAIL,
    platform: "simulated",
    seed: "demo",
  });
  const key = await createKey(ctx, store.id, { name: "Demo full-access key", scopes: FULL_SCOPES });
  return { storeId: store.id, apiKey: key.key, ownerEmail: DEMO_OWNER_EMAIL };
}
