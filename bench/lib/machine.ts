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
