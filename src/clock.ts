/**
 * Every "now" in the service comes from a Clock so tests can move time (retry schedules, retention,
 * folding windows, overdue scans) without sleeping.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to. Starts at the given instant (default: real now, whole ms). */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = new Date()) {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): Date {
    this.current += ms;
    return this.now();
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
