// Shared pieces of the web UI's browser tests: playwright-core from build/npm, Debian's chromium,
// a static server for web/ on 127.0.0.1, screenshots, checks that collect failures, and timeouts.
//
//   const t = new Checks('sanitizer');
//   t.equal(actual, expected, 'what is checked');
//   process.exit(t.finish());
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {createRequire} from 'node:module';
import {fileURLToPath} from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
export const WEB_DIR = path.join(ROOT, 'web');
export const CHROMIUM = process.env.KEEL_CHROMIUM || '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(process.env.KEEL_WEB_ARTIFACTS || path.join(ROOT, 'build', 'web-artifacts'));

export function loadPlaywright() {
  const modules = process.env.KEEL_NPM_MODULES || path.join(ROOT, 'build', 'npm', 'node_modules');
  const require = createRequire(path.join(modules, 'noop.js'));
  return require('playwright-core');
}

export async function launchBrowser() {
  const {chromium} = loadPlaywright();
  return chromium.launch({executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true, timeout: 30000});
}

// Collects failures instead of stopping at the first, and prints a summary.
export class Checks {
  constructor(name) {
    this.name = name;
    this.failures = [];
    this.count = 0;
  }

  ok(condition, what) {
    this.count += 1;
    if (!condition) {
      this.failures.push(what);
      console.error(`FAIL ${what}`);
    }
    return Boolean(condition);
  }

  equal(actual, expected, what) {
    const same = JSON.stringify(actual) === JSON.stringify(expected);
    return this.ok(same, same ? what : `${what}\n    expected: ${JSON.stringify(expected)}\n    actual:   ${JSON.stringify(actual)}`);
  }

  finish() {
    if (this.failures.length) {
      console.error(`${this.name}: ${this.failures.length} of ${this.count} checks failed`);
      return 1;
    }
    console.log(`${this.name}: all ${this.count} checks passed`);
    return 0;
  }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

// Serves web/ as keel serve does (GET / -> index.html, GET /ui/FILE -> web/FILE) plus `pages`
// (path -> HTML text) on 127.0.0.1; `handler(req, res)` may answer anything else and returns
// true when it did.
export async function startStaticServer({pages = {}, handler = null, headers = {}} = {}) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (handler && handler(req, res, url)) return;
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    if (pages[url.pathname] !== undefined) {
      res.writeHead(200, {'Content-Type': TYPES['.html'], ...headers});
      res.end(pages[url.pathname]);
      return;
    }
    let file = null;
    if (url.pathname === '/') file = path.join(WEB_DIR, 'index.html');
    if (url.pathname.startsWith('/ui/')) {
      const rel = decodeURIComponent(url.pathname.slice(4));
      const resolved = path.resolve(WEB_DIR, rel);
      if (resolved.startsWith(WEB_DIR + path.sep)) file = resolved;
    }
    if (!file || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, {'Content-Type': 'text/plain'}).end('not found');
      return;
    }
    res.writeHead(200, {'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', ...headers});
    res.end(fs.readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

// Rejects after `ms` with a message naming what did not finish.
export function withTimeout(promise, ms, what) {
  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

export async function screenshot(page, name) {
  fs.mkdirSync(ARTIFACTS, {recursive: true});
  const file = path.join(ARTIFACTS, `${name}.png`);
  try {
    await page.screenshot({path: file, fullPage: true, timeout: 10000});
  } catch (error) {
    console.error(`screenshot ${name} failed: ${error.message}`);
  }
  return file;
}

// Ends the process after `ms` whatever happens (a last resort against a hang), running `cleanup`.
export function watchdog(ms, cleanup) {
  const timer = setTimeout(async () => {
    console.error(`FAIL the test ran longer than ${ms / 1000} s`);
    try {
      await withTimeout(Promise.resolve(cleanup()), 5000, 'cleanup');
    } finally {
      process.exit(1);
    }
  }, ms);
  timer.unref();
  return timer;
}

// Collects what must not happen in a page: uncaught errors, console errors, dialogs, and
// Content-Security-Policy violations by the live page. Chromium also reports a script-src-attr
// violation when the sanitizer's inert parse (DOMParser) meets an on* attribute, although such a
// document can run nothing; those reports target the document itself, not an element, and are
// only counted (`inert`), while the tests check the live DOM for on* attributes directly.
export async function watchPage(page) {
  const seen = {problems: [], inert: 0};
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__cspViolations.push({directive: e.violatedDirective, target: String(e.target && e.target.nodeName),
        source: e.sourceFile || '', sample: e.sample || ''});
    });
  });
  page.on('pageerror', (error) => seen.problems.push(`page error: ${error}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (text.startsWith('Executing inline event handler violates')) return;  // judged from the events
    if (/status of (401|404|409)/.test(text) && message.location().url.includes('/api/')) return;  // answered errors the UI shows
    seen.problems.push(`console: ${text}`);
  });
  page.on('dialog', (dialog) => {
    seen.problems.push(`dialog: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  // Reads the page's violations (call before leaving the page) into `problems` / `inert`.
  seen.collect = async () => {
    const list = await page.evaluate(() => window.__cspViolations.splice(0)).catch(() => []);
    for (const v of list) {
      if (v.directive === 'script-src-attr' && v.target === '#document') seen.inert += 1;
      else seen.problems.push(`CSP violation: ${JSON.stringify(v)}`);
    }
  };
  return seen;
}

// on* attributes anywhere in the live page (the UI itself never uses inline handlers).
export function inlineHandlers(page) {
  return page.evaluate(() => {
    const found = [];
    for (const node of document.querySelectorAll('*')) {
      for (const attr of node.attributes) {
        if (/^on/i.test(attr.name)) found.push(`${node.tagName} ${attr.name}`);
      }
    }
    return found;
  });
}
