import type { FastifyInstance, FastifyRequest } from "fastify";
import sjson from "secure-json-parse";
import { AppError } from "../../domain/errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The one body parser of the API: JSON in UTF-8, read strictly. Invalid UTF-8 is refused rather than
 * silently replaced by U+FFFD (which would store text the client never sent); another charset is 415;
 * an object naming a key twice is refused (JSON.parse keeps the last, so the client and the service
 * could read different requests); `__proto__` and `constructor.prototype` keys are refused. An empty
 * body with a JSON content type means "no body" (action calls such as close).
 */
export function registerJsonBody(app: FastifyInstance, bodyLimit: number): void {
  app.removeContentTypeParser("application/json");
  // JSON only: any other media type is 415 (the console adds its own form parser in its own scope).
  app.removeContentTypeParser("text/plain");
  app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit }, (request, body, done) => {
    try {
      done(null, parseJsonBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

function parseJsonBody(request: FastifyRequest, body: Buffer): unknown {
  const charset = charsetOf(request.headers["content-type"]);
  if (charset !== null && charset !== "utf-8" && charset !== "utf8") {
    throw new AppError(
      "bad_request",
      `The body must be JSON in UTF-8; charset=${charset} is not supported.`,
      undefined,
      415,
    );
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new AppError("bad_request", "The body is not valid UTF-8.");
  }
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = sjson.parse(text, undefined, { protoAction: "error", constructorAction: "error" });
  } catch {
    throw new AppError("bad_request", "The body is not valid JSON.");
  }
  const duplicate = firstDuplicateKey(text);
  if (duplicate !== null) {
    throw new AppError(
      "bad_request",
      `The body is not valid JSON: the key "${duplicate}" appears twice in one object.`,
    );
  }
  return value;
}

function charsetOf(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType);
  return match ? match[1].toLowerCase() : null;
}

/**
 * The first key that appears twice in one object of a text already known to be valid JSON, or null.
 * One pass with an explicit stack (bodies may nest thousands of levels deep). A string is a key when
 * it follows `{` or a `,` inside an object; keys are compared decoded (`"a"` and `"\u0061"` are one key).
 */
export function firstDuplicateKey(text: string): string | null {
  const stack: Array<Set<string> | null> = []; // a set of keys per open object, null per open array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      let escaped = false;
      while (text.charCodeAt(end) !== 0x22) {
        if (text.charCodeAt(end) === 0x5c /* \ */) {
          escaped = true;
          end++;
        }
        end++;
      }
      if (expectKey) {
        const raw = text.slice(i + 1, end);
        const key = escaped ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const keys = stack[stack.length - 1] as Set<string>;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1] instanceof Set;
    }
  }
  return null;
}
