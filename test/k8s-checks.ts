// The checks test/k8s.test.ts runs on the rendered manifests of deploy/k8s and on the Dockerfiles. Each
// takes the objects (or a Dockerfile's text) and returns its problems, one sentence each, so that the
// test can also run it on a copy broken on purpose and see it complain. What they compare against is
// read from the code: each process's configuration spec and its Dockerfile's ENV, the call graph each
// service's trust names, the ports the services listen on, the probe paths they serve.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readAuthConfig, authVars } from '../services/auth/src/config.ts';
import { readBillingConfig, billingVars } from '../services/billing/src/config.ts';
import { readChatConfig, chatVars, DEV_ALTCHA_HMAC_KEY, DEV_SESSION_SECRET } from '../services/chat/src/config.ts';
import { readChatbotConfig, chatbotVars } from '../services/chatbot/src/config.ts';
import type { Var } from '../services/common/src/config.ts';
import { readGatewayConfig, gatewayVars } from '../gateway/src/config.ts';
import type { K8sObject } from './kustomize.ts';
import { envVarsRead, exists, read, root } from './repo.ts';

export type Process = 'gateway' | 'auth' | 'billing' | 'chatbot' | 'chat';
export const PROCESSES: Process[] = ['gateway', 'auth', 'billing', 'chatbot', 'chat'];
const SERVICES = PROCESSES.filter((p) => p !== 'gateway');

export const deployableOf = (p: Process) => (p === 'gateway' ? 'gateway' : `services/${p}`);

/** Each process's configuration: its spec (name → default) and the function that validates an environment. */
const CONFIG: Record<Process, { spec: Record<string, Var<unknown>>; read: (env: NodeJS.ProcessEnv) => unknown }> = {
  gateway: { spec: gatewayVars, read: readGatewayConfig },
  auth: { spec: authVars, read: readAuthConfig },
  billing: { spec: billingVars, read: readBillingConfig },
  chatbot: { spec: chatbotVars, read: readChatbotConfig },
  chat: { spec: chatVars, read: readChatConfig },
};

/** What each process reaches outside the cluster besides PostgreSQL and Redis (network-policies.yaml). */
export const OUTSIDE_PORTS: Record<Process, number[]> = {
  gateway: [],
  auth: [465, 587],
  billing: [443],
  chatbot: [80, 443],
  chat: [443, 465, 587],
};
/** The OpenTelemetry collector's ports (gRPC, HTTP), in the namespace monitoring beside Prometheus. */
const OTLP_PORTS = [4317, 4318];
const PROBES = { startupProbe: '/startupz', livenessProbe: '/healthz', readinessProbe: '/readyz' } as const;
/** The preStop sleep, SHUTDOWN_DRAIN_MS and SHUTDOWN_TIMEOUT_MS must fit in terminationGracePeriodSeconds. */
const DRAIN_VARS = ['SHUTDOWN_DRAIN_MS', 'SHUTDOWN_TIMEOUT_MS'];

type Obj = Record<string, any>;
interface Workload {
  name: string;
  kind: string;
  labels: Record<string, string>;
  pod: Obj;
  object: K8sObject;
}

export function workloadsOf(objects: K8sObject[]): Workload[] {
  return objects
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => {
      const template = (o as Obj).spec.template;
      return { name: o.metadata.name, kind: o.kind, labels: template.metadata?.labels ?? {}, pod: template.spec, object: o };
    });
}

const containersOf = (w: Workload): Obj[] => [...(w.pod.initContainers ?? []), ...w.pod.containers];

/** The process a container runs, by its image (`…parley/<process>:tag`). */
export function processOf(container: Obj): Process | undefined {
  const m = /(?:^|\/)parley\/([a-z]+)(?::[^/]*)?$/.exec(String(container.image));
  return m && (PROCESSES as string[]).includes(m[1]) ? (m[1] as Process) : undefined;
}

const byKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind) as Obj[];

// ---- The code's facts ----------------------------------------------------------------------------

/** Who may call each service: the callers its trust names in services/<service>/src/service.ts. */
export function callGraph(): Map<Process, Process[]> {
  const graph = new Map<Process, Process[]>();
  for (const service of SERVICES) {
    const m = /callers: \[([^\]]*)\]/.exec(read(`services/${service}/src/service.ts`));
    if (!m) throw new Error(`services/${service}/src/service.ts names no callers`);
    graph.set(
      service,
      [...m[1].matchAll(/'([a-z]+)'/g)].map((c) => c[1] as Process),
    );
  }
  return graph;
}

/** The port a process listens on by default (its spec's PORT). */
export const portOf = (p: Process) => Number(CONFIG[p].spec.PORT.default);

