// deploy/k8s is checked without a cluster or a container engine: every overlay is rendered (the
// kustomize subset of test/kustomize.ts, compared with `kubectl kustomize` where kubectl is installed),
// every object is validated against the Kubernetes schemas kubernetes-models bundles, and the manifests
// and Dockerfiles are checked against what the code reads, serves and calls (test/k8s-checks.ts). Each
// check is also run on a copy broken on purpose, so that none of them can pass whatever the manifests say.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  allowedConnections,
  callGraph,
  dockerfileProblems,
  envProblems,
  hardeningProblems,
  ingressProblems,
  neededConnections,
  outsideConnections,
  privateRangeProblems,
  probeProblems,
  selectorProblems,
} from './k8s-checks.ts';
import { schemaError, unknownFields } from './k8s-schema.ts';
import { kustomizeBuild, objectId, readYamlObjects, strategicMerge, type K8sObject } from './kustomize.ts';
import { DEPLOYABLES, read, root } from './repo.ts';

const OVERLAYS = readdirSync(join(root, 'deploy/k8s/overlays')).sort();
const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, kustomizeBuild(join(root, 'deploy/k8s/overlays', o))])) as Record<
  string,
  K8sObject[]
>;
/** The keys of the Secret the operator creates, with the example values (production renders no Secret). */
const exampleSecret = readYamlObjects(join(root, 'deploy/k8s/example-secret/secret.yaml'))[0].stringData as Record<string, string>;

