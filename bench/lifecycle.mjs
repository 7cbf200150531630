// The end of a bench that starts Workers: every Worker stopped and its scratch folder removed, when
// it finishes, fails, or is stopped with Ctrl-C or a kill.
import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { stopAllWorkers } from "../scripts/local-worker.mjs";

/**
 * Runs `main` to its end, then stops every Worker it started and removes `work`; also on Ctrl-C or a
 * kill (the Workers run in process groups of their own, so they are stopped before leaving).
 */
export function runBench(main, { work, log }) {
  let interrupted = false;
  const cleanUp = async () => {
    await stopAllWorkers();
    rmSync(work, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      interrupted = true;
      log(`${signal}: stopping the Workers`);
      cleanUp().finally(() => process.exit(130));
    });
  }
  main()
    .catch((error) => {
      // After an interruption, the steps that were cut short fail too: that is no news.
      if (!interrupted) console.error(error instanceof Error ? error.message : error);
      process.exitCode = 1;
    })
    .finally(cleanUp);
}

/** The stderr line that says on what machine, under what load, a bench ran. */
export const machineLine = () =>
  `machine: ${cpus().length} cores (${cpus()[0]?.model}), load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;
