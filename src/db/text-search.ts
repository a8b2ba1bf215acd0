import { AppError } from "../domain/errors.ts";

/** Words a search may have: more narrow nothing a picker needs and cost the index a lookup each. */
const MAX_WORDS = 8;

/**
 * The words of a typed search as migration 016 splits a record's text: lower-case, cut at every run of
 * characters that are neither letter nor digit. Only letters and digits remain, so no word can carry
 * tsquery syntax.
 */
export function searchWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .slice(0, MAX_WORDS);
}

/**
 * `to_tsquery('simple', …)` text matching records that have every typed word as the start of one of
 * theirs ("blu shi" finds "Blue T-Shirt"); a search with no letter or digit is 400 invalid_filter.
 */
export function prefixQuery(q: string): string {
  const words = searchWords(q);
  if (words.length === 0) {
    throw new AppError("invalid_filter", "The search `q` needs at least one letter or digit.", [
      { field: "q", code: "no_words", message: "needs at least one letter or digit" },
    ]);
  }
  return words.map((word) => `${word}:*`).join(" & ");
}
