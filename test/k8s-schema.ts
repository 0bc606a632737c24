// Validation of rendered manifests against the Kubernetes schemas that kubernetes-models bundles, offline:
// its validators check types, enums and required fields; they let unknown fields through, so
// `unknownFields` walks each object along the models' type declarations and names every field the API
// does not have (a misspelt `readinesProbe` would otherwise be dropped by the API server in silence).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { K8sObject } from './kustomize.ts';

const require = createRequire(import.meta.url);
const modelsRoot = dirname(require.resolve('kubernetes-models/package.json'));

/** The module of a kind's model: `apps/v1` Deployment → kubernetes-models/apps/v1/Deployment. */
function modelPath(o: Pick<K8sObject, 'apiVersion' | 'kind'>): string {
  return `${o.apiVersion.includes('/') ? o.apiVersion : `v1`}/${o.kind}`;
}

/** The schema's complaint about an object, or undefined when it is valid; an unknown kind is a complaint. */
export async function schemaError(o: K8sObject): Promise<string | undefined> {
  const file = join(modelsRoot, `${modelPath(o)}.js`);
  if (!existsSync(file)) return `${o.apiVersion} ${o.kind} is not a Kubernetes kind`;
  const module = (await import(pathToFileURL(file).href)) as Record<string, new (data: unknown) => { validate(): void }>;
  try {
    new module[o.kind](o).validate();
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

interface Declaration {
  /** Field name → its type's text; undefined for a leaf type (a string, a number, an alias). */
  fields?: Map<string, string>;
  file: string;
}

const declarations = new Map<string, Declaration>();

/** The interface a type declaration file declares, with its fields' types resolved against its imports. */
function declarationIn(file: string): Declaration {
  const cached = declarations.get(file);
  if (cached) return cached;
  const text = readFileSync(file, 'utf8');
  const body = /export interface I\w+(?: extends [\w, ]+)? \{\n([\s\S]*?)\n\}/.exec(text);
  const declaration: Declaration = { file };
  if (body) {
    declaration.fields = new Map();
    // Field by field at the interface's top level; a type written over several lines (a map, an
    // inline object) is joined onto one.
    const lines = body[1].replace(/\/\*\*[\s\S]*?\*\//g, '').split('\n');
    let pending = '';
    let depth = 0;
    for (const line of lines) {
      pending += ` ${line.trim()}`;
      depth += (line.match(/[{<]/g) ?? []).length - (line.match(/[}>]/g) ?? []).length;
      if (depth > 0 || !pending.trim().endsWith(';')) continue;
      const m = /^\s*"([^"]+)"\??: (.+);$/.exec(pending);
      if (m) declaration.fields.set(m[1], m[2].replace(/\{ \[key: string\]: (.+?); \}/, '{ [key: string]: $1 }'));
      pending = '';
    }
  }
  declarations.set(file, declaration);
  return declaration;
}

/** The declaration file an imported type name comes from, as seen from `file`. */
function importedFile(file: string, typeName: string): string | undefined {
  const text = readFileSync(file, 'utf8');
  const m = new RegExp(`import \\{ ${typeName} \\} from "([^"]+)"`).exec(text);
  if (!m) return undefined;
  const spec = m[1].replace(/\.js$/, '');
  return `${spec.startsWith('.') ? join(dirname(file), spec) : packageFile(file, spec)}.d.ts`;
}

/** A file of another package (`@scope/name/rest`), found the way Node finds packages: up the node_modules folders. */
function packageFile(from: string, spec: string): string {
  const [scope, name, ...rest] = spec.split('/');
  for (let dir = dirname(from); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', scope, name);
    if (existsSync(candidate)) return join(candidate, ...rest);
  }
  throw new Error(`${spec} (imported by ${from}) is not installed`);
}

/** Every field path of `value` that its declared type (`typeText`, written in `file`) does not have. */
function unknownIn(value: unknown, typeText: string, file: string, path: string): string[] {
  const array = /^Array<(.+)>$/.exec(typeText);
  if (array) return Array.isArray(value) ? value.flatMap((v, i) => unknownIn(v, array[1], file, `${path}[${i}]`)) : [];
  const map = /^\{\s*\[key: string\]: (.+?);?\s*\}$/.exec(typeText);
  if (map) {
    return value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => unknownIn(v, map[1], file, `${path}.${k}`)) : [];
  }
  if (!/^I\w+$/.test(typeText) || !value || typeof value !== 'object') return [];
  const target = importedFile(file, typeText);
  if (!target) return [];
  return unknownFieldsOf(value as Record<string, unknown>, declarationIn(target), path);
}

function unknownFieldsOf(value: Record<string, unknown>, declaration: Declaration, path: string): string[] {
  if (!declaration.fields) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const type = declaration.fields!.get(key);
    if (type === undefined) return [`${path}.${key}`];
    return unknownIn(v, type, declaration.file, `${path}.${key}`);
  });
}

/** The fields of an object that its kind's schema does not define, as paths (`spec.template.spec.containers[0].readinesProbe`). */
export function unknownFields(o: K8sObject): string[] {
  const file = join(modelsRoot, `${modelPath(o)}.d.ts`);
  if (!existsSync(file)) return [];
  return unknownFieldsOf(o, declarationIn(file), '').map((p) => p.slice(1));
}