type Obj = Record<string, any>;
const copy = (objects: K8sObject[]) => structuredClone(objects) as Obj[];
const find = (objects: Obj[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name)!;
const container = (objects: Obj[], deployment: string) => find(objects, 'Deployment', deployment).spec.template.spec.containers[0];
const withoutEnv = (c: Obj, name: string) => (c.env = c.env.filter((e: Obj) => e.name !== name));
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

describe('rendering deploy/k8s', () => {
  it('has a dev and a production overlay', () => {
    expect(OVERLAYS).toEqual(['dev', 'production']);
  });

  it.each(OVERLAYS)('%s renders every kind the deployment needs, in its own namespace', (overlay) => {
    const kinds = new Set(rendered[overlay].map((o) => o.kind));
    for (const kind of [
      'Deployment',
      'Service',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Job',
      'Ingress',
      'ConfigMap',
      'NetworkPolicy',
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    expect(new Set(rendered[overlay].map((o) => o.metadata.namespace))).toEqual(new Set([overlay === 'dev' ? 'parley-dev' : 'parley']));
  });

  it('runs PostgreSQL and Redis in the dev overlay with its example Secret, and neither in production', () => {
    const images = (overlay: string) =>
      rendered[overlay].flatMap((o: Obj) => o.spec?.template?.spec?.containers?.map((c: Obj) => c.image) ?? []);
    expect(images('dev')).toEqual(expect.arrayContaining(['postgres:15-alpine', 'redis:7-alpine']));
    expect(images('production').filter((i) => /^(postgres|redis):/.test(i))).toEqual([]);
    expect(rendered.dev.some((o) => o.kind === 'Secret')).toBe(true);
    expect(rendered.production.some((o) => o.kind === 'Secret')).toBe(false);
    expect(images('production').every((i) => i.startsWith('registry.example.com/parley/'))).toBe(true);
  });

  it.runIf(hasKubectl).each(OVERLAYS)('%s: test/kustomize.ts renders what `kubectl kustomize` renders', (overlay) => {
    const out = spawnSync('kubectl', ['kustomize', join(root, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const theirs = parseAllDocuments(out.stdout).map((d) => d.toJS() as K8sObject);
    const byId = (objects: K8sObject[]) => Object.fromEntries(objects.map((o) => [objectId(o), o]));
    expect(byId(rendered[overlay])).toEqual(byId(theirs));
  });

  describe('the kustomize subset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parley-kustomize-'));
    const write = (path: string, text: string) => {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    };
    write('base/kustomization.yaml', 'resources: [app.yaml]\n');
    write(
      'base/app.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n        - {name: app, image: "parley/app:latest", env: [{name: A, value: "1"}, {name: B, value: "2"}]}\n        - {name: side, image: "other:1"}\n',
    );
    write(
      'overlay/kustomization.yaml',
      'namespace: ns\nresources: [../base]\npatches: [{path: patch.yaml}]\nimages: [{name: parley/app, newName: r.example/parley/app, newTag: "9"}]\n',
    );
    write(
      'overlay/patch.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app}\nspec:\n  replicas: null\n  template:\n    spec:\n      containers:\n        - {name: app, env: [{name: B, value: "3"}]}\n',
    );

    it('applies resources, patches by kind and name (merging containers and env by name), images and the namespace', () => {
      const [app] = kustomizeBuild(join(dir, 'overlay')) as Obj[];
      expect(app.metadata.namespace).toBe('ns');
      expect(app.spec.replicas).toBeUndefined();
      expect(app.spec.template.spec.containers).toEqual([
        {
          name: 'app',
          image: 'r.example/parley/app:9',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '3' },
          ],
        },
        { name: 'side', image: 'other:1' },
      ]);
    });

    it('replaces lists without a merge key, as kustomize does', () => {
      expect(strategicMerge({ spec: { accessModes: ['ReadWriteMany'], size: 1 } }, { spec: { accessModes: ['ReadWriteOnce'] } })).toEqual({
        spec: { accessModes: ['ReadWriteOnce'], size: 1 },
      });
    });

    it('refuses a field it does not implement, and a patch with no target', () => {
      write('odd/kustomization.yaml', 'resources: [../base/app.yaml]\ncommonLabels: {a: b}\n');
      expect(() => kustomizeBuild(join(dir, 'odd'))).toThrow(/commonLabels is not supported/);
      write('lost/kustomization.yaml', 'resources: [../base]\npatches: [{path: p.yaml}]\n');
      write('lost/p.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: app}\n');
      expect(() => kustomizeBuild(join(dir, 'lost'))).toThrow(/no Service named app/);
    });
  });
});

describe('the Kubernetes schemas', () => {
  it.each(OVERLAYS)('%s: every object is valid and has no field its kind does not define', async (overlay) => {
    for (const o of rendered[overlay]) {
      expect(await schemaError(o), objectId(o)).toBeUndefined();
      expect(unknownFields(o), objectId(o)).toEqual([]);
    }
  });

  it('finds a wrong type, a missing field, an unknown kind and a misspelt field', async () => {
    const objects = copy(rendered.production);
    const gateway = find(objects, 'Deployment', 'gateway');
    gateway.spec.template.spec.containers[0].ports[0].containerPort = '8080';
    expect(await schemaError(gateway as K8sObject)).toMatch(/containerPort must be integer/);
    const service = find(objects, 'Service', 'gateway');
    delete service.spec.ports[0].port;
    expect(await schemaError(service as K8sObject)).toMatch(/required property/);
    expect(await schemaError({ ...service, kind: 'Servce' } as K8sObject)).toMatch(/not a Kubernetes kind/);
    const chat = container(objects, 'chat');
    chat.readinesProbe = chat.readinessProbe;
    expect(unknownFields(find(objects, 'Deployment', 'chat') as K8sObject)).toEqual(['spec.template.spec.containers[0].readinesProbe']);
  });
});

describe('what each process requires', () => {
  it.each(OVERLAYS)('%s: every container has the environment its process requires, and only variables it reads', (overlay) => {
    expect(envProblems(rendered[overlay], exampleSecret)).toEqual([]);
  });

  it('finds a missing secret, a missing address, a variable no process reads, a short grace period and development secrets', () => {
    const objects = copy(rendered.production);
    withoutEnv(container(objects, 'gateway'), 'SERVICE_SECRET');
    withoutEnv(container(objects, 'chat'), 'REDIS_URL');
    container(objects, 'billing').env.push({ name: 'OPENAI_API_KEY', value: 'x' });
    withoutEnv(find(objects, 'Job', 'parley-migrate').spec.template.spec.initContainers[0], 'SMTP_URL');
    find(objects, 'Deployment', 'chatbot').spec.template.spec.terminationGracePeriodSeconds = 60;
    const problems = envProblems(objects as K8sObject[], { ...exampleSecret, SESSION_SECRET: 'parley-dev-session-secret' });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Deployment gateway.*gateway refuses its environment: SERVICE_SECRET is required in production/),
        expect.stringMatching(/Deployment chat,.*REDIS_URL is not set/),
        expect.stringMatching(/Deployment billing.*sets OPENAI_API_KEY, which billing does not read/),
        expect.stringMatching(
          /Job parley-migrate, container migrate-auth: auth refuses its environment: SMTP_URL must be set in production/,
        ),
        expect.stringMatching(/Deployment chatbot.*not less than the grace period/),
        expect.stringMatching(/Deployment chat,.*SESSION_SECRET is the development one/),
      ]),
    );
    const { SERVICE_SECRET: _, ...withoutServiceSecret } = exampleSecret;
    expect(envProblems(objects as K8sObject[], withoutServiceSecret)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Deployment auth.*Secret parley-secrets has no key SERVICE_SECRET/)]),
    );
  });

  it.each(OVERLAYS)('%s: probes, ports and metrics are where the code serves them, and the Job migrates every service', (overlay) => {
    expect(probeProblems(rendered[overlay])).toEqual([]);
  });

  it('finds a wrong probe path, a wrong port, a scrape on the wrong port and a service left unmigrated', () => {
    const objects = copy(rendered.production);
    container(objects, 'chat').readinessProbe.httpGet.path = '/ready';
    container(objects, 'auth').ports[0].containerPort = 4005;
    find(objects, 'Deployment', 'gateway').spec.template.metadata.annotations['prometheus.io/port'] = '8080';
    const job = find(objects, 'Job', 'parley-migrate').spec.template.spec;
    job.initContainers = job.initContainers.filter((c: Obj) => c.name !== 'migrate-billing');
    expect(probeProblems(objects as K8sObject[])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/Deployment chat,.*readinessProbe asks \/ready, not \/readyz/),
        expect.stringMatching(/Deployment chat,.*chat does not serve \/ready$/),
        expect.stringMatching(/Deployment auth.*its http port is 4005, auth listens on 4001/),
        expect.stringMatching(/Deployment gateway.*metrics are scraped on 8080, gateway serves them on 9091/),
        'no Job migrates billing',
      ]),
    );
  });

  it.each(OVERLAYS)('%s: every selector, scale target, budget, backend and service address points at what it should', (overlay) => {
    expect(selectorProblems(rendered[overlay])).toEqual([]);
  });

  it('finds a Service selecting nothing, a lost HPA target, an address on a ClusterIP and a budget over two workloads', () => {
    const objects = copy(rendered.production);
    find(objects, 'Service', 'billing-headless').spec.selector['app.kubernetes.io/name'] = 'biling';
    find(objects, 'HorizontalPodAutoscaler', 'gateway').spec.scaleTargetRef.name = 'gateway-v2';
    delete find(objects, 'Service', 'auth-headless').spec.clusterIP;
    delete find(objects, 'PodDisruptionBudget', 'chat').spec.selector.matchLabels['app.kubernetes.io/component'];
    find(objects, 'ConfigMap', 'parley-config').data.CHATBOT_URL = 'http://chat-headless:4003';
    expect(selectorProblems(objects as K8sObject[])).toEqual(
      expect.arrayContaining([
        'Service billing-headless: selects no pods',
        'HorizontalPodAutoscaler gateway: no Deployment gateway-v2',
        expect.stringMatching(/AUTH_URL=http:\/\/auth-headless:4001 is not a headless Service/),
        'PodDisruptionBudget chat: selects 2 workloads, not one',
        expect.stringMatching(/CHATBOT_URL=http:\/\/chat-headless:4003: the Service's pods are not chatbot on 4002/),
      ]),
    );
  });
});