/** The instructions of a Dockerfile by stage: continuation lines joined, comments dropped. */
export function dockerfileStages(text: string): { name?: string; from: string; instructions: { op: string; args: string }[] }[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('#'));
  const stages: ReturnType<typeof dockerfileStages> = [];
  for (const line of lines) {
    const [, op, args] = /^\s*(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op) continue;
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?/i.exec(args)!;
      stages.push({ from: m[1], name: m[2], instructions: [] });
    } else stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args: args.trim() });
  }
  return stages;
}

/** The ENV the image of a deployable sets (its Dockerfile's last stage). */
export function imageEnv(dockerfile: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { op, args } of dockerfileStages(dockerfile).at(-1)!.instructions) {
    if (op === 'ENV') for (const m of args.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g)) env[m[1]] = m[2];
  }
  return env;
}

/** Does the code a process runs (its own sources and the kit's, tests left out) name this path in quotes? */
function serves(p: Process, path: string): boolean {
  // The gateway runs on the kit's lifecycle and metrics server too.
  const dirs = [`${deployableOf(p)}/src`, 'services/common/src'];
  const quoted = new RegExp(`['"\`]${path.replace(/\//g, '\\/')}['"\`]`);
  const walk = (dir: string): boolean => {
    for (const entry of readdirEntries(dir)) {
      const full = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!['__tests__', 'testing', 'generated'].includes(entry.name) && walk(full)) return true;
      } else if (/\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) && quoted.test(read(full))) return true;
    }
    return false;
  };
  return dirs.some(walk);
}

const readdirEntries = (dir: string) => readdirSync(join(root, dir), { withFileTypes: true });

// ---- Environment -------------------------------------------------------------------------------

/**
 * A container's environment as its process sees it: the image's ENV, then the container's env with
 * ConfigMap and Secret references resolved (the Secret from `secrets` when the render has none, as
 * production's, which the operator creates). Unresolvable references are problems.
 */
export function containerEnv(
  container: Obj,
  objects: K8sObject[],
  secrets: Record<string, string>,
  podName: string,
): { env: Record<string, string>; problems: string[] } {
  const process = processOf(container);
  const env: Record<string, string> = process ? imageEnv(read(`${deployableOf(process)}/Dockerfile`)) : {};
  const problems: string[] = [];
  const configMaps = byKind(objects, 'ConfigMap');
  const secretObjects = byKind(objects, 'Secret');
  for (const e of container.env ?? []) {
    const ref = e.valueFrom;
    if (!ref) env[e.name] = String(e.value ?? '');
    else if (ref.fieldRef) env[e.name] = ref.fieldRef.fieldPath === 'metadata.name' ? podName : `<${ref.fieldRef.fieldPath}>`;
    else if (ref.configMapKeyRef) {
      const data = configMaps.find((c) => c.metadata.name === ref.configMapKeyRef.name)?.data ?? {};
      if (ref.configMapKeyRef.key in data) env[e.name] = String(data[ref.configMapKeyRef.key]);
      else if (!ref.configMapKeyRef.optional)
        problems.push(`${e.name}: ConfigMap ${ref.configMapKeyRef.name} has no key ${ref.configMapKeyRef.key}`);
    } else if (ref.secretKeyRef) {
      const secret = secretObjects.find((s) => s.metadata.name === ref.secretKeyRef.name);
      const data = secret ? { ...secret.stringData, ...decoded(secret.data) } : secrets;
      if (ref.secretKeyRef.key in data) env[e.name] = String(data[ref.secretKeyRef.key]);
      else if (!ref.secretKeyRef.optional) problems.push(`${e.name}: Secret ${ref.secretKeyRef.name} has no key ${ref.secretKeyRef.key}`);
    } else problems.push(`${e.name}: an env source the test does not know`);
  }
  return { env, problems };
}

const decoded = (data: Record<string, string> | undefined) =>
  Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));

const LOOPBACK = /127\.0\.0\.1|localhost/;

/**
 * Every container of a Parley process gets what its process requires: its configuration validates (as
 * production validates it, NODE_ENV coming from the image), every setting whose default is a loopback
 * address is set, nothing is set that the process does not read, the drain settings are there and fit
 * the grace period, and the chat service's signing secrets are not the development ones.
 */
