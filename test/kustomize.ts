// `kustomize build` for the features deploy/k8s uses, so that the manifests' test runs offline with
// no binary: `resources` (files and kustomization directories), `namespace`, `images` (newName,
// newTag) and `patches` (strategic-merge files, matched by kind and name). A kustomization with any
// other field is refused, so a feature added to the manifests is never silently ignored. Where kubectl
// is installed, test/k8s.test.ts checks that `kubectl kustomize` renders the same objects.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
};

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { path: string }[];
}

const SUPPORTED = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches']);
/** Kinds that live outside any namespace: the namespace transformer leaves them alone. */
const CLUSTER_KINDS = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'CustomResourceDefinition',
]);
/** Lists a strategic merge patch merges item by item (by this key) instead of replacing them whole. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
};

export const objectId = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

export function readYamlObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).flatMap((doc) => {
    if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
    const value = doc.toJS() as K8sObject | null;
    return value ? [value] : [];
  });
}

/** The objects `kustomize build dir` prints, in the order their resources list them. */
export function kustomizeBuild(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`${dir} has no kustomization.yaml`);
  const k = readYamlObjects(file)[0] as unknown as Kustomization;
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length) throw new Error(`${file}: ${unsupported.join(', ')} is not supported by test/kustomize.ts`);

  let objects = (k.resources ?? []).flatMap((resource) => {
    const path = join(dir, resource);
    return statSync(path).isDirectory() ? kustomizeBuild(path) : readYamlObjects(path);
  });
  const ids = objects.map(objectId);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate) throw new Error(`${dir}: ${duplicate} is defined twice`);

  for (const { path } of k.patches ?? []) {
    for (const patch of readYamlObjects(join(dir, path))) {
      const target = objects.find((o) => o.kind === patch.kind && o.metadata.name === patch.metadata.name);
      if (!target) throw new Error(`${join(dir, path)}: no ${patch.kind} named ${patch.metadata.name} to patch`);
      objects = objects.map((o) => (o === target ? (strategicMerge(o, patch) as K8sObject) : o));
    }
  }
  for (const image of k.images ?? []) objects = objects.map((o) => setImage(o, image));
  if (k.namespace) {
    objects = objects.map((o) => (CLUSTER_KINDS.has(o.kind) ? o : { ...o, metadata: { ...o.metadata, namespace: k.namespace } }));
  }
  return objects;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A strategic merge patch: maps merge key by key, null deletes, the MERGE_KEYS lists merge by key, other lists are replaced. */
export function strategicMerge(base: unknown, patch: unknown, field = ''): unknown {
  if (isMap(base) && isMap(patch)) {
    const out: Record<string, unknown> = { ...base };
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith('$')) throw new Error(`the patch directive ${key} is not supported by test/kustomize.ts`);
      if (value === null) delete out[key];
      else out[key] = key in base ? strategicMerge(base[key], value, key) : value;
    }
    return out;
  }
  const mergeKey = MERGE_KEYS[field];
  if (mergeKey && Array.isArray(base) && Array.isArray(patch)) {
    const out = [...base] as Record<string, unknown>[];
    for (const item of patch as Record<string, unknown>[]) {
      const at = out.findIndex((b) => b[mergeKey] === item[mergeKey]);
      if (at === -1) out.push(item);
      else out[at] = strategicMerge(out[at], item) as Record<string, unknown>;
    }
    return out;
  }
  return patch;
}

/** The images transformer: every container image named `name` (with or without a tag) gets the new name and tag. */
function setImage(o: K8sObject, image: NonNullable<Kustomization['images']>[number]): K8sObject {
  const visit = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(visit);
    if (!isMap(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      if ((key === 'containers' || key === 'initContainers') && Array.isArray(value)) {
        out[key] = value.map((c: Record<string, unknown>) => {
          const m = /^([^:@]+(?::\d+\/[^:@]+)?)(?::([^@]+))?$/.exec(String(c.image));
          if (!m || m[1] !== image.name) return visit(c);
          return { ...(visit(c) as object), image: `${image.newName ?? m[1]}${(image.newTag ?? m[2]) ? `:${image.newTag ?? m[2]}` : ''}` };
        });
      } else out[key] = visit(value);
    }
    return out;
  };
  return visit(o) as K8sObject;
}
