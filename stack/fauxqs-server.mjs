// Local S3 + SQS for the dev stack and tests. fauxqs's own startFauxqs() binds 0.0.0.0; this
// launcher builds the same app and binds loopback only. Usage: node stack/fauxqs-server.mjs <port>
import { fileURLToPath } from 'node:url';
import path from 'node:path';

// The package exports only its entry point; its stores live beside it in dist/.
const dist = path.dirname(fileURLToPath(import.meta.resolve('fauxqs'))) + '/';
const load = (p) => import(new URL(p, 'file://' + dist).href);

const [{ buildApp }, { SqsStore }, { SnsStore }, { S3Store }] = await Promise.all([
  load('app.js'), load('sqs/sqsStore.js'), load('sns/snsStore.js'), load('s3/s3Store.js'),
]);
const port = Number(process.argv[2] ?? process.env.FAUXQS_PORT ?? 4566);
const app = buildApp({
  logger: false,
  host: '127.0.0.1',
  defaultRegion: process.env.FAUXQS_DEFAULT_REGION,
  stores: { sqsStore: new SqsStore(), snsStore: new SnsStore(), s3Store: new S3Store() },
});
const address = await app.listen({ port, host: '127.0.0.1' });
process.stdout.write(JSON.stringify({ ready: true, address }) + '\n');
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
