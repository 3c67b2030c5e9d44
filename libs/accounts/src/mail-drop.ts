import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes one message as a JSON file (mode 0600, in a directory of mode 0700) the way development
 * mail catchers do: there is no mail sender yet, and the operator of a self-hosted instance, or a
 * test, reads the message there. `name` is the file's name without `.json`; a second message of the
 * same name is refused (`wx`), never written over.
 */
export async function writeMailDrop(
  directory: string,
  name: string,
  mail: Record<string, string>,
): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await writeFile(join(directory, `${name}.json`), `${JSON.stringify(mail, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
}
