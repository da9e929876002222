/** Everything time-dependent reads this, so tests advance time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and benchmarks. */
export class ManualClock implements Clock {
  private t: number;
  constructor(start: Date | string | number = '2026-01-01T00:00:00.000Z') {
    this.t = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | string | number): void {
    this.t = new Date(at).getTime();
  }
}
