import { ValidationError } from '@kessai/domain';
import { findInvalidText } from './nul-guard';

/**
 * The shape every JSON text the gateway parses must keep (docs/security.md, "Request bodies and
 * headers"). No request the SDK sends comes near them: the deepest (a subscription batch's metadata
 * array) nests 5 levels, the largest object and array are a metadata's, which its 16 KiB bound keeps
 * under ~2,400 keys and ~8,200 items. What they stop is a body built to cost: a 1 MiB body could
 * otherwise nest 500,000 levels (any recursive walk of it overflows the stack) or hold 250,000 keys
 * that every later step iterates and sorts.
 */
export const JSON_LIMITS = {
  /** objects and arrays inside one another, the outermost counting as 1 */
  maxDepth: 32,
  /** members of one object */
  maxMembers: 4_096,
  /** items of one array */
  maxItems: 10_000,
} as const;

export type JsonLimits = { [K in keyof typeof JSON_LIMITS]: number };

/** What a scan of a JSON text found. */
export interface JsonTextScan {
  /** why the text is refused (nesting or size), or null */
  refused: 'depth' | 'members' | 'items' | null;
  /** a string or key spells U+0000 or a lone surrogate (`\u0000`, `\ud800`): the parsed value must be walked */
  suspectText: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const LETTER_U = 0x75;

/** The code unit a `\uXXXX` escape at `at` (the backslash) spells, or -1 when it is not one. */
function escapedUnit(text: string, at: number): number {
  if (text.charCodeAt(at) !== BACKSLASH || text.charCodeAt(at + 1) !== LETTER_U) return -1;
  const hex = text.slice(at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? parseInt(hex, 16) : -1;
}

/**
 * One pass over a JSON text, without recursion and before it is parsed: the nesting depth, the
 * members of each object and the items of each array (counted by their commas) against `limits`,
 * and whether any string spells U+0000 or a surrogate without its pair. It does not check the
 * syntax (the parser does, after): on a malformed text its counts are those of the brackets it saw.
 */
export function scanJsonText(text: string, limits: JsonLimits = JSON_LIMITS): JsonTextScan {
  /** the open containers, innermost last: true for an object */
  const objects: boolean[] = [];
  /** the commas seen directly inside each open container */
  const commas: number[] = [];
  let suspectText = false;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // a string: to its closing quote, looking only at escapes
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === QUOTE) break;
        if (inner !== BACKSLASH) continue;
        const unit = escapedUnit(text, i);
        if (unit < 0) {
          i++; // a one-character escape (\" \\ \n ...), or a malformed one the parser refuses
          continue;
        }
        i += 5;
        if (unit === 0 || (unit >= 0xdc00 && unit <= 0xdfff)) suspectText = true;
        else if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = escapedUnit(text, i + 1);
          if (low >= 0xdc00 && low <= 0xdfff) i += 6;
          else suspectText = true;
        }
      }
      continue;
    }
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (objects.length >= limits.maxDepth) return { refused: 'depth', suspectText };
      objects.push(code === OPEN_OBJECT);
      commas.push(0);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      objects.pop();
      commas.pop();
    } else if (code === COMMA && objects.length > 0) {
      const top = commas.length - 1;
      const count = ++commas[top] + 1;
      if (objects[top] ? count > limits.maxMembers : count > limits.maxItems)
        return { refused: objects[top] ? 'members' : 'items', suspectText };
    }
  }
  return { refused: null, suspectText };
}

/** The answer to a JSON text beyond the limits: 400 VALIDATION_ERROR, as any other unusable body. */
export function jsonShapeError(refused: NonNullable<JsonTextScan['refused']>): ValidationError {
  return ValidationError.field(
    null,
    refused === 'depth' ? 'NESTED_JSON_NOT_ALLOWED' : 'INVALID_FORMAT_LENGTH',
  );
}

/**
 * A JSON text held to the limits and to the string rules (no U+0000, no lone surrogate), parsed:
 * for JSON that arrives inside a string (metadata sent JSON-encoded). Throws ValidationError,
 * naming the field under `path` that breaks a string rule.
 */
export function parseJsonText(text: string, path: (string | number)[] = []): unknown {
  const scan = scanJsonText(text);
  if (scan.refused) throw jsonShapeError(scan.refused);
  const value: unknown = JSON.parse(text);
  if (scan.suspectText) {
    const found = findInvalidText(value);
    if (found) throw ValidationError.field([...path, ...found].join('.') || null, 'INVALID_FORMAT');
  }
  return value;
}
