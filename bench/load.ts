/**
 * The load of bench/history's event-loop scenario, run as its own process (forked with an IPC
 * channel): `load.js <api> <token> <concurrency> <commit ids, comma-separated>`. `concurrency`
 * clients download archives of those commits (a cold build the first time each) and as many read
 * commit-list pages with every switch on, until the parent sends "stop"; then it sends back how many
 * of each were served and exits. Its own process lets the parent set its CPU priority.
 */
import { agent, timedGet } from './http';

const PAGE = 50;

async function main(): Promise<void> {
  const [api, token, concurrency, idList] = process.argv.slice(2);
  const n = Number(concurrency);
  const ids = idList.split(',');
  let running = true;
  process.once('message', () => { running = false; });
  let archives = 0;
  let pages = 0;
  await Promise.all([
    ...Array.from({ length: n }, (_, i) => (async () => {
      for (let k = i; running; k += n) {
        await timedGet(`${api}/repos/bench/history/archive/${ids[k % ids.length]}.${k % 2 ? 'zip' : 'tar.gz'}`, token);
        archives++;
      }
    })()),
    ...Array.from({ length: n }, (_, i) => (async () => {
      for (let k = i; running; k += n) {
        await timedGet(`${api}/repos/bench/history/commits?limit=${PAGE}&page=${1 + ((k * 37) % 400)}`, token);
        pages++;
      }
    })()),
  ]);
  agent.destroy();
  process.send!({ archives, pages }, () => process.exit(0));
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
