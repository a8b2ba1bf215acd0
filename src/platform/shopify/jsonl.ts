import { createInterface } from "node:readline";
import type { Dispatcher } from "undici";
import { undici } from "../../undici.ts";
import { PlatformTransientError } from "../connector.ts";

/**
 * The lines of a bulk operation's JSONL result, parsed one at a time as they arrive (a catalog's
 * result is never held as one string). The URL is fetched as Shopify gives it (a signed link, no
 * access token).
 */
export async function* jsonlLines(
  dispatcher: Dispatcher,
  url: string,
  timeoutMs: number,
): AsyncGenerator<Record<string, unknown>> {
  let response: Dispatcher.ResponseData;
  try {
    response = await undici().request(url, {
      method: "GET",
      dispatcher,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new PlatformTransientError(`the bulk result could not be fetched: ${(error as Error).message}`);
  }
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new PlatformTransientError(`the bulk result answered ${response.statusCode}`);
  }
  try {
    for await (const line of createInterface({ input: response.body, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line.trim() !== "") yield JSON.parse(line) as Record<string, unknown>;
    }
  } catch (error) {
    throw new PlatformTransientError(`the bulk result broke off: ${(error as Error).message}`);
  }
}