export function envProblems(objects: K8sObject[], secrets: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const w of workloadsOf(objects)) {
    for (const c of containersOf(w)) {
      const process = processOf(c);
      if (!process) continue;
      const where = `${w.kind} ${w.name}, container ${c.name}`;
      const { env, problems: refs } = containerEnv(c, objects, secrets, `${w.name}-7d9f8b6c4-x2x5q`);
      problems.push(...refs.map((r) => `${where}: ${r}`));
      try {
        CONFIG[process].read(env);
      } catch (err) {
        problems.push(`${where}: ${process} refuses its environment: ${(err as Error).message}`);
      }
      const set = new Set<string>((c.env ?? []).map((e: Obj) => e.name));
      const reads = envVarsRead(deployableOf(process));
      for (const name of set) {
        if (!reads.has(name)) problems.push(`${where}: sets ${name}, which ${process} does not read`);
      }
      if (w.kind === 'Job') continue;
      for (const [name, v] of Object.entries(CONFIG[process].spec)) {
        if (v.default && LOOPBACK.test(v.default) && !set.has(name))
          problems.push(`${where}: ${name} is not set (its default, ${v.default}, is this machine)`);
      }
      for (const name of [...DRAIN_VARS, 'INSTANCE_ID']) if (!set.has(name)) problems.push(`${where}: ${name} is not set`);
      if (env.INSTANCE_ID && !env.INSTANCE_ID.startsWith(w.name)) problems.push(`${where}: INSTANCE_ID is not the pod's name`);
      if (process !== 'gateway') {
        for (const name of ['WORKERS', 'DATABASE_POOL_MAX']) if (!set.has(name)) problems.push(`${where}: ${name} is not set`);
        if (env.MIGRATE_ON_START !== 'false') problems.push(`${where}: MIGRATE_ON_START is not false (the Job migrates)`);
      }
      const preStop = Number(c.lifecycle?.preStop?.exec?.command?.at(-1) ?? NaN);
      const needed = preStop * 1000 + DRAIN_VARS.reduce((sum, name) => sum + Number(env[name]), 0);
      const grace = (w.pod.terminationGracePeriodSeconds ?? 30) * 1000;
      if (!(needed < grace))
        problems.push(`${where}: preStop, drain and shutdown take ${needed} ms, not less than the grace period (${grace} ms)`);
      if (process === 'chat') {
        if (env.SESSION_SECRET === DEV_SESSION_SECRET) problems.push(`${where}: SESSION_SECRET is the development one`);
        if (env.ALTCHA_HMAC_KEY === DEV_ALTCHA_HMAC_KEY) problems.push(`${where}: ALTCHA_HMAC_KEY is the development one`);
      }
    }
  }
  return problems;
}

// ---- Probes, ports, metrics, the migration Job --------------------------------------------------

/** A probe's or a scrape's port, by name or number, as a number on the container. */
function portNumber(c: Obj, port: string | number): number | undefined {
  if (typeof port === 'number') return port;
  return c.ports?.find((p: Obj) => p.name === port)?.containerPort;
}

/**
 * Every long-running Parley container listens where its process does (PORT, its Dockerfile's EXPOSE),
 * with the three probes on the paths its code serves on that port, a scrape annotation on its metrics
 * port, and the migration Job runs each service's migrate.ts from that service's image.
 */
export function probeProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloadsOf(objects)) {
    for (const c of containersOf(w)) {
      const process = processOf(c);
      if (!process) continue;
      const where = `${w.kind} ${w.name}, container ${c.name}`;
      if (w.kind === 'Job') {
        const script = `services/${process}/src/migrate.ts`;
        if (JSON.stringify(c.command) !== JSON.stringify(['node', script]) || !exists(script)) {
          problems.push(`${where}: runs ${JSON.stringify(c.command)}, not node ${script}`);
        }
        continue;
      }
      const port = portOf(process);
      const env = Object.fromEntries((c.env ?? []).filter((e: Obj) => 'value' in e).map((e: Obj) => [e.name, e.value]));
      if (Number(env.PORT) !== port) problems.push(`${where}: PORT is ${env.PORT}, ${process} listens on ${port}`);
      if (portNumber(c, 'http') !== port)
        problems.push(`${where}: its http port is ${portNumber(c, 'http')}, ${process} listens on ${port}`);
      if (!read(`${deployableOf(process)}/Dockerfile`).includes(`EXPOSE ${port}`))
        problems.push(`${where}: the Dockerfile does not EXPOSE ${port}`);
      for (const [probe, path] of Object.entries(PROBES)) {
        const get = c[probe]?.httpGet;
        if (!get) {
          problems.push(`${where}: no ${probe}`);
          continue;
        }
        if (get.path !== path) problems.push(`${where}: ${probe} asks ${get.path}, not ${path}`);
        if (portNumber(c, get.port) !== port) problems.push(`${where}: ${probe} asks port ${get.port}, not ${port}`);
        if (!serves(process, get.path)) problems.push(`${where}: ${process} does not serve ${get.path}`);
      }
      const annotations = (w.object as Obj).spec.template.metadata?.annotations ?? {};
      const metricsPort = process === 'gateway' ? Number(env.METRICS_PORT) : port;
      if (Number(annotations['prometheus.io/port']) !== metricsPort || portNumber(c, metricsPort) !== metricsPort) {
        problems.push(`${where}: metrics are scraped on ${annotations['prometheus.io/port']}, ${process} serves them on ${metricsPort}`);
      }
      const metricsPath = annotations['prometheus.io/path'];
      if (!serves(process, metricsPath)) problems.push(`${where}: ${process} does not serve ${metricsPath}`);
    }
  }
  const migrated = workloadsOf(objects)
    .filter((w) => w.kind === 'Job')
    .flatMap((w) => containersOf(w).map(processOf));
  for (const service of SERVICES.filter((s) => exists(`services/${s}/src/migrate.ts`))) {
    if (!migrated.includes(service)) problems.push(`no Job migrates ${service}`);
  }
  return problems;
}

