/**
 * The tests' outside loops (watchers, churners, a stand-in kubelet) run the same way: one step
 * after another until stopped, and stop() waits for the step in flight so nothing the loop does
 * outlives the test. Stop it in a `finally`: a loop left running keeps the test file from ever
 * exiting.
 */
export interface Repeating {
  stop(): Promise<void>;
}

/**
 * Runs `step` again and again until stopped. `running()` turns false once stop() is called: a
 * step that slept can skip its work instead of acting after the test moved on.
 */
export function repeat(step: (running: () => boolean) => Promise<void>): Repeating {
  let on = true;
  const running = () => on;
  const loop = (async () => {
    while (on) await step(running);
  })();
  return {
    async stop() {
      on = false;
      await loop;
    },
  };
}
