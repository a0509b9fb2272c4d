// Runs before the suite (`npm test`): makes sure the test prerequisites that npm cannot install exist.
// The database needs Go (FerretDB is built from the Go module proxy on first use); the browser tests need
// Debian's Chromium, installed here with apt-get when running as root, as on CI.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const problems: string[] = [];

if (spawnSync('go', ['version']).status !== 0 && !process.env.MONGODB_URI)
  problems.push('Go is needed to build the embedded test database (FerretDB): install Go, or set MONGODB_URI to a MongoDB server.');

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
if (!chromium) {
  const root = process.getuid?.() === 0;
  const apt = spawnSync('apt-get', ['--version']).status === 0;
  if (root && apt) {
    console.log('[prepare] installing Debian chromium for the browser tests (apt-get)…');
    // Wait for the dpkg lock (unattended upgrades on a fresh machine) instead of failing at once.
    const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
    execFileSync('apt-get', [...lockWait, 'update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', [...lockWait, 'install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } else {
    problems.push('Chromium is needed for the browser tests: `sudo apt-get install chromium`, or set CHROMIUM_PATH.');
  }
}

if (problems.length) {
  console.error(`Cannot run the tests yet:\n  - ${problems.join('\n  - ')}`);
  process.exit(1);
}
