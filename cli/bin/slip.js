#!/usr/bin/env node
// The `slip` command: the compiled CLI in ../dist (npm install in this folder builds it).
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv);