describe('hardening and the Ingress', () => {
  it.each(OVERLAYS)('%s: every Parley pod runs unprivileged, read-only, with resources and a preStop pause', (overlay) => {
    expect(hardeningProblems(rendered[overlay])).toEqual([]);
  });

  it.each(OVERLAYS)('%s: the Ingress streams, waits for the longest answer and takes the largest upload', (overlay) => {
    expect(ingressProblems(rendered[overlay])).toEqual([]);
  });

  it('finds root, a writable root filesystem, a kept capability, no limits, no preStop, buffering and a short timeout', () => {
    const objects = copy(rendered.production);
    find(objects, 'Deployment', 'auth').spec.template.spec.securityContext.runAsNonRoot = false;
    container(objects, 'chat').securityContext.readOnlyRootFilesystem = false;
    container(objects, 'billing').securityContext.capabilities = { drop: ['ALL'], add: ['NET_ADMIN'] };
    delete container(objects, 'chatbot').resources.limits;
    delete container(objects, 'gateway').lifecycle;
    const ingress = find(objects, 'Ingress', 'parley').metadata.annotations;
    ingress['nginx.ingress.kubernetes.io/proxy-buffering'] = 'on';
    ingress['nginx.ingress.kubernetes.io/proxy-read-timeout'] = '60';
    delete ingress['nginx.ingress.kubernetes.io/proxy-body-size'];
    expect(hardeningProblems(objects as K8sObject[])).toEqual([
      'Deployment gateway, container gateway: no preStop pause before its drain',
      'Deployment auth: may run as root',
      'Deployment billing, container billing: keeps capabilities',
      'Deployment chatbot, container chatbot: no CPU and memory requests and memory limit',
      'Deployment chat, container chat: writes its root filesystem',
    ]);
    expect(ingressProblems(objects as K8sObject[])).toEqual([
      'Ingress parley: buffers answers',
      'Ingress parley: proxy-read-timeout is not above CHAT_TIMEOUT_MS (60 s)',
      'Ingress parley: proxy-body-size is not above MAX_UPLOAD_BYTES',
    ]);
  });
});

