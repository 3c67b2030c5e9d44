/** Teardowns run last registered first; each runs even when an earlier one failed, and the failures are thrown after. */
export class Cleanups {
  readonly #teardowns: Array<() => unknown> = [];

  add(teardown: () => unknown): void {
    this.#teardowns.push(teardown);
  }

  async run(): Promise<void> {
    const failures: unknown[] = [];
    for (let teardown = this.#teardowns.pop(); teardown; teardown = this.#teardowns.pop()) {
      try {
        await teardown();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1)
      throw new AggregateError(failures, `${failures.length} teardowns of the suite failed`);
  }
}
