import { measureRound, startScenario, type LoadOptions, type StartedScenario } from './load.ts';
import type { BenchContext, Scenario, ScenarioResult } from './types.ts';

/**
 * A scenario with a fair peer (Scenario.peer) runs beside its baseline and its peer in alternating
 * rounds (one marked `alternate`, beside its baseline alone): each round measures them one after
 * another (in a rotated order, so none is always first or last), so a machine that gets busier or
 * quieter during the run moves them all alike. Each round gives its own ratios; the report gives their
 * median and range.
 */
export interface AlternatingRun {
  /** Each scenario's rounds folded into one line of the table. */
  results: ScenarioResult[];
  /** Each scenario's rounds, by id. */
  rounds: Map<string, ScenarioResult[]>;
}

/** The scenarios of one group (ours first), every one started once and closed at the end. */
export async function runAlternating(group: Scenario[], ctx: BenchContext, options: LoadOptions, rounds: number, progress: (m: string) => void): Promise<AlternatingRun> {
  const started: StartedScenario[] = [];
  const byId = new Map<string, ScenarioResult[]>();
  try {
    for (const scenario of group) {
      progress(`${scenario.title.trim()} (${scenario.id}): starting, ${options.warmupSeconds} s warm-up`);
      started.push(await startScenario(scenario, ctx, options));
      byId.set(scenario.id, []);
    }
    for (let round = 0; round < rounds; round += 1) {
      const order = started.map((_, i) => started[(i + round) % started.length]!);
      for (const one of order) {
        progress(`round ${round + 1}/${rounds}: ${one.scenario.id}, ${options.seconds} s`);
        byId.get(one.scenario.id)!.push(await measureRound(one, ctx, options));
      }
    }
  } finally {
    for (const one of started) await one.prepared.close?.();
  }
  return { results: group.filter((s) => byId.has(s.id)).map((s) => fold(byId.get(s.id)!)), rounds: byId };
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Rounds as one line: req/s and latencies of the median round, counts summed, per-request figures weighted by requests. */
function fold(rounds: ScenarioResult[]): ScenarioResult {
  const byRps = [...rounds].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  const middle = byRps[Math.floor((byRps.length - 1) / 2)]!;
  const total = rounds.reduce((n, r) => n + r.totalRequests, 0);
  const weighted = (pick: (r: ScenarioResult) => number | undefined) =>
    rounds.some((r) => pick(r) === undefined) || total === 0 ? undefined : rounds.reduce((sum, r) => sum + pick(r)! * r.totalRequests, 0) / total;
  const statusCodes: Record<string, number> = {};
  for (const r of rounds) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    ...middle,
    title: `${middle.title} (median of ${rounds.length})`,
    totalRequests: total,
    non2xx: rounds.reduce((n, r) => n + r.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    timeouts: rounds.reduce((n, r) => n + r.timeouts, 0),
    peakRssBytes: rounds.reduce<number | undefined>((m, r) => (r.peakRssBytes === undefined ? m : Math.max(m ?? 0, r.peakRssBytes)), undefined),
    dbCommandsPerRequest: weighted((r) => r.dbCommandsPerRequest),
    serverCpuMsPerRequest: weighted((r) => r.serverCpuMsPerRequest),
    databaseCpuMsPerRequest: weighted((r) => r.databaseCpuMsPerRequest),
    statusCodes,
  };
}

/** A round counts only when every answer was 2xx and nothing failed. */
const roundValid = (r: ScenarioResult) => r.non2xx === 0 && r.errors === 0 && r.timeouts === 0;

/** CPU ms per request of the server plus its database: what one request costs the machine. */
const cpuOf = (r: ScenarioResult) => (r.serverCpuMsPerRequest ?? Number.NaN) + (r.databaseCpuMsPerRequest ?? 0);

/**
 * The ratios of a scenario with a peer, round by round: ours/peer and ours/baseline by req/s and by CPU
 * per request (server + database), each with its median, range and target.
 */
export function formatRoundComparisons(scenario: Scenario, run: AlternatingRun): string[] {
  const ours = run.rounds.get(scenario.id);
  if (!ours?.length) return [];
  const lines: string[] = [];
  const against = [
    scenario.peer ? { id: scenario.peer.id, name: 'fair peer', target: scenario.peer.target } : undefined,
    scenario.compareTo ? { id: scenario.compareTo, name: scenario.peer ? 'bare provider' : scenario.compareTo, target: scenario.target } : undefined,
  ];
  for (const other of against) {
    const theirs = other && run.rounds.get(other.id);
    if (!other || !theirs?.length) continue;
    const n = Math.min(ours.length, theirs.length);
    // A round in which either side answered anything but 2xx measured something else (errors are cheap): no ratio.
    const valid = Array.from({ length: n }, (_, i) => i).filter((i) => roundValid(ours[i]!) && roundValid(theirs[i]!));
    const invalid = Array.from({ length: n }, (_, i) => i + 1).filter((round) => !valid.includes(round - 1));
    const invalidNote = invalid.length ? `; round${invalid.length > 1 ? 's' : ''} ${invalid.join(', ')} INVALID (non-2xx or errors), left out` : '';
    if (!valid.length) {
      lines.push(`${scenario.title} / ${other.name}: no valid round (every round saw non-2xx answers or errors)${other.target === undefined ? '' : `; target ≥ ${other.target.toFixed(2)}×: NOT measured`}`);
      continue;
    }
    const rps = valid.map((i) => ours[i]!.requestsPerSecond / theirs[i]!.requestsPerSecond);
    const cpu = valid.map((i) => cpuOf(theirs[i]!) / cpuOf(ours[i]!));
    const fmt = (xs: number[]) => `median ${median(xs).toFixed(2)}× (range ${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}; rounds ${xs.map((x) => x.toFixed(2)).join(', ')}${invalidNote})`;
    const verdict = other.target === undefined ? '' : ` (target ≥ ${other.target.toFixed(2)}×: ${median(rps) >= other.target ? 'met' : 'NOT met'})`;
    lines.push(`${scenario.title} / ${other.name}: req/s ${fmt(rps)}${verdict}`);
    lines.push(
      `${' '.repeat(scenario.title.length)}   by CPU ms/request (server + database, theirs / ours): ${fmt(cpu)}; ours ${median(valid.map((i) => cpuOf(ours[i]!))).toFixed(2)}, theirs ${median(valid.map((i) => cpuOf(theirs[i]!))).toFixed(2)}`,
    );
  }
  return lines;
}
