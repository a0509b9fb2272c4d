// The admin CLI's entry point (`npx slipway`, bin/slipway.js); assembled in program.ts from src/cli/commands/.
import { run } from './program.ts';

process.exitCode = await run(process.argv.slice(2));
