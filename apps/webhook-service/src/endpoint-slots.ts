/**
 * Tries in flight per webhook in this process, at most `max` each: the per-endpoint bound that keeps
 * one slow or dead endpoint from holding every slot of the worker (docs/webhooks.md, "Isolation").
 */
export class EndpointSlots {
  readonly #inFlight = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes a slot of the endpoint, or answers false when it has `max` tries in flight. */
  tryTake(endpoint: string): boolean {
    const taken = this.#inFlight.get(endpoint) ?? 0;
    if (taken >= this.max) return false;
    this.#inFlight.set(endpoint, taken + 1);
    return true;
  }

  release(endpoint: string): void {
    const taken = (this.#inFlight.get(endpoint) ?? 1) - 1;
    if (taken <= 0) this.#inFlight.delete(endpoint);
    else this.#inFlight.set(endpoint, taken);
  }

  inFlight(endpoint: string): number {
    return this.#inFlight.get(endpoint) ?? 0;
  }
}