// ---- Selectors ------------------------------------------------------------------------------------

export function selects(selector: Obj | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e: Obj) => {
    switch (e.operator) {
      case 'In':
        return e.values.includes(labels[e.key]);
      case 'NotIn':
        return !e.values.includes(labels[e.key]);
      case 'Exists':
        return e.key in labels;
      case 'DoesNotExist':
        return !(e.key in labels);
      default:
        throw new Error(`unknown selector operator ${e.operator}`);
    }
  });
  return byLabels && byExpressions;
}

/** The workloads whose pods a Service (a plain label map) selects. */
const selectedBy = (objects: K8sObject[], selector: Record<string, string>) =>
  workloadsOf(objects).filter((w) => Object.keys(selector).length > 0 && selects({ matchLabels: selector }, w.labels));

/**
 * Every selector selects what it is meant to: each workload's own pods, each Service some pods with the
 * port it targets, each HPA and PDB an existing Deployment (chat's API replicas and the gateway have
 * both), the Ingress an existing Service port, each volume claim an existing claim, and each
 * `<SERVICE>_URL` a headless Service on the port of that service's pods.
 */
export function selectorProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const workloads = workloadsOf(objects);
  for (const w of workloads) {
    if (w.kind !== 'Job' && !selects((w.object as Obj).spec.selector, w.labels))
      problems.push(`${w.kind} ${w.name}: its selector does not select its own pods`);
    for (const v of w.pod.volumes ?? []) {
      const claim = v.persistentVolumeClaim?.claimName;
      if (claim && !byKind(objects, 'PersistentVolumeClaim').some((p) => p.metadata.name === claim))
        problems.push(`${w.kind} ${w.name}: no claim ${claim}`);
    }
  }
  const services = byKind(objects, 'Service');
  for (const s of services) {
    const targets = selectedBy(objects, s.spec.selector ?? {});
    if (!targets.length) problems.push(`Service ${s.metadata.name}: selects no pods`);
    for (const t of targets) {
      for (const port of s.spec.ports) {
        if (!containersOf(t).some((c) => portNumber(c, port.targetPort ?? port.port) !== undefined)) {
          problems.push(`Service ${s.metadata.name}: ${t.name}'s pods have no port ${port.targetPort}`);
        }
      }
    }
  }
  const deployments = byKind(objects, 'Deployment');
  for (const hpa of byKind(objects, 'HorizontalPodAutoscaler')) {
    const ref = hpa.spec.scaleTargetRef;
    if (ref.kind !== 'Deployment' || !deployments.some((d) => d.metadata.name === ref.name))
      problems.push(`HorizontalPodAutoscaler ${hpa.metadata.name}: no ${ref.kind} ${ref.name}`);
  }
  for (const pdb of byKind(objects, 'PodDisruptionBudget')) {
    const targets = workloads.filter((w) => selects(pdb.spec.selector, w.labels));
    if (targets.length !== 1) problems.push(`PodDisruptionBudget ${pdb.metadata.name}: selects ${targets.length} workloads, not one`);
  }
  const chatApi = callersUrlTarget(objects, 'chat');
  for (const name of ['gateway', ...(chatApi ? [chatApi] : [])]) {
    const w = workloads.find((x) => x.name === name);
    if (!byKind(objects, 'HorizontalPodAutoscaler').some((h) => h.spec.scaleTargetRef.name === name))
      problems.push(`${name}: no HorizontalPodAutoscaler`);
    if (!w || !byKind(objects, 'PodDisruptionBudget').some((p) => selects(p.spec.selector, w.labels)))
      problems.push(`${name}: no PodDisruptionBudget`);
  }
  for (const ingress of byKind(objects, 'Ingress')) {
    for (const rule of ingress.spec.rules ?? []) {
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend.service;
        const s = services.find((x) => x.metadata.name === backend.name);
        if (!s || !s.spec.ports.some((p: Obj) => p.name === backend.port.name || p.port === backend.port.number)) {
          problems.push(`Ingress ${ingress.metadata.name}: no Service port ${backend.name}:${backend.port.name ?? backend.port.number}`);
        }
      }
    }
  }
  for (const w of workloads) {
    for (const c of containersOf(w)) {
      for (const e of c.env ?? []) {
        const m = /^(AUTH|BILLING|CHATBOT|CHAT)_URL$/.exec(e.name);
        if (!m) continue;
        const callee = m[1].toLowerCase() as Process;
        const value = resolveConfig(objects, e);
        const url = /^http:\/\/([a-z0-9-]+):(\d+)$/.exec(value ?? '');
        const s = url && services.find((x) => x.metadata.name === url[1]);
        const where = `${w.name}: ${e.name}=${value}`;
        if (!url || !s) {
          problems.push(`${where} names no Service`);
          continue;
        }
        if (s.spec.clusterIP !== 'None') problems.push(`${where} is not a headless Service: calls would be balanced per connection`);
        const port = s.spec.ports.find((p: Obj) => p.port === Number(url[2]));
        const targets = selectedBy(objects, s.spec.selector ?? {});
        if (!port) problems.push(`${where}: the Service has no port ${url[2]}`);
        if (
          !targets.length ||
          !targets.every((t) => containersOf(t).some((x) => processOf(x) === callee && portNumber(x, port?.targetPort) === portOf(callee)))
        ) {
          problems.push(`${where}: the Service's pods are not ${callee} on ${portOf(callee)}`);
        }
      }
    }
  }
  return problems;
}

