import { Readable } from "node:stream";
import type { TextOrBytes } from "../db/text-bytes.ts";

/**
 * The streams an answer's pieces are sent from (a big order's text, a page's rows), one piece at a
 * time as the socket takes them. Not `Readable.from`: on Node 20 a stream it makes leaves objects that
 * live through the young generation's collections after the answer is sent, and what lives through
 * them is what each collection copies, and then promotes into the old generation, while every other
 * store's requests wait (issue 18 item 2). Measured: 3,000 answers of nine 32 KB pieces through a bare
 * HTTP server, `Readable.from(array)` against the stream below, 3.5 / 0.2 MB copied by the scavenges
 * and 3.2 / 0.5 MB promoted, 6 / 0 full collections; from an async generator, 1.9 / 0.6 MB copied
 * (docs/history/reliability-journal.md 5b, eighteenth session).
 */

/** A stream of pieces already in hand, in order. */
export function streamOfPieces(pieces: readonly TextOrBytes[]): Readable {
  let next = 0;
  return new Readable({
    objectMode: true,
    highWaterMark: 1,
    read() {
      while (next < pieces.length) if (!this.push(pieces[next++])) return;
      this.push(null);
    },
  });
}

/**
 * A stream of the pieces an async iterator gives, each asked for once the stream wants more; the
 * iterator is ended (its `return`) when the stream is destroyed first (the client went away), as
 * `Readable.from` ends it, and its error destroys the stream.
 */
export function streamOfAsyncPieces(pieces: AsyncIterator<TextOrBytes>): Readable {
  let pulling = false;
  let ended = false;
  const pull = () => {
    pieces.next().then(
      ({ value, done }) => {
        if (stream.destroyed) return;
        if (done) {
          ended = true;
          stream.push(null);
        } else if (stream.push(value)) pull();
        else pulling = false;
      },
      (error: Error) => stream.destroy(error),
    );
  };
  const stream = new Readable({
    objectMode: true,
    highWaterMark: 1,
    read() {
      if (pulling) return;
      pulling = true;
      pull();
    },
    destroy(error, done) {
      if (!ended) pieces.return?.().catch(() => {});
      done(error);
    },
  });
  return stream;
}
