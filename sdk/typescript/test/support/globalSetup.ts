import type { TestProject } from 'vitest/node';
import { startHarness, type HarnessInfo } from './harness.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    harness: HarnessInfo;
  }
}

/** One live Slipway for the whole run (tests needing other settings start a harness of their own). */
export default async function setup(project: TestProject) {
  const harness = await startHarness();
  project.provide('harness', harness.info);
  return () => harness.stop();
}
