import { type Handler } from './context.js';

interface Route {
  pattern: RegExp;
  name: string;
  handlers: Partial<Record<string, Handler>>;
}

export type RouteMatch =
  { kind: 'found'; name: string; handler: Handler; params: Record<string, string> } | { kind: 'method'; name: string; allow: string[] } | { kind: 'none' };

/** Exact paths with `:name` segments; 404 for unknown paths, 405 (with Allow) for wrong methods. */
export class Router {
  private readonly routes: Route[] = [];

  add(path: string, handlers: Partial<Record<string, Handler>>): this {
    const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = new RegExp('^' + escaped.replace(/:(\w+)/g, '(?<$1>[^/]+)') + '$');
    this.routes.push({ pattern, name: path, handlers });
    return this;
  }

  match(method: string, path: string): RouteMatch {
    for (const r of this.routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      const handler = Object.hasOwn(r.handlers, method) ? r.handlers[method] : undefined;
      if (!handler) return { kind: 'method', name: r.name, allow: Object.keys(r.handlers).filter((m) => r.handlers[m]) };
      return { kind: 'found', name: r.name, handler, params: { ...m.groups } };
    }
    return { kind: 'none' };
  }
}
