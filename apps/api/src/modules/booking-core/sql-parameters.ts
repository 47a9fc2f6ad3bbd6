/**
 * A statement's bound values, each placeholder numbered as its value is added, in the order the text is built: no
 * position is counted by hand, so a value added or moved cannot leave a placeholder pointing at another.
 */
export class Parameters {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
