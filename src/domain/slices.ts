/**
 * Long work in slices: a 500-line order takes milliseconds to present, a page of them tens, and a
 * synchronous loop that long holds up every other request of every store (issue 18 item 2). Between
 * slices the event loop first serves what is waiting (I/O, timers), then the work goes on.
 */

/** Resolves after the event loop has served pending I/O and timers (setImmediate runs after them). */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs `work` on each item in order, letting the event loop in between slices of `weight` units. */
export async function eachInSlices<T>(
  items: readonly T[],
  work: (item: T) => void,
  weight: (item: T) => number = () => 1,
  sliceWeight = 500,
): Promise<void> {
  let done = 0;
  for (const item of items) {
    if (done >= sliceWeight) {
      await yieldToLoop();
      done = 0;
    }
    work(item);
    done += weight(item);
  }
}
