// docs/architecture.md is the map of the system: every table (Prisma model) of every service and
// every queue between them appears on it, so a new one cannot land unseen.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUES } from '../services/common/src/queues.ts';
import { read } from './repo.ts';

const architecture = read('docs/architecture.md');
const services = readdirSync(new URL('../services', import.meta.url)).filter((s) => s !== 'common');

describe('docs/architecture.md', () => {
  it.each(
    services.flatMap((service) =>
      [...read(`services/${service}/prisma/schema.prisma`).matchAll(/^model (\w+)/gm)].map((m) => [service, m[1]]),
    ),
  )("names %s's table %s", (_service, model) => {
    expect(architecture).toContain(`\`${model}\``);
  });

  it.each(Object.values(QUEUES))('names the queue %s', (queue) => {
    expect(architecture).toContain(`\`${queue}\``);
  });
});
