/** A sleep that a notification can cut short; a wake-up that comes while the loop is busy is not lost. */
export class Wakeup {
  private pending = false;
  private wakeSleeper: (() => void) | undefined;

  wake(): void {
    if (this.wakeSleeper) this.wakeSleeper();
    else this.pending = true;
  }

  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wakeSleeper = done;
    });
  }
}