describe('the NetworkPolicies', () => {
  it('read the call graph from the code', () => {
    expect(Object.fromEntries(callGraph())).toEqual({
      auth: ['gateway'],
      billing: ['gateway', 'chat', 'chatbot'],
      chatbot: ['gateway', 'chat'],
      chat: ['gateway'],
    });
  });

  it.each(OVERLAYS)('%s: allow exactly the calls the code makes between the pods, and the data stores only to their users', (overlay) => {
    expect(allowedConnections(rendered[overlay])).toEqual(neededConnections(rendered[overlay]));
  });

  it('production: the calls are these', () => {
    expect(allowedConnections(rendered.production)).toEqual([
      'chat -> billing:4004',
      'chat -> chatbot:4002',
      'chat-worker -> billing:4004',
      'chat-worker -> chatbot:4002',
      'chatbot -> billing:4004',
      'gateway -> auth:4001',
      'gateway -> billing:4004',
      'gateway -> chat:4003',
      'gateway -> chatbot:4002',
    ]);
  });

  it.each(OVERLAYS)(
    '%s: let in only the Ingress controller and Prometheus, and out only DNS and what each process reaches outside',
    (overlay) => {
      const { allowed, needed } = outsideConnections(rendered[overlay]);
      expect(allowed).toEqual(needed);
    },
  );

  it('find a call the code does not make, a call it makes that is blocked, and a rule open on every port', () => {
    const objects = copy(rendered.production);
    find(objects, 'NetworkPolicy', 'chat').spec.egress.push({
      to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'auth' } } }],
      ports: [{ port: 4001 }],
    });
    find(objects, 'NetworkPolicy', 'auth').spec.ingress[0].from.push({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'chat' } },
    });
    const gateway = find(objects, 'NetworkPolicy', 'gateway').spec;
    gateway.egress = gateway.egress.filter((r: Obj) => r.ports[0].port !== 4004);
    const allowed = allowedConnections(objects as K8sObject[]);
    const needed = neededConnections(objects as K8sObject[]);
    expect(allowed.filter((c) => !needed.includes(c))).toEqual(['chat -> auth:4001', 'chat-worker -> auth:4001']);
    expect(needed.filter((c) => !allowed.includes(c))).toEqual(['gateway -> billing:4004']);

    // The chatbot service's way out open on every port, and the gateway open to any address.
    delete find(objects, 'NetworkPolicy', 'chatbot').spec.egress[1].ports;
    find(objects, 'NetworkPolicy', 'gateway').spec.ingress.push({ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] });
    expect(allowedConnections(objects as K8sObject[])).toEqual(
      expect.arrayContaining(['chatbot -> gateway:8080', 'chatbot -> gateway:9091']),
    );
    const outside = outsideConnections(objects as K8sObject[]);
    expect(outside.allowed.filter((c) => !outside.needed.includes(c))).toEqual([
      'anywhere -> gateway:8080',
      'anywhere -> gateway:9091',
      'chatbot -> outside:any',
    ]);
  });

  it.each(OVERLAYS)('%s: never let a way out to the internet reach private or link-local addresses', (overlay) => {
    expect(privateRangeProblems(rendered[overlay])).toEqual([]);
  });

  it('find a way out that reaches the metadata endpoint', () => {
    const objects = copy(rendered.production);
    const crawl = find(objects, 'NetworkPolicy', 'chatbot').spec.egress[1].to[0].ipBlock;
    crawl.except = crawl.except.filter((range: string) => range !== '169.254.0.0/16');
    expect(privateRangeProblems(objects as K8sObject[])).toEqual(['NetworkPolicy chatbot: 443, 80 out to 169.254.0.0/16']);
  });

  it('find a namespace let in that should not be, and a process without DNS', () => {
    const objects = copy(rendered.production);
    find(objects, 'NetworkPolicy', 'billing').spec.ingress.push({
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }],
    });
    find(objects, 'NetworkPolicy', 'dns').spec.podSelector = { matchLabels: { 'app.kubernetes.io/name': 'gateway' } };
    const { allowed, needed } = outsideConnections(objects as K8sObject[]);
    expect(allowed.filter((c) => !needed.includes(c))).toEqual(['ingress-nginx -> billing:4004']);
    expect(needed.filter((c) => !allowed.includes(c))).toContain('chat -> kube-system:UDP/53');
  });

  it('dev: find PostgreSQL open to the gateway', () => {
    const objects = copy(rendered.dev);
    find(objects, 'NetworkPolicy', 'postgres').spec.ingress[0].from[0].podSelector.matchExpressions[0].values.push('gateway');
    find(objects, 'NetworkPolicy', 'to-postgres').spec.podSelector.matchExpressions[0].values.push('gateway');
    const allowed = allowedConnections(objects as K8sObject[]);
    expect(allowed.filter((c) => !neededConnections(objects as K8sObject[]).includes(c))).toEqual(['gateway -> postgres:5432']);
  });
});

