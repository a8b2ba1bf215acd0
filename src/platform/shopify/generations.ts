/**
 * The attempt generation of each call of a pushed document, part of the call's idempotency key.
 * Shopify answers IDEMPOTENCY_PREVIOUS_ATTEMPT_FAILED when a key's attempt failed on its side: that
 * call must be sent again under a new key. The new generation is stored before it is sent, so a
 * retry after a crash sends the same key again and never a third one that could move stock twice.
 *
 * A generation belongs to one call (quantity name and part), not to the whole document: the calls
 * sent before the failed one keep their keys, so a retry of the document replays them instead of
 * moving their stock again.
 *
 * A generation also fixes the call's input: the planned changes less the items it leaves out
 * (`skippedItems`: Shopify refused the call because it no longer has them, so nothing of it applied,
 * and the rest goes under the next generation). A retry thus sends each key with the input it was
 * first sent with, whatever was deleted meanwhile. Likewise `skippedLocations`: locations Shopify no
 * longer has, whose take-off changes (a negative delta) the input leaves out.
 *
 * Where it is kept is the push job's to decide (docs/decisions.md, "Shopify connector": a row per
 * advanced call beside the document's movements); absent means generation 0, nothing left out.
 */
export interface CallAttempt {
  generation: number;
  skippedItems: readonly number[];
  skippedLocations: readonly number[];
}

export interface AttemptGenerations {
  current(documentKey: string, call: string): Promise<number>;
  /** The call's generation and the items it leaves out, read together. */
  attempt(documentKey: string, call: string): Promise<CallAttempt>;
  /**
   * Stores the call's next generation and answers it; with `skippedItems` (and `skippedLocations`),
   * the new generation leaves those out (else what the previous one left out).
   */
  advance(
    documentKey: string,
    call: string,
    skippedItems?: readonly number[],
    skippedLocations?: readonly number[],
  ): Promise<number>;
}

/** Generations in memory: tests, and a process that retries documents only within itself. */
export class InMemoryAttemptGenerations implements AttemptGenerations {
  readonly stored = new Map<string, number>();
  readonly skipped = new Map<string, readonly number[]>();
  readonly skippedLocations = new Map<string, readonly number[]>();

  async current(documentKey: string, call: string): Promise<number> {
    return this.stored.get(`${documentKey} ${call}`) ?? 0;
  }

  async attempt(documentKey: string, call: string): Promise<CallAttempt> {
    return {
      generation: await this.current(documentKey, call),
      skippedItems: this.skipped.get(`${documentKey} ${call}`) ?? [],
      skippedLocations: this.skippedLocations.get(`${documentKey} ${call}`) ?? [],
    };
  }

  async advance(
    documentKey: string,
    call: string,
    skippedItems?: readonly number[],
    skippedLocations?: readonly number[],
  ): Promise<number> {
    const next = (await this.current(documentKey, call)) + 1;
    this.stored.set(`${documentKey} ${call}`, next);
    if (skippedItems !== undefined) this.skipped.set(`${documentKey} ${call}`, [...skippedItems]);
    if (skippedLocations !== undefined && skippedLocations.length > 0)
      this.skippedLocations.set(`${documentKey} ${call}`, [...skippedLocations]);
    return next;
  }
}