function resolveConfig(objects: K8sObject[], e: Obj): string | undefined {
  if (!e.valueFrom) return e.value;
  const ref = e.valueFrom.configMapKeyRef;
  return ref && byKind(objects, 'ConfigMap').find((c) => c.metadata.name === ref.name)?.data?.[ref.key];
}

/** The workload behind the Service a service's callers are pointed at (the gateway's `<SERVICE>_URL`). */
function callersUrlTarget(objects: K8sObject[], callee: Process): string | undefined {
  return urlTargets(objects, callee)[0];
}

function urlTargets(objects: K8sObject[], callee: Process): string[] {
  const urls = workloadsOf(objects)
    .flatMap((w) => containersOf(w).flatMap((c) => c.env ?? []))
    .filter((e: Obj) => e.name === `${callee.toUpperCase()}_URL`)
    .map((e: Obj) => resolveConfig(objects, e));
  const host = /^http:\/\/([a-z0-9-]+):/.exec(urls[0] ?? '')?.[1];
  const s = byKind(objects, 'Service').find((x) => x.metadata.name === host);
  return s ? selectedBy(objects, s.spec.selector ?? {}).map((w) => w.name) : [];
}

// ---- NetworkPolicies ------------------------------------------------------------------------------

interface Peer {
  podSelector?: Obj;
  namespaceSelector?: Obj;
  ipBlock?: Obj;
}

const isEmpty = (selector: Obj | undefined) =>
  !selector || (!Object.keys(selector.matchLabels ?? {}).length && !(selector.matchExpressions ?? []).length);

/** Does a peer match a pod of this namespace? An ipBlock may (pod addresses are not excluded by every network plugin). */
function peerMatchesPod(peer: Peer, labels: Record<string, string>): boolean {
  if (peer.ipBlock) return true;
  if (peer.namespaceSelector && !isEmpty(peer.namespaceSelector)) return false;
  return peer.podSelector ? selects(peer.podSelector, labels) : true;
}

function portMatches(ports: Obj[] | undefined, port: number, protocol: string, target: Workload): boolean {
  if (!ports?.length) return true;
  return ports.some((p) => {
    if ((p.protocol ?? 'TCP') !== protocol) return false;
    if (p.port === undefined) return true;
    const n =
      typeof p.port === 'number'
        ? p.port
        : containersOf(target)
            .map((c) => portNumber(c, p.port))
            .find((x) => x !== undefined);
    return n === port || (p.endPort !== undefined && n !== undefined && port >= n && port <= p.endPort);
  });
}

const policyTypes = (p: Obj): string[] => p.spec.policyTypes ?? ['Ingress', ...(p.spec.egress ? ['Egress'] : [])];

function allowed(policies: Obj[], source: Workload, target: Workload, port: number, protocol = 'TCP'): boolean {
  const egress = policies.filter((p) => policyTypes(p).includes('Egress') && selects(p.spec.podSelector, source.labels));
  const ingress = policies.filter((p) => policyTypes(p).includes('Ingress') && selects(p.spec.podSelector, target.labels));
  const out =
    !egress.length ||
    egress.some((p) =>
      (p.spec.egress ?? []).some(
        (r: Obj) =>
          (!r.to?.length || r.to.some((peer: Peer) => peerMatchesPod(peer, target.labels))) && portMatches(r.ports, port, protocol, target),
      ),
    );
  const into =
    !ingress.length ||
    ingress.some((p) =>
      (p.spec.ingress ?? []).some(
        (r: Obj) =>
          (!r.from?.length || r.from.some((peer: Peer) => peerMatchesPod(peer, source.labels))) &&
          portMatches(r.ports, port, protocol, target),
      ),
    );
  return out && into;
}

