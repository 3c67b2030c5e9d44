/**
 * `text` as a LIKE / ILIKE operand that matches itself only: Prisma's `contains`, `startsWith` and
 * case-insensitive `equals` are LIKE / ILIKE patterns on Postgres and do not escape their operand
 * (prisma/prisma#10810), so a `_` or `%` a client sends would match any character or any run of
 * them. Backslash is Postgres' default escape character for both.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
