import fs from 'node:fs';
import type { Command } from 'commander';
import { parse as parseDotenv } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildProgram } from '../../../cli/program';
import { configSchema, parseConfig, SECRET_NAMES } from '../../../config';
import { dynamicConfig, EMBEDDED_SCHEMA, TEMPORAL_DATABASES } from '../../../harness/stack/temporal-full-server';
import { FAIRNESS_DYNAMIC_CONFIG, tuningArgs } from '../../../harness/stack/temporal-server';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_SERVER_VERSION } from '../../../harness/stack/temporal-server-build';
import { ALL_SEARCH_ATTRIBUTES } from '../../../domain/search-attributes';
import { spawnSync } from 'node:child_process';
import { findTool, requireTool } from '../../support/prometheus';
import { missingWorkerNodeFlags, WORKER_NODE_FLAGS } from '../../../workers/node-flags';

// No Docker engine runs on the development machines, so the deployment files are checked here:
// what they run must be what the code and the embedded server engine (stack/temporal-full-server.ts)
// actually are, or the deployment is silently broken.

interface Service {
  image?: string;
  build?: unknown;
  command?: string[] | string;
  entrypoint?: string[];
  environment?: Record<string, string>;
  env_file?: string;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  container_name?: string;
  restart?: string;
  configs?: Array<{ source: string; target: string }>;
  volumes?: string[];
}

const compose = parse(fs.readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  configs?: Record<string, { content: string }>;
};
const services = compose.services;
const ours = Object.entries(services).filter(([, s]) => s.image === 'kraken-migrate:latest');
const env = (name: string) => services[name].environment ?? {};
/** `"127.0.0.1:8802:8802"` → { host: 8802, container: 8802 } */
const portsOf = (name: string) =>
  (services[name].ports ?? []).map((p) => {
    const parts = p.split(':').map(Number);
    return { host: parts.at(-2)!, container: parts.at(-1)! };
  });
const script = (name: string) => {
  const c = services[name].command;
  return Array.isArray(c) ? c.join(' ') : (c ?? '');
};

/** The CLI command a container command runs (commander's tree), or undefined. */
function cliCommand(args: string[]): Command | undefined {
  let cmd: Command = buildProgram();
  for (const word of args.filter((a) => !a.startsWith('-'))) {
    const next = cmd.commands.find((c) => c.name() === word);
    if (!next) return undefined;
    cmd = next;
  }
  return cmd;
}