const listenPorts = (w: Workload): number[] => containersOf(w).flatMap((c) => (c.ports ?? []).map((p: Obj) => p.containerPort as number));
const processesOf = (w: Workload) =>
  new Set(
    containersOf(w)
      .map(processOf)
      .filter((p): p is Process => !!p),
  );
const imageIs = (w: Workload, name: string) => containersOf(w).some((c) => new RegExp(`^${name}:`).test(String(c.image)));
const isMigration = (w: Workload) => w.kind === 'Job';

/** Every connection the NetworkPolicies allow between the pods of the render: "source -> target:port". */
export function allowedConnections(objects: K8sObject[]): string[] {
  const policies = byKind(objects, 'NetworkPolicy');
  const workloads = workloadsOf(objects);
  const out: string[] = [];
  for (const source of workloads)
    for (const target of workloads)
      for (const port of listenPorts(target))
        if (allowed(policies, source, target, port)) out.push(`${source.name} -> ${target.name}:${port}`);
  return out.sort();
}

/**
 * The connections the code needs: each caller's pods to the pods behind the Service its
 * `<SERVICE>_URL` names, on that service's port (the call graph of services/<service>/src/service.ts);
 * and, where PostgreSQL and Redis run in the cluster, every process that reads DATABASE_URL or
 * REDIS_URL to them (the migration Job to PostgreSQL alone).
 */
export function neededConnections(objects: K8sObject[]): string[] {
  const workloads = workloadsOf(objects);
  const out = new Set<string>();
  for (const [callee, callers] of callGraph()) {
    for (const target of urlTargets(objects, callee)) {
      for (const source of workloads.filter((w) => !isMigration(w) && callers.some((c) => processesOf(w).has(c)))) {
        out.add(`${source.name} -> ${target}:${portOf(callee)}`);
      }
    }
  }
  const data = [
    { image: 'postgres', port: 5432, variable: 'DATABASE_URL', migration: true },
    { image: 'redis', port: 6379, variable: 'REDIS_URL', migration: false },
  ];
  for (const store of data) {
    for (const target of workloads.filter((w) => imageIs(w, store.image))) {
      for (const source of workloads) {
        const reads = [...processesOf(source)].some((p) => envVarsRead(deployableOf(p)).has(store.variable));
        if (reads && (!isMigration(source) || store.migration)) out.add(`${source.name} -> ${target.name}:${store.port}`);
      }
    }
  }
  return [...out].sort();
}

/**
 * What the policies let in from other namespaces ("namespace -> workload:port") and out to addresses
 * outside ("workload -> outside:port"), for the test to compare with what each process needs: the
 * Ingress controller to the gateway, Prometheus to each metrics port, and OUTSIDE_PORTS plus
 * PostgreSQL, Redis and the trace collector out; DNS for every pod.
 */
export function outsideConnections(objects: K8sObject[]): { allowed: string[]; needed: string[] } {
  const policies = byKind(objects, 'NetworkPolicy');
  const allowedSet = new Set<string>();
  const needed = new Set<string>();
  for (const w of workloadsOf(objects)) {
    const parley = processesOf(w);
    const selecting = (type: string) => policies.filter((p) => policyTypes(p).includes(type) && selects(p.spec.podSelector, w.labels));
    for (const p of selecting('Ingress'))
      for (const r of p.spec.ingress ?? [])
        for (const peer of (r.from ?? [{}]) as Peer[]) {
          const from = peer.ipBlock
            ? 'anywhere'
            : !isEmpty(peer.namespaceSelector)
              ? Object.values(peer.namespaceSelector!.matchLabels ?? {}).join(',')
              : undefined;
          if (!from) continue;
          for (const port of listenPorts(w)) if (portMatches(r.ports, port, 'TCP', w)) allowedSet.add(`${from} -> ${w.name}:${port}`);
        }
    for (const p of selecting('Egress'))
      for (const r of p.spec.egress ?? [])
        for (const peer of (r.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]) as Peer[]) {
          if (peer.ipBlock) for (const port of r.ports ?? [{ port: 'any' }]) allowedSet.add(`${w.name} -> outside:${port.port}`);
          else if (!isEmpty(peer.namespaceSelector))
            for (const port of r.ports ?? [{ port: 'any' }])
              allowedSet.add(
                `${w.name} -> ${Object.values(peer.namespaceSelector!.matchLabels).join(',')}:${port.protocol ?? 'TCP'}/${port.port}`,
              );
        }
    needed.add(`${w.name} -> kube-system:UDP/53`).add(`${w.name} -> kube-system:TCP/53`);
    if (!parley.size) continue;
    const reads = (v: string) => [...parley].some((p) => envVarsRead(deployableOf(p)).has(v));
    if (reads('DATABASE_URL')) needed.add(`${w.name} -> outside:5432`);
    if (reads('REDIS_URL') && !isMigration(w)) needed.add(`${w.name} -> outside:6379`);
    if (isMigration(w)) continue;
    for (const p of parley) for (const port of OUTSIDE_PORTS[p]) needed.add(`${w.name} -> outside:${port}`);
    const metricsPort = Number(((w.object as Obj).spec.template.metadata?.annotations ?? {})['prometheus.io/port']);
    needed.add(`monitoring -> ${w.name}:${metricsPort}`);
    for (const port of OTLP_PORTS) needed.add(`${w.name} -> monitoring:TCP/${port}`);
    if (parley.has('gateway')) needed.add(`ingress-nginx -> ${w.name}:${portOf('gateway')}`);
  }
  return { allowed: [...allowedSet].sort(), needed: [...needed].sort() };
}

