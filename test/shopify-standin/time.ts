// Shopify's times have whole seconds: the Admin API's DateTime (`"2019-09-07T15:50:00Z"`, shopify.dev
// "DateTime" scalar), webhook bodies' created_at/updated_at and a bulk operation's JSONL. The stand-in
// keeps its records' times in ms (its clock) and answers, searches and sorts them at the second, so
// two changes in one second carry one time, as on a busy store. (The X-Shopify-Triggered-At header
// is not a DateTime field and keeps its fraction, as Shopify's does.)

/** The whole second a time falls in, in ms since the epoch. */
export const wholeSecond = (at: Date): number => Math.floor(at.getTime() / 1000) * 1000;

/** A time as Shopify writes a DateTime: `2026-11-27T22:47:55Z`. */
export const shopifyDateTime = (at: Date): string =>
  `${new Date(wholeSecond(at)).toISOString().slice(0, 19)}Z`;
