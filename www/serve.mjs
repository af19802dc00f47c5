// Small static server for the preview panel. Serves only two folders, on 127.0.0.1:
//   /www/...      -> this folder (the page)
//   /pkg/web/...  -> the wasm-bindgen web build (default <repo>/pkg/web, or $HOP_POLICY_WEB_PKG)
// "/" redirects to /www/. Nothing else is reachable, so the page can only load
// itself and the web build.
//
//   node www/serve.mjs [--port N]      (PORT env also works; 0 or unset = a free port)
//
// Also importable: `const {server, url} = await startServer({port: 0})`.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '..');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ts': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Maps a URL path to a file inside one of the served folders, or null. */
function resolveFile(urlPath, mounts) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  for (const [prefix, dir] of mounts) {
    if (decoded === prefix.slice(0, -1) || decoded.startsWith(prefix)) {
      const rel = decoded.slice(prefix.length) || 'index.html';
      const file = path.resolve(dir, rel);
      // Refuse anything that escapes the mounted folder (.., symlink names, etc.).
      if (file !== dir && !file.startsWith(dir + path.sep)) return null;
      return file;
    }
  }
  return null;
}

export function startServer({ port = 0, host = '127.0.0.1', wwwDir = here, pkgDir } = {}) {
  const webPkg = path.resolve(pkgDir || process.env.HOP_POLICY_WEB_PKG || path.join(repoRoot, 'pkg', 'web'));
  const mounts = [
    ['/www/', path.resolve(wwwDir)],
    ['/pkg/web/', webPkg],
  ];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url || '/', 'http://localhost');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') {
      res.writeHead(302, { Location: '/www/' }).end();
      return;
    }
    if (url.pathname === '/www') {
      res.writeHead(301, { Location: '/www/' }).end();
      return;
    }
    const file = resolveFile(url.pathname, mounts);
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    fs.stat(file, (err, st) => {
      if (err || !st.isFile()) {
        res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
        return;
      }
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': st.size,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      fs.createReadStream(file).pipe(res);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const addr = server.address();
      resolve({ server, port: addr.port, url: `http://${host}:${addr.port}/www/`, webPkg });
    });
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] || '').href) {
  const i = process.argv.indexOf('--port');
  const port = Number(i > 0 ? process.argv[i + 1] : process.env.PORT || 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve: bad port ${process.argv[i + 1] ?? process.env.PORT}`);
    process.exit(2);
  }
  startServer({ port }).then(
    ({ url, webPkg }) => {
      if (!fs.existsSync(path.join(webPkg, 'hop_policy.js'))) {
        console.error(`serve: warning: ${webPkg}/hop_policy.js is missing; run scripts/build`);
      }
      console.log(`hop-policy preview: ${url}`);
      console.log('(Ctrl-C to stop)');
    },
    (err) => {
      console.error(`serve: ${err.message}`);
      process.exit(1);
    },
  );
}
