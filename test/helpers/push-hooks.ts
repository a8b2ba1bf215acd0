import { catalogModule, createCatalogModule } from "../../src/modules/catalog.ts";
import { allModules } from "../../src/modules/index.ts";
import type { PushHooks } from "../../src/platform/push.ts";

/** The service's modules with the catalog's pushes calling `pushHooks` (tests that stop a push midway). */
export function modulesWithPushHooks(pushHooks: PushHooks) {
  return allModules.map((m) => (m === catalogModule ? createCatalogModule({ pushHooks }) : m));
}
