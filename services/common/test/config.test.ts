import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commonVars, ConfigError, int, port, readConfig, url } from '../src/config.ts';
import { DEVELOPMENT_SERVICE_SECRET } from '../src/service-auth.ts';

describe('readConfig', () => {
  it('applies defaults and parses values', () => {
    const cfg = readConfig({ ...commonVars, PORT: { parse: port, default: '4001' } }, { PORT: '5000' });
    expect(cfg.PORT).toBe(5000);
    expect(cfg.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/parley');
    expect(cfg.LOG_LEVEL).toBe('info');
  });

  it.each([
    ['PORT', { PORT: 'eighty' }, 'PORT must be a port number'],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }, 'DATABASE_URL must be a postgres or postgresql URL'],
    ['REDIS_URL', { REDIS_URL: 'not a url' }, 'REDIS_URL must be a URL'],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of'],
  ])('names the bad variable %s', (_name, env, message) => {
    expect(() => readConfig({ ...commonVars, PORT: { parse: port, default: '1' } }, env)).toThrowError(message);
  });

  it('reports a required variable that is missing', () => {
    expect(() => readConfig({ SECRET: { parse: url(['https']) } }, {})).toThrowError(new ConfigError('SECRET is required but not set'));
  });

  it('listens on loopback and uses the development service secret by default, outside production only', () => {
    const cfg = readConfig(commonVars, {});
    expect(cfg.SERVICE_HOST).toBe('127.0.0.1');
    expect(cfg.SERVICE_SECRET).toBe(DEVELOPMENT_SERVICE_SECRET);
    const required = 'SERVICE_SECRET is required in production';
    expect(() => readConfig(commonVars, { NODE_ENV: 'production' })).toThrowError(required);
    expect(() => readConfig(commonVars, { NODE_ENV: 'production', SERVICE_SECRET: DEVELOPMENT_SERVICE_SECRET })).toThrowError(required);
    const secret = 'x'.repeat(32);
    expect(readConfig(commonVars, { NODE_ENV: 'production', SERVICE_SECRET: secret, SERVICE_HOST: '0.0.0.0' })).toMatchObject({
      SERVICE_SECRET: secret,
      SERVICE_HOST: '0.0.0.0',
    });
    expect(() => readConfig(commonVars, { SERVICE_SECRET: 'x'.repeat(31) })).toThrowError(
      'SERVICE_SECRET must have at least 32 characters',
    );
    expect(() => readConfig(commonVars, { SERVICE_HOST: 'a b' })).toThrowError('SERVICE_HOST must be an IP address or host name');
  });

  it('takes the process knobs: MIGRATE_ON_START, DATABASE_POOL_MAX, SHUTDOWN_*, SERVICE_SECRET_PREVIOUS', () => {
    expect(readConfig(commonVars, {})).toMatchObject({
      MIGRATE_ON_START: true,
      DATABASE_POOL_MAX: 10,
      SHUTDOWN_DRAIN_MS: 0,
      SHUTDOWN_TIMEOUT_MS: 65000,
      SERVICE_SECRET_PREVIOUS: undefined,
      WORKERS: 'on',
    });
    const previous = 'p'.repeat(32);
    expect(
      readConfig(commonVars, {
        MIGRATE_ON_START: 'false',
        DATABASE_POOL_MAX: '4',
        SHUTDOWN_DRAIN_MS: '5000',
        SERVICE_SECRET_PREVIOUS: previous,
      }),
    ).toMatchObject({ MIGRATE_ON_START: false, DATABASE_POOL_MAX: 4, SHUTDOWN_DRAIN_MS: 5000, SERVICE_SECRET_PREVIOUS: previous });
  });

  it.each([
    [{ DATABASE_POOL_MAX: '0' }, 'DATABASE_POOL_MAX must be an integer from 1 to 1000, got "0"'],
    [{ DATABASE_POOL_MAX: '-3' }, 'DATABASE_POOL_MAX must be an integer from 1 to 1000'],
    [{ DATABASE_POOL_MAX: 'ten' }, 'DATABASE_POOL_MAX must be an integer from 1 to 1000'],
    [{ DATABASE_POOL_MAX: '2.5' }, 'DATABASE_POOL_MAX must be an integer from 1 to 1000'],
    [{ DATABASE_POOL_MAX: '5000' }, 'DATABASE_POOL_MAX must be an integer from 1 to 1000'],
    [{ MIGRATE_ON_START: 'no' }, 'MIGRATE_ON_START must be true or false, got "no"'],
    [{ SHUTDOWN_DRAIN_MS: '-1' }, 'SHUTDOWN_DRAIN_MS must be an integer'],
    [{ SHUTDOWN_TIMEOUT_MS: '10' }, 'SHUTDOWN_TIMEOUT_MS must be an integer from 1000'],
    [{ WORKERS: 'maybe' }, 'WORKERS must be one of on, off'],
    [{ SERVICE_SECRET_PREVIOUS: 'short' }, 'SERVICE_SECRET_PREVIOUS must have at least 32 characters'],
    [
      { NODE_ENV: 'production', SERVICE_SECRET: 'x'.repeat(32), SERVICE_SECRET_PREVIOUS: DEVELOPMENT_SERVICE_SECRET },
      'SERVICE_SECRET_PREVIOUS must not be the development secret in production',
    ],
  ])('refuses %o', (env, message) => {
    expect(() => readConfig(commonVars, env)).toThrowError(message);
  });

  it('bounds integers', () => {
    expect(() => readConfig({ N: { parse: int(1, 5), default: '9' } }, {})).toThrowError('N must be an integer from 1 to 5');
  });

  it('makes a process exit with a message naming the variable', () => {
    const script = `import { loadConfig, commonVars } from ${JSON.stringify(new URL('../src/config.ts', import.meta.url).pathname)}; loadConfig(commonVars); console.log('started');`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, REDIS_URL: 'http://wrong' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Invalid environment: REDIS_URL must be a redis or rediss URL');
    expect(r.stdout).not.toContain('started');
  });
});
