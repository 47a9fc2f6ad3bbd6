// Jest's node environment, plus one thing for the worker process it runs in.
//
// A Jest worker ends when Jest says so and its event loop drains. Node then tears its isolate down before the process
// goes, and a worker's heap after some thirty test files (each file's modules loaded again into a vm context of its
// own) is large: that teardown outlasted jest-worker's 500 ms grace, and Jest killed every worker at the end of a full
// run with "A worker process has failed to exit gracefully". Measured with a probe in the workers: each one's 'exit'
// event came 0-4 ms after Jest's end message (nothing left open: no timer, socket, server or child), and each was then
// killed by SIGTERM. `process.exit()` leaves without the teardown (the system frees the memory). It is called only from
// 'beforeExit', which Node emits when the event loop has drained by itself: a test that leaks a handle still keeps its
// worker alive, and Jest still says so.
const { TestEnvironment } = require('jest-environment-node');

if (process.env.JEST_WORKER_ID !== undefined && !process.listeners('beforeExit').some((listener) => listener.name === 'exitWithoutTeardown')) {
  process.once('beforeExit', function exitWithoutTeardown(code) {
    process.exit(code);
  });
}

module.exports = TestEnvironment;
