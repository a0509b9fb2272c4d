// The admin CLI's entry point (`npx slipway`, bin/slipway.js); the commands are in program.ts.
import { run } from './program.ts';

process.exitCode = await run(process.argv.slice(2));
