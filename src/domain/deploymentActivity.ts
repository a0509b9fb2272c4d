/** How one day's deployments ended: the outcomes a chart stacks, in the order it stacks them. */
export const OUTCOMES = ['succeeded', 'failed', 'canceled', 'in_progress'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export interface DayOutcomes extends Record<Outcome, number> {
  /** The UTC calendar day, `YYYY-MM-DD`. */
  date: string;
}

export interface DeploymentActivity {
  /** One entry per UTC day, oldest first, ending today; days without deployments count zero. */
  days: DayOutcomes[];
  /** Median of `finished_at − created_at` over the period's deployments that succeeded; null if none did. */
  medianSecondsToSucceed: number | null;
  total: number;
}

export interface DeploymentTimes {
  /** A deployment status (`queued` … `superseded`). */
  status: string;
  created_at: Date;
  finished_at: Date | null;
}

/**
 * A deployment that was superseded had succeeded (a newer one to its environment succeeded after it),
 * so it counts as a success; a rejected one never ran and counts with the canceled (docs/product.md §9);
 * one still waiting, queued, building or deploying is in progress.
 */
export function outcomeOf(status: string): Outcome {
  if (status === 'succeeded' || status === 'superseded') return 'succeeded';
  if (status === 'failed' || status === 'canceled') return status;
  if (status === 'rejected') return 'canceled';
  return 'in_progress';
}

const DAY_MS = 86_400_000;
const dayOf = (at: Date | number) => new Date(at).toISOString().slice(0, 10);

/** The first instant of the period: midnight UTC, `days − 1` days before today. */
export function periodStart(days: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return new Date(today - (days - 1) * DAY_MS);
}

/** Deployments per UTC day by outcome over the last `days` days (today included), and the median time to succeed. */
export function deploymentActivity(deployments: Iterable<DeploymentTimes>, days: number, now: Date): DeploymentActivity {
  const start = periodStart(days, now).getTime();
  const byDay = new Map<string, DayOutcomes>();
  const list: DayOutcomes[] = [];
  for (let i = 0; i < days; i++) {
    const entry: DayOutcomes = { date: dayOf(start + i * DAY_MS), succeeded: 0, failed: 0, canceled: 0, in_progress: 0 };
    byDay.set(entry.date, entry);
    list.push(entry);
  }
  const durations: number[] = [];
  let total = 0;
  for (const d of deployments) {
    const entry = byDay.get(dayOf(d.created_at));
    if (!entry) continue;
    const outcome = outcomeOf(d.status);
    entry[outcome]++;
    total++;
    if (outcome === 'succeeded' && d.finished_at) durations.push((d.finished_at.getTime() - d.created_at.getTime()) / 1000);
  }
  return { days: list, medianSecondsToSucceed: median(durations), total };
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
