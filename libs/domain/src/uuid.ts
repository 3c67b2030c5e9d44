const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical text form (any case): what a `uuid` column accepts without an error. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
