import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ApiError } from '../../contract/errors.js';
import { ROOT } from '../../paths.js';
import { type Handler } from '../context.js';

/** A file served as it is, read once at start: its bytes and content type. */
interface Asset {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

function read(dir: string, names: string[]): Map<string, Asset> {
  return new Map(names.map((name) => [name, { body: readFileSync(path.join(dir, name)), type: TYPES[path.extname(name)]! }]));
}

/**
 * Pages for people, served without a key: only 'self' may supply scripts, styles, images and
 * connections, so nothing is fetched from elsewhere and no inline script runs. Swagger UI sets
 * style attributes, hence 'unsafe-inline' for styles on /docs; it shows images as data: URLs.
 */
const CSP = {
  docs: "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
  console: "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};

function pageHandler(files: Map<string, Asset>, csp: string, index: string): Handler {
  return (_ctx, ex, params) => {
    const name = params.file ?? index;
    const asset = files.get(name);
    if (!asset) throw new ApiError('NOT_FOUND', `No file ${name.slice(0, 100)}.`);
    ex.send(200, asset.body, { 'Content-Security-Policy': csp, 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }, asset.type);
  };
}

/** /docs: the OpenAPI document in Swagger UI, its assets from the swagger-ui-dist package. */
export function docsPage(): Handler {
  const swagger = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const files = new Map([
    ...read(swagger, ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']),
    ...read(path.join(ROOT, 'console'), ['docs.html', 'docs.js']),
  ]);
  return pageHandler(files, CSP.docs, 'docs.html');
}

/** /console: upload, calculate and backtest from a browser; one page, its own script and style. */
export function consolePage(): Handler {
  return pageHandler(read(path.join(ROOT, 'console'), ['index.html', 'console.js', 'console.css', 'charts.js', 'live.js']), CSP.console, 'index.html');
}
