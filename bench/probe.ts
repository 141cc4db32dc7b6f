/**
 * The event-loop prober of bench/history, run as its own process: `node probe.js <url> <seconds>`
 * GETs the URL one request at a time, 20 ms apart, and prints the latencies in ms as JSON. In its
 * own process, what it measures is the server; in the process that drives the load, it measured
 * that process's own busy event loop. It says `ready` on stderr once connected; SIGTERM ends it
 * early, printing what it measured so far (after the request under way, which is counted).
 */
async function main(): Promise<void> {
  const [url, seconds] = process.argv.slice(2);
  let stopped = false;
  process.once('SIGTERM', () => { stopped = true; });
  // why: the first fetch of a process loads the HTTP client and opens the connection (about 100 ms
  // here): that is the prober's own start-up, not the server's latency, so it is not counted.
  await (await fetch(url)).arrayBuffer();
  // why: whoever starts it under load can wait for this line, so start-up is not measured as load.
  process.stderr.write('ready\n');
  const deadline = Date.now() + Number(seconds) * 1000;
  const samples: number[] = [];
  while (Date.now() < deadline && !stopped) {
    const t0 = process.hrtime.bigint();
    await (await fetch(url)).arrayBuffer();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await new Promise((r) => setTimeout(r, 20));
  }
  process.stdout.write(JSON.stringify(samples));
}

void main();
