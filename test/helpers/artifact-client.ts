/**
 * A job step's artifact client: @actions/artifact 2.x, the library `actions/upload-artifact@v4`
 * and `download-artifact@v4` bundle, run as a script from a workflow step with the environment
 * the runner gives it (ACTIONS_RUNTIME_TOKEN, ACTIONS_RESULTS_URL).
 *   node artifact-client.js upload NAME DIR     every file under DIR, paths kept (compression 0)
 *   node artifact-client.js download NAME DIR   the artifact of this run called NAME, unzipped into DIR
 *   node artifact-client.js delete NAME
 */
import fs from 'node:fs';
import path from 'node:path';
import { DefaultArtifactClient } from '@actions/artifact';

// why: the library refuses every server but GitHub's (its GHES check); Gitea users run upload-artifact
// copies without that check (christopherhx/gitea-upload-artifact), which is this.
process.env.GITHUB_SERVER_URL = 'https://github.com';

const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));

async function main(): Promise<void> {
  const [cmd, name, dir] = process.argv.slice(2);
  const client = new DefaultArtifactClient();
  if (cmd === 'upload') {
    const root = path.resolve(dir);
    const r = await client.uploadArtifact(name, files(root), root, { compressionLevel: 0 });
    console.log(`uploaded ${name} as ${r.id}: ${r.size} bytes`);
  } else if (cmd === 'download') {
    const { artifact } = await client.getArtifact(name);
    const r = await client.downloadArtifact(artifact.id, { path: path.resolve(dir) });
    console.log(`downloaded ${name} (${artifact.id}) to ${r.downloadPath}`);
  } else if (cmd === 'delete') {
    const r = await client.deleteArtifact(name);
    console.log(`deleted ${name} (${r.id})`);
  } else {
    throw new Error(`unknown command ${cmd}`);
  }
}

main().catch((err: unknown) => {
  console.error(`artifact client: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