describe('the Dockerfiles', () => {
  it.each(DEPLOYABLES)('%s: multi-stage, production dependencies only, its own sources, not root', (dir) => {
    expect(dockerfileProblems(dir, read(`${dir}/Dockerfile`))).toEqual([]);
  });

  it('find a dev install in the image, a source that is not there or not in the context, another service copied, and root', () => {
    const original = read('services/chat/Dockerfile');
    const broken = original
      .replace('--omit=dev ', '')
      .replace('USER 1000:1000', 'USER root')
      .replace(
        'COPY services/chat/src services/chat/src',
        'COPY services/chat/src services/chat/src\nCOPY services/chat/srv services/chat/srv\nCOPY services/billing/src services/billing/src\nRUN npm install left-pad',
      )
      .replace('COPY services/chat/prisma services/chat/prisma', 'COPY services/chat/src/generated services/chat/src/generated');
    expect(dockerfileProblems('services/chat', broken)).toEqual(
      expect.arrayContaining([
        'services/chat/Dockerfile: stage deps installs dev dependencies, and the image copies them',
        'services/chat/Dockerfile: the image runs as root',
        'services/chat/Dockerfile: COPY services/chat/srv: no such file',
        'services/chat/Dockerfile: the image copies services/billing/src, which services/chat does not run',
        'services/chat/Dockerfile: the image runs an npm install',
        'services/chat/Dockerfile: COPY services/chat/src/generated is left out of the build context by .dockerignore',
      ]),
    );
    expect(dockerfileProblems('services/chat', original.replace(/FROM node:24-slim AS \w+\n/g, ''))).toEqual(
      expect.arrayContaining(['services/chat/Dockerfile: COPY --from=deps names no earlier stage']),
    );
  });
});
