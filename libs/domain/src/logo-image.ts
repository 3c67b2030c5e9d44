/**
 * A store's checkout logo (decision 0021): a small PNG, JPEG or WebP, its type read from its first
 * bytes (never from a file name or a declared type), so the gateway serves it as what it is.
 */

/** 256 KiB: a logo, not a photograph; every page load reads it. */
export const LOGO_MAX_BYTES = 256 * 1024;

export type LogoContentType = 'image/png' | 'image/jpeg' | 'image/webp';

const startsWith = (bytes: Uint8Array, signature: number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte);

/** The image type its magic bytes say, or null for anything else. */
export function logoContentType(bytes: Uint8Array): LogoContentType | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  // RIFF <size> WEBP
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8))
    return 'image/webp';
  return null;
}

/** Why an upload cannot be a logo, or null when it can. */
export function logoRefusal(bytes: Uint8Array): string | null {
  if (bytes.length === 0) return 'the file is empty';
  if (bytes.length > LOGO_MAX_BYTES) return `a logo is at most ${LOGO_MAX_BYTES / 1024} KiB`;
  if (logoContentType(bytes) === null) return 'a logo is a PNG, JPEG or WebP image';
  return null;
}

/** Where the gateway serves a store's logo: a new image (a new digest) is a new URL, cached for good. */
export function logoPath(storeId: string, digest: string): string {
  return `/checkout/logos/${storeId}/${digest}`;
}