// ---- Dockerfiles ---------------------------------------------------------------------------------

/** .dockerignore's patterns as regular expressions on paths from the repository root. */
function dockerignored(): RegExp[] {
  return read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((p) => {
      const pattern = p
        .replace(/[.+^$()|[\]]/g, '\\$&')
        .split('**/')
        .map((part) => part.replace(/\*/g, '[^/]*'))
        .join('(.*/)?');
      return new RegExp(`^${pattern}(/|$)`);
    });
}

/**
 * A deployable's Dockerfile is multi-stage; its image installs nothing, copies its dependencies from a
 * stage that installed production dependencies only, copies only its own sources, the kit's and the
 * contracts' (each of which exists and is not left out of the build context), sets NODE_ENV=production,
 * runs as a user other than root, exposes its port and starts its main.ts.
 */
export function dockerfileProblems(dir: string, text: string): string[] {
  const problems: string[] = [];
  const stages = dockerfileStages(text);
  if (stages.length < 2) return [`${dir}/Dockerfile has one stage`];
  const final = stages.at(-1)!;
  const names = stages.map((s) => s.name);
  const ignored = dockerignored();
  const own = [`${dir}/`, 'services/common/src', 'proto/gen', 'proto/src'];
  for (const [i, stage] of stages.entries()) {
    for (const { op, args } of stage.instructions) {
      if (op !== 'COPY') continue;
      const from = /--from=(\S+)/.exec(args)?.[1];
      const parts = args.split(/\s+/).filter((a) => !a.startsWith('--'));
      const sources = parts.slice(0, -1);
      if (from) {
        if (!names.slice(0, i).includes(from)) problems.push(`${dir}/Dockerfile: COPY --from=${from} names no earlier stage`);
        continue;
      }
      for (const source of sources) {
        if (source === '.' || source === './') continue;
        const path = source.replace(/\/$/, '');
        if (!exists(path)) problems.push(`${dir}/Dockerfile: COPY ${source}: no such file`);
        if (ignored.some((r) => r.test(path)))
          problems.push(`${dir}/Dockerfile: COPY ${source} is left out of the build context by .dockerignore`);
        if (stage === final && !source.endsWith('package.json') && !own.some((o) => path === o.replace(/\/$/, '') || path.startsWith(o))) {
          problems.push(`${dir}/Dockerfile: the image copies ${source}, which ${dir} does not run`);
        }
      }
    }
  }
  const finalRuns = final.instructions.filter((x) => x.op === 'RUN').map((x) => x.args);
  if (finalRuns.some((r) => /\bnpm\s+(install|ci|i)\b/.test(r))) problems.push(`${dir}/Dockerfile: the image runs an npm install`);
  const depsFrom = final.instructions
    .filter((x) => x.op === 'COPY' && /--from=/.test(x.args) && /(^|\s)\/app\/?(\s|$)|node_modules/.test(x.args))
    .map((x) => /--from=(\S+)/.exec(x.args)![1]);
  if (!depsFrom.length) problems.push(`${dir}/Dockerfile: the image copies its dependencies from no stage`);
  for (const name of depsFrom) {
    const stage = stages.find((s) => s.name === name);
    if (!stage) continue;
    const installs = stage.instructions.filter((x) => x.op === 'RUN' && /\bnpm\s+(install|ci|i)\b/.test(x.args));
    if (!installs.length || installs.some((x) => !/--omit=dev/.test(x.args)))
      problems.push(`${dir}/Dockerfile: stage ${name} installs dev dependencies, and the image copies them`);
  }
  const user = final.instructions
    .filter((x) => x.op === 'USER')
    .at(-1)
    ?.args.split(':')[0];
  if (!user || user === 'root' || user === '0') problems.push(`${dir}/Dockerfile: the image runs as root`);
  if (imageEnv(text).NODE_ENV !== 'production') problems.push(`${dir}/Dockerfile: NODE_ENV is not production`);
  const cmd = final.instructions.find((x) => x.op === 'CMD')?.args ?? '';
  if (!cmd.includes(`"${dir}/src/main.ts"`)) problems.push(`${dir}/Dockerfile: CMD does not start ${dir}/src/main.ts`);
  return problems;
}

