import type { Scenario } from '../lib/types.ts';
import { getProjectApiKey, getProjectBaseline, getProjectJwt } from './projectGet.ts';
import { healthz } from './system.ts';
import { getProjectDpop, refreshPublicDpop } from './dpop.ts';
import {
  clientCredentials,
  clientCredentialsBare,
  clientCredentialsPeer,
  refreshConfidential,
  refreshConfidentialBare,
  refreshConfidentialPeer,
  refreshPublicAfterHistory,
  refreshPublicRotating,
  refreshPublicRotatingBare,
  refreshPublicRotatingPeer,
} from './token.ts';
import { appendLogs, appendLogsBatched, appendLogsBig, readLog900k, readLogStart } from './logs.ts';
import { createDeployment, createDeploymentBaseline, listProjects, listProjectsBaseline, listProjectsSmall, listProjectsSmallBaseline } from './v1.ts';

/**
 * Every scenario, in the order they run. Add a scenario by writing a `Scenario` (see lib/types.ts) in
 * a file of this folder and listing it here; `BENCH_SCENARIOS=id,id` runs a subset.
 */
export const SCENARIOS: Scenario[] = [
  healthz,
  clientCredentials,
  clientCredentialsBare,
  clientCredentialsPeer,
  refreshConfidential,
  refreshConfidentialBare,
  refreshConfidentialPeer,
  refreshPublicRotating,
  refreshPublicRotatingBare,
  refreshPublicRotatingPeer,
  refreshPublicDpop,
  // Opt-in: seeds (and afterwards removes) 100,000 used refresh tokens.
  refreshPublicAfterHistory,
  // The 10,000-project list comes last: its seeding slows every later query on FerretDB.
  listProjectsSmall,
  listProjectsSmallBaseline,
  createDeployment,
  createDeploymentBaseline,
  appendLogs,
  // Opt-in: 100 lines a request (BENCH_SCENARIOS=v1-logs-append,v1-logs-append-batch100).
  appendLogsBatched,
  // Opt-in: seed a log of 10^6 lines, about a minute
  // (BENCH_SCENARIOS=v1-logs-append,v1-logs-append-1m,v1-logs-read-start,v1-logs-read-900k).
  appendLogsBig,
  readLogStart,
  readLog900k,
  getProjectApiKey,
  getProjectJwt,
  getProjectDpop,
  getProjectBaseline,
  listProjects,
  listProjectsBaseline,
];
