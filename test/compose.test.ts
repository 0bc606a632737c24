// No container engine runs on these machines, so docker-compose.yml is checked by reading it against
// what the code actually reads and serves.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEPLOYABLES, envVarsRead, exists, read } from './repo.ts';

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<
    string,
    {
      build?: { context: string; dockerfile: string };
      environment?: Record<string, string>;
      healthcheck?: unknown;
      ports?: string[];
      container_name?: string;
      restart?: string;
      depends_on?: Record<string, { condition: string }>;
    }
  >;
};
const nameOf = (dir: string) => dir.split('/').pop()!;

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, Redis and every deployable, each with a health check', () => {
    const expected = ['postgres', 'redis', ...DEPLOYABLES.map(nameOf)];
    expect(Object.keys(compose.services).sort()).toEqual(expected.sort());
    for (const [name, svc] of Object.entries(compose.services)) expect(svc.healthcheck, `${name} health check`).toBeTruthy();
  });

  it.each(DEPLOYABLES)('%s builds from its own Dockerfile, which starts its main.ts', (dir) => {
    const svc = compose.services[nameOf(dir)];
    expect(svc.build?.dockerfile).toBe(`${dir}/Dockerfile`);
    expect(exists(`${dir}/Dockerfile`)).toBe(true);
    const dockerfile = read(`${dir}/Dockerfile`);
    expect(dockerfile).toContain(`"${dir}/src/main.ts"`);
    expect(dockerfile).toMatch(/FROM node:24/);
    expect(dockerfile).toMatch(/HEALTHCHECK/);
  });

  it.each(DEPLOYABLES)('%s gets only variables its code reads, and every service address it needs', (dir) => {
    const reads = envVarsRead(dir);
    const env = compose.services[nameOf(dir)].environment ?? {};
    for (const name of Object.keys(env)) expect(reads, `${dir} does not read ${name}`).toContain(name);
    // Defaults point at 127.0.0.1, which is wrong inside a container: every address must be set.
    for (const name of reads) {
      if (name === 'DATABASE_URL' || name === 'REDIS_URL' || /^(AUTH|BILLING|CHATBOT|CHAT)_URL$/.test(name)) {
        expect(env, `${dir} needs ${name} in docker-compose.yml`).toHaveProperty(name);
      }
    }
    if (env.PORT) expect(read(`${dir}/Dockerfile`)).toContain(`EXPOSE ${env.PORT}`);
  });

  it('points each service address at a compose service on the port that service listens on', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(svc.environment ?? {})) {
        const m = /^(AUTH|BILLING|CHATBOT|CHAT)_URL$/.exec(key);
        if (!m) continue;
        const target = m[1].toLowerCase();
        expect(value, `${name}.${key}`).toBe(`http://${target}:${compose.services[target].environment!.PORT}`);
      }
    }
  });

  it('publishes only the gateway, so the chat service can scale', () => {
    for (const [name, svc] of Object.entries(compose.services)) {
      if (name !== 'gateway') expect(svc.ports, `${name} publishes a port`).toBeUndefined();
      expect(svc.container_name, `${name} has a fixed container name`).toBeUndefined();
    }
    expect(compose.services.gateway.ports).toEqual(['${PORT:-8080}:8080']);
  });

  it('restarts every container that dies', () => {
    for (const [name, svc] of Object.entries(compose.services)) expect(svc.restart, `${name} restart policy`).toBe('unless-stopped');
  });

  it('starts services only after their database and Redis are healthy', () => {
    for (const dir of DEPLOYABLES.filter((d) => d.startsWith('services/'))) {
      const deps = compose.services[nameOf(dir)].depends_on ?? {};
      expect(deps.postgres?.condition).toBe('service_healthy');
      expect(deps.redis?.condition).toBe('service_healthy');
    }
  });
});
