import type { Scenario } from '../lib/types.ts';
import { healthz } from './system.ts';
import { clientCredentials, refreshConfidential, refreshPublicRotating } from './token.ts';
import { createDeployment, createDeploymentBaseline, listProjects, listProjectsBaseline } from './v1.ts';

/**
 * Every scenario, in the order they run. Add a scenario by writing a `Scenario` (see lib/types.ts) in
 * a file of this folder and listing it here; `BENCH_SCENARIOS=id,id` runs a subset.
 */
export const SCENARIOS: Scenario[] = [
  healthz,
  clientCredentials,
  refreshConfidential,
  refreshPublicRotating,
  listProjects,
  listProjectsBaseline,
  createDeployment,
  createDeploymentBaseline,
];
