import fs from 'node:fs';
import os from 'node:os';

/** What a figure was measured on: recorded next to every benchmark's results. */
export function machineInfo() {
  return {
    cpus: os.cpus().length,
    model: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    loadavg: os.loadavg(),
    node: process.version,
  };
}

/** The same, as one line for a benchmark's printed header. */
export function machineLine(): string {
  const m = machineInfo();
  const load = m.loadavg.map((l) => l.toFixed(2)).join(' ');
  return `Machine: ${m.cpus} x ${m.model ?? 'CPU'}, load ${load}, Node ${m.node}`;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds used so far by every process of this machine named `command`
 * (e.g. `postgres`: its backends, WAL writer, checkpointer, autovacuum), or
 * undefined where /proc cannot tell (not Linux). Processes that exit between
 * two readings take their time with them: a server's long-lived processes do
 * the work a bulk load causes, so the difference of two readings is what the
 * server spent meanwhile.
 */
export function processesCpuSeconds(command: string): number | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return undefined;
  }
  let ticks = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const open = stat.indexOf('(');
    const close = stat.lastIndexOf(')');
    if (stat.slice(open + 1, close) !== command) continue;
    const fields = stat.slice(close + 2).split(' ');
    // utime and stime: the 14th and 15th fields of the line, 12th and 13th after comm.
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS_PER_SECOND;
}
