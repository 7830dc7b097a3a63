// Run by upload-many-resume.test.ts in a child process (bundled by esbuild), to be killed with
// SIGKILL in the middle of a run: argv is base URL, room id, directory, manifest.
import { Client } from '../../src/index.node.js';

const [baseUrl, roomId, directory, manifest] = process.argv.slice(2) as [string, string, string, string];
const client = new Client({ apiKey: 'vdr_upload_many_test', baseUrl });
await client.documents.uploadMany(Number(roomId), directory, {
  manifest,
  concurrency: 3,
  onProgress: (progress) => process.stdout.write(`${progress.filesDone} ${progress.bytesDone}\n`),
});
process.stdout.write('done\n');
