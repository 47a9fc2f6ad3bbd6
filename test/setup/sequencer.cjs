// Jest orders files by the durations it cached on this machine, else by size: on a fresh clone (CI, a newcomer) the
// small quick-start file, one of the longest, would start last and alone. These long files start first, in this order:
// the two browser files with timing budgets beside the two failover drills (mostly waiting), then the quick start (two
// npm installs and builds: the heaviest CPU of all) once one of them has finished, so it never runs beside both budgets.
const Sequencer = require('@jest/test-sequencer').default;

const LONGEST_FIRST = [
  'test/admin-console.e2e-spec.ts',
  'test/booker.e2e-spec.ts',
  // A Patroni cluster each (a minute or two of wall time, mostly waiting on Patroni's timings, little CPU): beside the
  // two browser files with timing budgets, in the other two of the four workers.
  'test/failover.e2e-spec.ts',
  'test/failover-conditions.e2e-spec.ts',
  'test/console-calendar.e2e-spec.ts',
  'test/quick-start.e2e-spec.ts',
  // A third Patroni cluster (half a minute): after the drills, not beside both.
  'test/replica-reads-cluster.e2e-spec.ts',
  'test/encryption-key-check.e2e-spec.ts',
  'test/webhooks-durability.e2e-spec.ts',
  'test/reminders.e2e-spec.ts',
  'test/calendars-ics.e2e-spec.ts',
];

class LongestFirst extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const index = LONGEST_FIRST.findIndex((file) => test.path.endsWith(file));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    const sorted = super.sort(tests);
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongestFirst;
