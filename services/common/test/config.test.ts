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
