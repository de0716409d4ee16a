import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sha256File, which } from './temporal-cli';

/**
 * Temporal's time-skipping test server (the Java SDK's `io.temporal:temporal-test-server`), for
 * workflow tests of durable time: `@temporalio/testing` cannot download its own test server here.
 * Fetched from Maven Central with Maven (`mvn dependency:copy-dependencies`), once, into
 * `.tools/temporal-test-server-<version>/lib`; every jar is pinned by sha256 (checked before any is
 * used, and only pinned jars go on the class path). Run by `LoopbackTestServer.java` beside this
 * file (bound to 127.0.0.1; the server's own main listens on every interface).
 */
export const TEMPORAL_TEST_SERVER_VERSION = '1.31.0';

/** The test server and its runtime dependencies, as Maven resolved them for 1.31.0: coordinates and sha256. */
export const TEMPORAL_TEST_SERVER_JARS: ReadonlyArray<readonly [string, string]> = [
  ['com.cronutils:cron-utils:9.2.1', '02af0e8b2fe93c9fa6eecf97b53b39faae14c5b996356edb132e9fe620013744'],
  ['com.fasterxml.jackson.core:jackson-annotations:2.14.2', '2c6869d505cf60dc066734b7d50339f975bd3adc635e26a78abb71acb4473c0d'],
  ['com.fasterxml.jackson.core:jackson-core:2.14.2', 'b5d37a77c88277b97e3593c8740925216c06df8e4172bbde058528df04ad3e7a'],
  ['com.fasterxml.jackson.core:jackson-databind:2.14.2', '501d3abce4d18dcc381058ec593c5b94477906bba6efbac14dae40a642f77424'],
  ['com.fasterxml.jackson.datatype:jackson-datatype-jdk8:2.14.2', 'aa55d3d545e02d959a6e8c83927acc55c9937d717d4d3fd962d27ec7b431b8c4'],
  ['com.fasterxml.jackson.datatype:jackson-datatype-jsr310:2.14.2', '75651b65733ed94e4e28e4ba0817218d93e71e8a7f06f6ab3662752974d2bcae'],
  ['com.google.android:annotations:4.1.1.4', 'ba734e1e84c09d615af6a09d33034b4f0442f8772dec120efb376d86a565ae15'],
  ['com.google.api.grpc:proto-google-common-protos:2.22.0', '002eebc53d27e4fb2e8cf823ea1f3565b90c4b0b4380ff508bf61bd42f2be0d3'],
  ['com.google.code.findbugs:jsr305:3.0.2', '766ad2a0783f2687962c8ad74ceecc38a28b9f72a2d085ee438b7813e928d0c7'],
  ['com.google.code.gson:gson:2.10.1', '4241c14a7727c34feea6507ec801318a3d4a90f070e4525681079fb94ee4c593'],
  ['com.google.errorprone:error_prone_annotations:2.18.0', '9e6814cb71816988a4fd1b07a993a8f21bb7058d522c162b1de849e19bea54ae'],
  ['com.google.guava:failureaccess:1.0.1', 'a171ee4c734dd2da837e4b16be9df4661afab72a41adaf31eb84dfdaf936ca26'],
  ['com.google.guava:guava:32.0.1-jre', 'bd7fa227591fb8509677d0d1122cf95158f3b8a9f45653f58281d879f6dc48c5'],
  ['com.google.guava:listenablefuture:9999.0-empty-to-avoid-conflict-with-guava', 'b372a037d4230aa57fbeffdef30fd6123f9c0c2db85d0aced00c91b974f33f99'],
  ['com.google.j2objc:j2objc-annotations:2.8', 'f02a95fa1a5e95edb3ed859fd0fb7df709d121a35290eff8b74dce2ab7f4d6ed'],
  ['com.google.protobuf:protobuf-java-util:3.25.7', 'deb758b7a87d6b8f55e44fd55582b8b6a610cfcdbb9314f9fb46c5490fdd37d9'],
  ['com.google.protobuf:protobuf-java:3.25.7', '1e312470eae15e3921d5b151897099db1c3d84cade8a94e73468b7b4ad35c30c'],
  ['com.uber.m3:tally-core:0.13.0', 'b3ccc572be36be91c47447c7778bc141a74591279cdb40224882e8ac8271b58b'],
  ['io.grpc:grpc-api:1.58.1', '2c33a813c63aa2c8e4db2231e4c244c8bbd1c8d9eefb8758633bc4dffb124c48'],
  ['io.grpc:grpc-context:1.58.1', 'd6e186190aa20fe1dbc8343fa7d7f98a32b487180aab6640b230ea38fcdd3468'],
  ['io.grpc:grpc-core:1.58.1', '6aa73e0d8a05a9dcb110a04a4043025ec423c2c515a9ba235d833783bd4b805c'],
  ['io.grpc:grpc-inprocess:1.58.1', 'fe90bc5a1c15830b93ad0cabf4f8f10e072cb69e80d980374fbf005d60070c5f'],
  ['io.grpc:grpc-netty-shaded:1.58.1', 'beb30243dda938d268ba50f2bd09d3c2af9fa1ef53c681525d8ff38fa5350cc6'],
  ['io.grpc:grpc-protobuf-lite:1.58.1', '704cff056398cfe866a4c13c56136628f7e0c7740772675d1dc184147c409c04'],
  ['io.grpc:grpc-protobuf:1.58.1', 'd9cdde8b14185b4d8941b3ac79f12f5e94c9f734d9b37ba4293cf06b9ca45644'],
  ['io.grpc:grpc-services:1.58.1', '2777a4f0a323ef99f04035a85b87ce58554234704b234d22d0f28afa835307b0'],
  ['io.grpc:grpc-stub:1.58.1', '6a2579a2a4536f9ff6cea48a347af47207195a3396fade5f2e3be660267c1973'],
  ['io.grpc:grpc-util:1.58.1', '54e7d121d4c82969d61f340559cdcba6168415b4d0e3777d3cf998da3006ce82'],
  ['io.micrometer:micrometer-core:1.9.9', 'ddec1c877a32dcf4f5e6cab5efc22707975d1d7e0fb780bcffe505384c52070c'],
  ['io.nexusrpc:nexus-sdk:0.4.0-alpha', '24b4504a489aadf820888a81642aff63e376e40192cc57a3233a6b4fabdef174'],
  ['io.perfmark:perfmark-api:0.26.0', 'b7d23e93a34537ce332708269a0d1404788a5b5e1949e82f5535fce51b3ea95b'],
  ['io.temporal:temporal-sdk:1.31.0', '5c891bff792cca71638645f9bc096f36e31e857ad6c3a7e988ff0b454ef167f4'],
  ['io.temporal:temporal-serviceclient:1.31.0', 'ba580c0c44af30279712059ae3c11ed9aed40871ecb7d5f45356f583a1a23853'],
  ['io.temporal:temporal-test-server:1.31.0', 'c33eafa1f50af5df595f37a3c2ad8d6858a9e510034fd6c92d5bcff88cbfdcaa'],
  ['org.checkerframework:checker-qual:3.33.0', 'e316255bbfcd9fe50d165314b85abb2b33cb2a66a93c491db648e498a82c2de1'],
  ['org.codehaus.mojo:animal-sniffer-annotations:1.23', '9ffe526bf43a6348e9d8b33b9cd6f580a7f5eed0cf055913007eda263de974d0'],
  ['org.hdrhistogram:HdrHistogram:2.1.12', '9b47fbae444feaac4b7e04f0ea294569e4bc282bc69d8c2ce2ac3f23577281e2'],
  ['org.latencyutils:LatencyUtils:2.0.3', 'a32a9ffa06b2f4e01c5360f8f9df7bc5d9454a5d373cd8f361347fa5a57165ec'],
  ['org.slf4j:slf4j-api:1.7.36', 'd3ef575e3e4979678dc01bf1dcce51021493b4d11fb7f1be8ad982877c16a1c0'],
];

