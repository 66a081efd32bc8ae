// Not a test file of the suite (no .test.ts): test-timeout.test.ts runs it through the runner.
// One test that never finishes, as a regression that waits forever would.
import { test } from 'node:test';

void test('waits forever', async () => {
  const keepAlive = setInterval(() => {}, 1000);
  await new Promise(() => {});
  clearInterval(keepAlive);
});