describe('docker-compose.yml: the kraken-migrate services', () => {
  it('are the one image, each running a leaf command of the CLI with options it declares', () => {
    expect(ours.map(([n]) => n).sort()).toEqual(['codec', 'events', 'migrations', 'worker']);
    for (const [name, s] of ours) {
      // One image, built with the workers' build ID (the image has no .git): compose refuses without it.
      expect(s.build, name).toEqual({ context: '.', args: { KRAKEN_BUILD_ID: expect.stringMatching(/^\$\{KRAKEN_BUILD_ID:\?/) } });
      const args = s.command as string[];
      const cmd = cliCommand(args);
      expect(cmd, `${name}: ${args.join(' ')}`).toBeDefined();
      expect(cmd!.commands, `${name} runs a command, not a group`).toHaveLength(0);
      for (const flag of args.filter((a) => a.startsWith('--')))
        expect(
          cmd!.options.map((o) => o.long),
          `${name} ${flag}`,
        ).toContain(flag);
    }
    expect(services.worker.command).toEqual(['worker']);
    expect(services.events.command).toEqual(['events', 'serve']);
    expect(services.codec.command).toEqual(['codec', 'serve']);
    expect(services.migrations.command).toEqual(['db', 'migrate']);
  });

  it.each(ours.map(([n]) => n))('service %s only uses variables config/ declares, and they parse in production mode with the env file', (name) => {
    // NODE_OPTIONS is Node's own, read before any of ours (the worker's flags: workers/node-flags.ts).
    const known = new Set([...Object.keys(configSchema.shape), 'NODE_OPTIONS']);
    expect(Object.keys(env(name)).filter((k) => !known.has(k))).toEqual([]);
    const example = parseDotenv(fs.readFileSync('kraken-migrate.env.example'));
    expect(Object.keys(example).filter((k) => !known.has(k))).toEqual([]);
    const cfg = parseConfig({ ...env(name), ...example, POSTGRES_PASSWORD: undefined });
    expect(cfg.KRAKEN_MIGRATE_MODE).toBe('production');
    expect(cfg.EVENTS_WEBHOOK_AUTH).toBe('api-key');
  });

  it('keeps secrets out of the file: they come from kraken-migrate.env, which git and the image ignore', () => {
    for (const [name, s] of ours) {
      // Passwords only as references to the shell's variables: the owner's for the migrations, the app role's for the rest.
      for (const secret of SECRET_NAMES)
        if (secret !== 'DATABASE_URL' && secret !== 'KRAKEN_MIGRATE_APP_DB_PASSWORD') expect(s.environment?.[secret], `${name}: ${secret}`).toBeUndefined();
      if (name === 'migrations') {
        expect(env(name).DATABASE_URL).toMatch(/^postgres:\/\/kraken_migrate:\$\{POSTGRES_PASSWORD:\?/);
        expect(env(name).KRAKEN_MIGRATE_APP_DB_PASSWORD).toMatch(/^\$\{APP_DB_PASSWORD:\?/);
      } else {
        // The least-privilege role the migrations create (no superuser, no DDL), never the owner.
        expect(env(name).DATABASE_URL).toMatch(/^postgres:\/\/kraken_migrate_app:\$\{APP_DB_PASSWORD:\?/);
        expect(env(name).KRAKEN_MIGRATE_APP_DB_PASSWORD).toBeUndefined();
      }
      expect(s.env_file).toBe('kraken-migrate.env');
    }
    const example = parseDotenv(fs.readFileSync('kraken-migrate.env.example'));
    for (const needed of ['CODEC_KEYS', 'CODEC_AUTH_TOKEN', 'EVENTS_WEBHOOK_API_KEY']) expect(Object.keys(example)).toContain(needed);
    expect(fs.readFileSync('.gitignore', 'utf8').split('\n')).toContain('kraken-migrate.env');
    expect(fs.readFileSync('.dockerignore', 'utf8').split('\n')).toContain('*.env');
  });

  it('publishes the ports the services listen on, and the health checks probe those ports', () => {
    const ev = env('events');
    expect(ev.EVENTS_HOST).toBe('0.0.0.0');
    expect(portsOf('events').map((p) => p.container)).toEqual([Number(ev.EVENTS_PORT)]);
    expect(services.events.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${ev.EVENTS_PORT}/healthz`);
    const codec = env('codec');
    expect(codec.CODEC_HOST).toBe('0.0.0.0');
    expect(portsOf('codec').map((p) => p.container)).toEqual([Number(codec.CODEC_PORT)]);
    expect(services.codec.healthcheck!.test.join(' ')).toContain(`connect(${codec.CODEC_PORT}, '127.0.0.1')`);
    // The worker is scaled with --scale worker=N: no fixed name, no published port.
    expect(services.worker.container_name).toBeUndefined();
    expect(services.worker.ports).toBeUndefined();
    expect(services.worker.healthcheck!.test.join(' ')).toContain(env('worker').WORKER_READY_FILE);
  });

  it('starts the worker with its node flags, as the embedded stack does (workers/node-flags.ts)', () => {
    expect(missingWorkerNodeFlags([], env('worker').NODE_OPTIONS)).toEqual([]);
    expect(env('worker').NODE_OPTIONS.split(' ')).toEqual(expect.arrayContaining([...WORKER_NODE_FLAGS]));
  });

  it('points every client at the services that exist, on their ports', () => {
    for (const [name] of ours) {
      const e = env(name);
      const [host, port] = e.TEMPORAL_ADDRESS.split(':');
      expect(services[host], `${name}: TEMPORAL_ADDRESS`).toBeDefined();
      expect(portsOf(host).map((p) => p.container)).toContain(Number(port));
      const db = new URL(e.DATABASE_URL.replace(/\$\{[^}]+\}/, 'x'));
      expect(services[db.hostname], `${name}: DATABASE_URL`).toBeDefined();
      // The owner for the migrations, the least-privilege role they create for everything else.
      expect(db.username).toBe(name === 'migrations' ? env(db.hostname).POSTGRES_USER : 'kraken_migrate_app');
      expect(db.pathname.slice(1)).toBe(env(db.hostname).POSTGRES_DB);
      for (const url of ['PLATFORM_BASE_URL', 'PLATFORM_V2_BASE_URL', 'PLATFORM_GRAPHQL_URL']) expect(e[url]).toMatch(/^https:\/\//);
    }
    // The UI decodes through the codec server the browser reaches, and the codec server's CORS
    // allows exactly the UI's origin (TEMPORAL_UI_URL).
    const ui = env('temporal-ui');
    const codecUrl = new URL(ui.TEMPORAL_CODEC_ENDPOINT);
    expect(portsOf('codec').map((p) => p.host)).toContain(Number(codecUrl.port));
    const uiOrigin = new URL(env('codec').TEMPORAL_UI_URL).origin;
    expect(ui.TEMPORAL_CORS_ORIGINS).toBe(uiOrigin);
    expect(portsOf('temporal-ui').map((p) => p.host)).toContain(Number(new URL(uiOrigin).port));
    expect(portsOf('temporal-ui').map((p) => p.container)).toContain(Number(ui.TEMPORAL_UI_PORT));
  });
});

describe('docker-compose.yml: metrics, alerts and the dashboard', () => {
  /** `./deploy/x:/etc/y:ro` mounts of a service, host path → container path. */
  const mounts = (name: string) =>
    new Map(
      (services[name].volumes ?? [])
        .filter((v) => v.startsWith('./'))
        .map((v) => {
          const [host, container] = v.split(':');
          return [host.slice(2), container];
        }),
    );
  const promConfig = parse(fs.readFileSync('deploy/prometheus/prometheus.yml', 'utf8')) as {
    rule_files: string[];
    alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
    scrape_configs: Array<{ job_name: string; static_configs?: Array<{ targets: string[] }>; dns_sd_configs?: Array<{ names: string[]; port: number }> }>;
  };

  it('Prometheus scrapes every kraken-migrate process on its METRICS_ADDRESS port, with the shipped rules beside its config', () => {
    const scraped = promConfig.scrape_configs.flatMap((j) => [
      ...(j.static_configs ?? []).flatMap((c) => c.targets),
      ...(j.dns_sd_configs ?? []).flatMap((c) => c.names.map((n) => `${n}:${c.port}`)),
    ]);
    const long = ours.filter(([n]) => n !== 'migrations');
    expect(long.map(([n]) => n).sort()).toEqual(['codec', 'events', 'worker']);
    for (const [name] of long) {
      const port = Number(configSchema.shape.METRICS_ADDRESS.parse(env(name).METRICS_ADDRESS)!.split(':').at(-1));
      expect(scraped, name).toContain(`${name}:${port}`);
    }
    const m = mounts('prometheus');
    const configAt = m.get('deploy/prometheus/prometheus.yml')!;
    expect(services.prometheus.command).toContain(`--config.file=${configAt}`);
    // rules.yml is named relative to the config, in the repository and in the container alike.
    for (const rules of promConfig.rule_files) expect(m.get(`deploy/prometheus/${rules}`)).toBe(`${configAt.replace(/[^/]+$/, '')}${rules}`);
    const [am] = promConfig.alerting.alertmanagers[0].static_configs[0].targets;
    expect(services[am.split(':')[0]]).toBeDefined();
    expect(portsOf('alertmanager').map((p) => p.container)).toContain(Number(am.split(':')[1]));
  });

  it("Prometheus's config and Alertmanager's pass their own checkers", () => {
    const prom = spawnSync(requireTool('promtool'), ['check', 'config', 'deploy/prometheus/prometheus.yml'], { encoding: 'utf8' });
    expect(prom.status, prom.stdout + prom.stderr).toBe(0);
    expect(services.alertmanager.command).toContain(`--config.file=${mounts('alertmanager').get('deploy/alertmanager/alertmanager.yml')}`);
    const amtool = findTool('alertmanager')?.replace(/(prometheus-)?alertmanager$/, 'amtool');
    const am = spawnSync(amtool ?? 'amtool', ['check-config', 'deploy/alertmanager/alertmanager.yml'], { encoding: 'utf8' });
    expect(am.status, am.stdout + am.stderr).toBe(0);
  });

  it('Grafana is provisioned with the dashboard and a Prometheus data source pointing at the prometheus service', () => {
    const m = mounts('grafana');
    const provisioning = m.get('deploy/grafana/provisioning')!;
    expect(provisioning).toBe('/etc/grafana/provisioning');
    const providers = parse(fs.readFileSync('deploy/grafana/provisioning/dashboards/kraken-migrate.yml', 'utf8')) as {
      providers: Array<{ options: { path: string } }>;
    };
    expect(m.get('deploy/grafana/dashboards')).toBe(providers.providers[0].options.path);
    const ds = parse(fs.readFileSync('deploy/grafana/provisioning/datasources/prometheus.yml', 'utf8')) as {
      datasources: Array<{ type: string; url: string }>;
    };
    const url = new URL(ds.datasources[0].url);
    expect(ds.datasources[0].type).toBe('prometheus');
    expect(services[url.hostname]).toBe(services.prometheus);
    expect(portsOf('prometheus').map((p) => p.container)).toContain(Number(url.port));
    const dashboard = JSON.parse(fs.readFileSync('deploy/grafana/dashboards/kraken-migrate.json', 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    expect(dashboard.panels.length).toBeGreaterThan(10);
    expect(env('grafana').GF_SECURITY_ADMIN_PASSWORD).toMatch(/^\$\{GRAFANA_ADMIN_PASSWORD:\?/);
  });
});

describe('docker-compose.yml: Temporal, as the server engine runs it', () => {
  it('runs the server, schema tool and Web UI releases stack/ builds', () => {
    expect(services.temporal.image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(services['temporal-schema'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(services['temporal-setup'].image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION.slice(1)}`);
    expect(services['temporal-ui'].image).toBe(`temporalio/ui:${TEMPORAL_UI_SERVER_VERSION.slice(1)}`);
  });

  it('sets up and upgrades both databases with the schema tool, before the server starts', () => {
    const t = env('temporal');
    expect(t.DB).toBe('postgres12');
    expect([t.DBNAME, t.VISIBILITY_DBNAME]).toEqual([TEMPORAL_DATABASES.store, TEMPORAL_DATABASES.visibility]);
    expect(Number(t.NUM_HISTORY_SHARDS)).toBe(configSchema.shape.TEMPORAL_HISTORY_SHARDS.parse(undefined));
    expect(Number(t.NUM_HISTORY_SHARDS)).toBeGreaterThanOrEqual(4);
    const s = script('temporal-schema');
    for (const key of ['store', 'visibility'] as const) {
      expect(s).toContain(`--db ${TEMPORAL_DATABASES[key]} setup-schema -v 0.0`);
      expect(s).toContain(`--db ${TEMPORAL_DATABASES[key]} update-schema --schema-name ${EMBEDDED_SCHEMA[key]}`);
    }
    expect(env('temporal-schema').SQL_HOST).toBe(t.POSTGRES_SEEDS);
    expect(services.temporal.depends_on).toEqual({ 'temporal-schema': { condition: 'service_completed_successfully' } });
  });

  it("registers the project's search attributes, every one of them, as Keyword", () => {
    const s = script('temporal-setup');
    const registered = [...s.matchAll(/--name (\w+) --type (\w+)/g)].map((m) => `${m[1]}=${m[2]}`);
    expect(registered.sort()).toEqual(ALL_SEARCH_ATTRIBUTES.map((k) => `${k.name}=Keyword`).sort());
    expect(s).toContain('--namespace default');
    for (const [name] of ours) expect(env(name).TEMPORAL_NAMESPACE).toBe('default');
  });
});

describe('docker-compose.yml: start order', () => {
  it('applies the ledger migrations and registers Temporal before any worker or receiver starts', () => {
    for (const name of ['worker', 'events']) {
      expect(services[name].depends_on).toMatchObject({
        migrations: { condition: 'service_completed_successfully' },
        'temporal-setup': { condition: 'service_completed_successfully' },
      });
    }
    expect(services.migrations.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.migrations.restart).toBe('no');
    expect(services['temporal-schema'].depends_on).toEqual({ 'temporal-postgres': { condition: 'service_healthy' } });
    expect(services['temporal-ui'].depends_on).toEqual({ 'temporal-setup': { condition: 'service_completed_successfully' } });
  });

  it('gives every service another one waits on as healthy a health check, and refers to services that exist', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect(services[dep], `${name} → ${dep}`).toBeDefined();
        if (condition === 'service_healthy') expect(services[dep].healthcheck, `${dep} (waited on by ${name})`).toBeDefined();
        if (condition === 'service_completed_successfully') expect(services[dep].restart, `${dep} is one-shot`).toBe('no');
      }
    }
  });
});

describe('Dockerfile', () => {
  const text = fs.readFileSync('Dockerfile', 'utf8');
  const lines = text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const stages = lines.map((l, i) => ({ l, i })).filter(({ l }) => /^FROM\s/i.test(l));
  const final = lines.slice(stages.at(-1)!.i);

  it('is multi-stage: production dependencies installed in one stage, copied into the runtime', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/npm ci --omit=dev/);
    expect(final.join('\n')).toMatch(/COPY --from=deps \/app\/node_modules/);
    expect(final.join('\n')).not.toMatch(/npm (ci|install)/);
  });

  it('runs as a non-root user', () => {
    const user = final.filter((l) => /^USER\s/i.test(l)).at(-1);
    expect(user).toBeDefined();
    expect(user!.split(/\s+/)[1]).not.toMatch(/^(root|0)(:|$)/);
  });

  it("enters through the package's own CLI, so every compose command is a kraken-migrate command", () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { bin: Record<string, string> };
    const entry = final.find((l) => /^ENTRYPOINT\s/i.test(l))!;
    expect(JSON.parse(entry.replace(/^ENTRYPOINT\s+/i, ''))).toEqual(['node', pkg.bin['kraken-migrate']]);
    expect(final.join('\n')).toMatch(/KRAKEN_MIGRATE_MODE=production/);
  });
});

describe('priority and fairness are switched on wherever Temporal runs', () => {
  const expected = { 'matching.useNewMatcher': true, 'matching.enableFairness': true };
  it('the dev server flags, the server engine dynamic config and compose carry the same values', () => {
    expect(FAIRNESS_DYNAMIC_CONFIG).toEqual(expected);
    const args = tuningArgs({ port: 1, uiPort: 2, dbFile: 'x', logDir: 'y' });
    for (const [k, v] of Object.entries(expected)) expect(args.join(' ')).toContain(`--dynamic-config-value ${k}=${v}`);
    const full = dynamicConfig() as Record<string, Array<{ value: unknown }>>;
    for (const [k, v] of Object.entries(expected)) expect(full[k]).toEqual([{ value: v, constraints: {} }]);
    const temporal = services.temporal;
    const mount = temporal.configs?.find((c) => c.source === 'temporal-dynamic-config');
    expect(mount?.target).toBe(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH);
    const content = parse(compose.configs!['temporal-dynamic-config'].content) as Record<string, Array<{ value: unknown }>>;
    expect(Object.fromEntries(Object.entries(content).map(([k, v]) => [k, v[0].value]))).toEqual(expected);
  });
});
