/**
 * The service folders form a graph without circles (docs/ARCHITECTURE.md, layering inside services):
 * a folder's imports of other folders, followed transitively, never lead back to it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const SERVICES = path.resolve(__dirname, '..', '..', '..', 'src', 'services');

/** Folder -> the service folders its files import (a file at the root counts as a folder of its own name). */
function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  const folderOf = (file: string) => path.relative(SERVICES, file).split(path.sep)[0].replace(/\.ts$/, '');
  const walk = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? walk(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : []));
  for (const file of walk(SERVICES)) {
    const from = folderOf(file);
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/^\s*import\s[^;]*?from\s+'(\.[^']+)'/gms)) {
      const target = path.resolve(path.dirname(file), m[1]);
      if (!target.startsWith(SERVICES + path.sep)) continue;
      const to = folderOf(`${target}.ts`);
      if (to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

/** One circle of folders, or null. */
function findCircle(edges: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (f: string): string[] | null => {
    if (state.get(f) === 'done') return null;
    if (state.get(f) === 'open') return [...trail.slice(trail.indexOf(f)), f];
    state.set(f, 'open');
    trail.push(f);
    for (const g of edges.get(f) ?? []) {
      const found = visit(g);
      if (found) return found;
    }
    trail.pop();
    state.set(f, 'done');
    return null;
  };
  for (const f of edges.keys()) {
    const found = visit(f);
    if (found) return found;
  }
  return null;
}

describe('service folders', () => {
  it('import each other without a circle', () => {
    const edges = folderImports();
    expect(edges.size).to.be.greaterThan(10);
    expect(findCircle(edges), 'a circle of service folders').to.equal(null);
  });

  it('finds a circle when one exists', () => {
    const edges = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])]]);
    expect(findCircle(edges)).to.deep.equal(['a', 'b', 'c', 'a']);
  });
});
