import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { StoreLogosRepository, StoresRepository } from '@kessai/db';
import { LOGO_MAX_BYTES, logoContentType, logoPath, logoRefusal } from '@kessai/domain';
import { AdminError } from './admin.service';

/**
 * A store's checkout logo from the admin CLI (decision 0021): a PNG, JPEG or WebP file of at most
 * LOGO_MAX_BYTES, checked by its magic bytes, stored in Kessai and served by the gateway.
 */
export interface StoreLogoRepositories {
  stores: StoresRepository;
  storeLogos: StoreLogosRepository;
}

async function requireStore(repositories: StoreLogoRepositories, storeId: string) {
  const store = await repositories.stores.findById(storeId).catch(() => null);
  if (!store || store.deletedOn !== null) throw new AdminError(`no store ${storeId}`);
  return store;
}

export async function setStoreLogo(
  repositories: StoreLogoRepositories,
  storeId: string,
  file: string,
  baseUrl: string,
) {
  await requireStore(repositories, storeId);
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    throw new AdminError(`cannot read ${file}`);
  }
  // refused before reading a file that is far too big
  if (size > LOGO_MAX_BYTES) throw new AdminError(`a logo is at most ${LOGO_MAX_BYTES / 1024} KiB`);
  const image = readFileSync(file);
  const refusal = logoRefusal(image);
  if (refusal !== null) throw new AdminError(refusal);
  const digest = createHash('sha256').update(image).digest('hex');
  const logo = await repositories.storeLogos.put(storeId, {
    contentType: logoContentType(image) ?? 'application/octet-stream',
    image,
    digest,
  });
  return {
    store_id: storeId,
    content_type: logo.contentType,
    bytes: image.length,
    digest,
    url: `${baseUrl}${logoPath(storeId, digest)}`,
  };
}

export async function removeStoreLogo(repositories: StoreLogoRepositories, storeId: string) {
  await requireStore(repositories, storeId);
  return { store_id: storeId, removed: await repositories.storeLogos.remove(storeId) };
}
