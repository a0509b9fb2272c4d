import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Registered when a test file first imports this module, so it runs after that file's own afterAll
// hooks (which stop its servers): the directories outlive every server of the file, then go.
afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/**
 * A new directory under the system's temporary folder, removed when the test file that made it is done,
 * whether it passed or failed. For keys and data that a restart or a second instance must find again,
 * so they cannot be removed when one server stops.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}
