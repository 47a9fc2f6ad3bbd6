/**
 * A benchmark's goal, printed for people ("… met" / "… NOT met") and as one machine line that
 * `npm run bench` (bench/run-all.ts) collects into its summary table.
 */
export const GOAL_PREFIX = 'BENCH-GOAL ';

export interface GoalResult {
  bench: string;
  goal: string;
  result: string;
  met: boolean;
}

export function reportGoal(result: GoalResult): void {
  console.log(`${result.goal}: ${result.result}: ${result.met ? 'met' : 'NOT met'}`);
  console.log(GOAL_PREFIX + JSON.stringify(result));
}
