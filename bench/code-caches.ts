import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { isCodeCacheOf } from '../src/node-start/code-cache.ts';

/**
 * Removes the code caches a bundle's runs left beside it (src/node-start/code-cache.ts), half-written
 * ones too: the next start is then timed as the first after an install or a new node.
 */
export function removeCodeCaches(bundle: string): void {
  const dir = path.dirname(bundle);
  for (const name of readdirSync(dir)) if (isCodeCacheOf(path.basename(bundle), name, { partial: true })) rmSync(path.join(dir, name), { force: true });
}
