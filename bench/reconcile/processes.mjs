// CPU time of the processes this bench started and of each workerd thread, from /proc (Linux only;
// elsewhere left out): what the reconciliation costs in CPU, beside its wall time.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on Linux

/** The fields of /proc/<pid>[/task/<tid>]/stat after the command name (which may hold spaces). */
function stat(path) {
  const text = readFileSync(path, "utf8");
  const close = text.lastIndexOf(")");
  return { comm: text.slice(text.indexOf("(") + 1, close), fields: text.slice(close + 2).split(" ") };
}

/** The pids under `root` (not itself), through /proc/<pid>/task/<tid>/children. */
function descendants(root) {
  const found = [];
  const walk = (pid) => {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let children = "";
      try {
        children = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
      } catch {}
      for (const child of children.split(" ").filter(Boolean)) {
        found.push(Number(child));
        walk(Number(child));
      }
    }
  };
  walk(root);
  return found;
}

/**
 * CPU seconds (user + system) of every process under this one, by pid, with its command and, for
 * workerd, its threads by name. Empty where /proc is not there.
 */
export function cpuSnapshot() {
  const snapshot = new Map();
  let pids;
  try {
    pids = descendants(process.pid);
  } catch {
    return snapshot;
  }
  for (const pid of pids) {
    try {
      const { comm, fields } = stat(`/proc/${pid}/stat`);
      const seconds = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
      const threads = new Map();
      if (comm.startsWith("workerd"))
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          const thread = stat(`/proc/${pid}/task/${tid}/stat`);
          threads.set(tid, {
            name: thread.comm,
            seconds: (Number(thread.fields[11]) + Number(thread.fields[12])) / TICKS_PER_SECOND,
          });
        }
      snapshot.set(pid, { comm, seconds, threads });
    } catch {
      // it ended meanwhile
    }
  }
  return snapshot;
}

/** CPU seconds spent between two snapshots, by command (`node`, `workerd`) and by workerd thread name. */
export function cpuBetween(before, after) {
  const byCommand = {};
  const byThread = {};
  for (const [pid, now] of after) {
    const then = before.get(pid);
    const spent = now.seconds - (then?.seconds ?? 0);
    byCommand[now.comm] = (byCommand[now.comm] ?? 0) + spent;
    for (const [tid, thread] of now.threads) {
      const name = `${now.comm}:${thread.name}`;
      byThread[name] = (byThread[name] ?? 0) + thread.seconds - (then?.threads.get(tid)?.seconds ?? 0);
    }
  }
  const round = (object) =>
    Object.fromEntries(
      Object.entries(object)
        .filter(([, seconds]) => seconds >= 0.05)
        .sort(([, a], [, b]) => b - a)
        .map(([name, seconds]) => [name, Math.round(seconds * 10) / 10]),
    );
  return { byCommand: round(byCommand), byThread: round(byThread) };
}

/** The machine's CPU time so far, from /proc/stat's first line (ticks), or null where there is none. */
export function machineTicks() {
  try {
    const [, ...values] = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
    return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
  } catch {
    return null;
  }
}

/** Of the machine's CPU time between two readings: the share busy (all processes), and stolen by the host. */
export function machineShare(before, after) {
  if (!before || !after) return null;
  const busy = after.busy - before.busy;
  const idle = after.idle - before.idle;
  const steal = after.steal - before.steal;
  const total = busy + idle + steal;
  return { busyPercent: Math.round((100 * busy) / total), stealPercent: Math.round((100 * steal) / total) };
}
