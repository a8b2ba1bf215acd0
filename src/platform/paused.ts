import { PlatformTransientError } from "./connector.ts";

/**
 * The store's platform takes no pushes until someone acts (a Shopify shop `disconnected`: its token
 * was refused or the app uninstalled). Not an attempt that failed: the push job waits without spending
 * its attempts, the record stays `pending` with this message, and reconnecting the store resumes the
 * waiting pushes at once (resumePausedPushes).
 */
export class PlatformPausedError extends PlatformTransientError {
  override name = "PlatformPausedError";
}