// ---- Hardening and the Ingress ---------------------------------------------------------------------

/**
 * Every Parley pod runs as a user other than root, under the runtime's seccomp profile, without a
 * service account token, and each of its containers without privilege escalation or capabilities, on
 * a read-only root filesystem, with CPU and memory requests and a memory limit; each long-running one
 * has a preStop pause before its drain.
 */
export function hardeningProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloadsOf(objects).filter((x) => processesOf(x).size)) {
    const pod = w.pod.securityContext ?? {};
    if (pod.runAsNonRoot !== true || !(pod.runAsUser > 0)) problems.push(`${w.kind} ${w.name}: may run as root`);
    if (pod.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${w.kind} ${w.name}: no RuntimeDefault seccomp profile`);
    if (w.pod.automountServiceAccountToken !== false) problems.push(`${w.kind} ${w.name}: mounts a service account token`);
    for (const c of containersOf(w)) {
      const where = `${w.kind} ${w.name}, container ${c.name}`;
      const sc = c.securityContext ?? {};
      if (sc.allowPrivilegeEscalation !== false) problems.push(`${where}: may escalate privileges`);
      if (sc.readOnlyRootFilesystem !== true) problems.push(`${where}: writes its root filesystem`);
      if (JSON.stringify(sc.capabilities?.drop) !== '["ALL"]' || sc.capabilities?.add?.length)
        problems.push(`${where}: keeps capabilities`);
      if (!c.resources?.requests?.cpu || !c.resources?.requests?.memory || !c.resources?.limits?.memory)
        problems.push(`${where}: no CPU and memory requests and memory limit`);
      if (w.kind !== 'Job' && !c.lifecycle?.preStop) problems.push(`${where}: no preStop pause before its drain`);
    }
  }
  return problems;
}

/** ingress-nginx's size syntax ("25m") in bytes. */
const nginxBytes = (size: string) =>
  Number(/^(\d+)/.exec(size)?.[1] ?? NaN) * ({ k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[size.slice(-1).toLowerCase()] ?? 1);

/**
 * The Ingress streams answers as they are written (no response buffering), waits for the longest one
 * (the gateway's CHAT_TIMEOUT_MS) and lets the largest knowledge file through (its MAX_UPLOAD_BYTES).
 */
export function ingressProblems(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const chatTimeoutSeconds = Number(gatewayVars.CHAT_TIMEOUT_MS.default) / 1000;
  const uploadBytes = Number(gatewayVars.MAX_UPLOAD_BYTES.default);
  for (const ingress of byKind(objects, 'Ingress')) {
    const a = ingress.metadata.annotations ?? {};
    const where = `Ingress ${ingress.metadata.name}`;
    if (a['nginx.ingress.kubernetes.io/proxy-buffering'] !== 'off') problems.push(`${where}: buffers answers`);
    for (const key of ['proxy-read-timeout', 'proxy-send-timeout']) {
      if (!(Number(a[`nginx.ingress.kubernetes.io/${key}`]) > chatTimeoutSeconds))
        problems.push(`${where}: ${key} is not above CHAT_TIMEOUT_MS (${chatTimeoutSeconds} s)`);
    }
    if (!(nginxBytes(a['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '1m') > uploadBytes))
      problems.push(`${where}: proxy-body-size is not above MAX_UPLOAD_BYTES`);
  }
  return problems;
}

/** Private and link-local ranges: the cluster's own addresses and a cloud's metadata endpoint. */
export const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'];

/**
 * A way out to the internet (a port of OUTSIDE_PORTS) never reaches a private or link-local address:
 * the chatbot service's crawler, in particular, must not be turned towards the cluster or a metadata
 * endpoint, whatever the code's own address checks do.
 */
export function privateRangeProblems(objects: K8sObject[]): string[] {
  const internetPorts = new Set(Object.values(OUTSIDE_PORTS).flat());
  const problems: string[] = [];
  for (const p of byKind(objects, 'NetworkPolicy')) {
    for (const r of p.spec.egress ?? []) {
      const ports: (number | string)[] = (r.ports ?? [{ port: 'any' }]).map((x: Obj) => x.port);
      if (!ports.some((x) => x === 'any' || internetPorts.has(x as number))) continue;
      for (const peer of (r.to ?? [{ ipBlock: { cidr: '0.0.0.0/0' } }]) as Peer[]) {
        const missing = peer.ipBlock ? PRIVATE_RANGES.filter((range) => !(peer.ipBlock!.except ?? []).includes(range)) : [];
        if (missing.length) problems.push(`NetworkPolicy ${p.metadata.name}: ${ports.join(', ')} out to ${missing.join(', ')}`);
      }
    }
  }
  return problems;
}
