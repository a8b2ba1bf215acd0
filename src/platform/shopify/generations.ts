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
 * Where it is kept is the push job's to decide (docs/decisions.md, "Shopify connector": a row per
 * advanced call beside the document's movements); absent means generation 0.
 */
export interface AttemptGenerations {
  current(documentKey: string, call: string): Promise<number>;
  /** Stores the call's next generation and answers it. */
  advance(documentKey: string, call: string): Promise<number>;
}

/** Generations in memory: tests, and a process that retries documents only within itself. */
export class InMemoryAttemptGenerations implements AttemptGenerations {
  readonly stored = new Map<string, number>();

  async current(documentKey: string, call: string): Promise<number> {
    return this.stored.get(`${documentKey} ${call}`) ?? 0;
  }

  async advance(documentKey: string, call: string): Promise<number> {
    const next = (await this.current(documentKey, call)) + 1;
    this.stored.set(`${documentKey} ${call}`, next);
    return next;
  }
}
