// `npm run build`: compiles src/ to dist/ (tsc, tsconfig.build.json) and copies what the compiled server
// reads at run time beside it (src/assets: stylesheets and the dashboard script), so `node dist/main.js`
// serves exactly what `node src/main.ts` does. dist/ is emptied first: no stale module survives a rename.
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
cpSync(path.join(root, 'src', 'assets'), path.join(root, 'dist', 'assets'), { recursive: true });
console.log('built dist/ (run it with `npm run start:dist`)');
