import { DEFAULT_CONFIGURATION, OBJECT_KEYS, type StoreConfiguration } from './configuration';
import type { ConfigurationPatch } from './schema';

/**
 * How layers combine (docs/configuration.md, "Merge rule"): the defaults, then the merchant's own
 * values, then the store's. A layer holds only what was set on it. For the nested objects
 * (OBJECT_KEYS) each field is taken from the last layer that sets it; every other key (lists,
 * numbers, strings) is taken whole from the last layer that sets it, so a store's
 * `forbidden_card_brands: []` lifts its merchant's list rather than adding to it.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const objectKeys: ReadonlySet<string> = new Set(OBJECT_KEYS);

/** A layer's stored values after `patch`: a value replaces, `null` removes, absent keeps. */
export function applyPatch(stored: unknown, patch: ConfigurationPatch): Json {
  const next: Json = isObject(stored) ? { ...stored } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) {
      delete next[key];
    } else if (objectKeys.has(key) && isObject(value)) {
      const nested: Json = isObject(next[key]) ? { ...next[key] } : {};
      for (const [field, fieldValue] of Object.entries(value)) {
        if (fieldValue === undefined) continue;
        if (fieldValue === null) delete nested[field];
        else nested[field] = fieldValue;
      }
      if (Object.keys(nested).length === 0) delete next[key];
      else next[key] = nested;
    } else {
      next[key] = value;
    }
  }
  return next;
}

/**
 * What a store is held to: the defaults overlaid with each layer in turn (merchant, then store).
 * The layers were validated when written; only the keys the defaults know are read.
 */
export function effectiveConfiguration(...layers: unknown[]): StoreConfiguration {
  const result: Json = { ...DEFAULT_CONFIGURATION };
  for (const key of OBJECT_KEYS) result[key] = { ...DEFAULT_CONFIGURATION[key] };
  for (const layer of layers) {
    if (!isObject(layer)) continue;
    for (const key of Object.keys(DEFAULT_CONFIGURATION)) {
      const value = layer[key];
      if (value === undefined || value === null) continue;
      if (objectKeys.has(key)) {
        if (isObject(value)) result[key] = { ...(result[key] as Json), ...withoutNulls(value) };
      } else {
        result[key] = value;
      }
    }
  }
  return result as unknown as StoreConfiguration;
}

function withoutNulls(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}
