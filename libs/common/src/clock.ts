/** Time is injected: services read `Clock`, tests replace it with a `FixedClock`. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests can set and advance. */
export class FixedClock extends Clock {
  private current: number;

  constructor(start: Date | string | number = Date.now()) {
    super();
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  set(to: Date | string | number): void {
    this.current = new Date(to).getTime();
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The instant `days` whole days before `from` (retention cut-offs). */
export function daysBefore(from: Date, days: number): Date {
  return new Date(from.getTime() - days * DAY_MS);
}