export class TemporalTestServerMissingError extends Error {
  readonly code = 'temporal_test_server_missing';
  constructor(why: string) {
    super(
      `${why}: the time-skipping workflow tests need Temporal's test server ${TEMPORAL_TEST_SERVER_VERSION} ` +
        `(Maven Central io.temporal:temporal-test-server): put mvn and java (>= 11) on PATH, or run npm run temporal:provision-test-server`,
    );
    this.name = 'TemporalTestServerMissingError';
  }
}

const say = (m: string) => process.stderr.write(`[temporal-test-server] ${m}\n`);
const jarName = (coords: string) => {
  const [, artifact, version] = coords.split(':');
  return `${artifact}-${version}.jar`;
};

export interface TestServerJars {
  /** The class path: the pinned jars, in order. */
  classPath: string[];
  source: 'cache' | 'mvn';
}

/** The pinned jars in `.tools/`, fetched with Maven when one is missing or differs from its pin. */
export function provisionTestServer(opts: { root?: string; env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): TestServerJars {
  const env = opts.env ?? process.env;
  const root = opts.root ?? path.resolve(__dirname, '../..');
  const log = opts.quiet ? () => {} : say;
  const lib = path.join(root, '.tools', `temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}`, 'lib');
  const classPath = TEMPORAL_TEST_SERVER_JARS.map(([c]) => path.join(lib, jarName(c)));
  if (TEMPORAL_TEST_SERVER_JARS.every(([c, sha]) => matches(path.join(lib, jarName(c)), sha))) return { classPath, source: 'cache' };

  const mvn = which('mvn', env);
  if (!mvn) throw new TemporalTestServerMissingError('the test server is not in .tools/ and there is no mvn on PATH to fetch it with');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-test-server-'));
  try {
    fs.writeFileSync(
      path.join(tmp, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
<groupId>kraken-migrate</groupId><artifactId>temporal-test-server-fetch</artifactId><version>1</version>
<dependencies><dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>${TEMPORAL_TEST_SERVER_VERSION}</version></dependency></dependencies>
</project>
`,
    );
    log(
      `fetching io.temporal:temporal-test-server:${TEMPORAL_TEST_SERVER_VERSION} and its dependencies (34 MB) with mvn into .tools/ (once; cached afterwards)`,
    );
    const started = Date.now();
    const r = spawnSync(mvn, ['-q', '-B', 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${path.join(tmp, 'lib')}`], {
      cwd: tmp,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.status !== 0) {
      const last = `${r.stdout}${r.stderr}`.trim().split('\n').pop() ?? '';
      throw new TemporalTestServerMissingError(`mvn dependency:copy-dependencies failed (exit ${r.status ?? r.signal}: ${last})`);
    }
    fs.mkdirSync(lib, { recursive: true });
    for (const [c, sha] of TEMPORAL_TEST_SERVER_JARS) {
      const got = path.join(tmp, 'lib', jarName(c));
      if (!fs.existsSync(got)) throw new TemporalTestServerMissingError(`mvn did not fetch ${c}`);
      const actual = sha256File(got);
      if (actual !== sha) throw new TemporalTestServerMissingError(`${c} has sha256 ${actual}, not the pinned ${sha}: refused`);
      fs.copyFileSync(got, path.join(lib, jarName(c)));
    }
    log(`fetched ${TEMPORAL_TEST_SERVER_JARS.length} jars in ${Math.round((Date.now() - started) / 1000)} s`);
    return { classPath, source: 'mvn' };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function matches(file: string, sha: string): boolean {
  return fs.existsSync(file) && sha256File(file) === sha;
}

export interface RunningTestServer {
  /** host:port on 127.0.0.1 */
  address: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts the test server (time skipping on) on a free loopback port and waits until it serves (the
 * first start compiles the launcher: seconds). It exits with the process that started it: its stdin
 * is a pipe from this process.
 */
export async function startTestServer(opts: { root?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunningTestServer> {
  const env = opts.env ?? process.env;
  const { classPath } = provisionTestServer({ root: opts.root, env, quiet: true });
  const java = which('java', env);
  if (!java) throw new TemporalTestServerMissingError('no java on PATH');
  const child: ChildProcess = spawn(
    java,
    ['-cp', classPath.join(path.delimiter), path.join(__dirname, 'LoopbackTestServer.java'), '0', '--enable-time-skipping'],
    {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the test server did not listen within ${opts.timeoutMs ?? 60_000} ms: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /^listening (127\.0\.0\.1:\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the test server exited (${code ?? signal}) before it listened: ${stderr}`));
    });
  });
  return {
    address,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        child.stdin!.end();
      }),
  };
}

if (require.main === module) {
  try {
    const jars = provisionTestServer();
    console.log(`${path.dirname(jars.classPath[0])} (${jars.source}): ${jars.classPath.length} jars, temporal-test-server ${TEMPORAL_TEST_SERVER_VERSION}`);
  } catch (e) {
    if (!(e instanceof TemporalTestServerMissingError)) throw e;
    process.stderr.write(`error [${e.code}]: ${e.message}\n`);
    process.exit(2);
  }
}
