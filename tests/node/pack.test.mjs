// The package as a new user gets it: `npm pack` of pkg/, installed offline from
// the tarball into an empty project; Node ESM import, CommonJS require, the CLI
// bin, and a Vite production build of a small page run in headless Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync, mkdirSync, readdirSync, existsSync, createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { PKG, NODE_MODULES, SEED_FILE, vector, compareToExpected, crateVersion, withoutFederatedRetries, tempDir } from './helpers.mjs';

const SEED = vector('seed-federated-middle-fifo-3-exits');
let app;

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

before(() => {
  const work = tempDir('hop-policy-pack-');
  const packed = JSON.parse(run('npm', ['pack', PKG, '--json', '--pack-destination', work], { cwd: work }));
  const tarball = path.join(work, packed[0].filename);
  const files = packed[0].files.map((f) => f.path);
  for (const f of ['package.json', 'README.md', 'bin/hop-policy.mjs', 'node/hop_policy.js', 'node/index.mjs', 'web/hop_policy.js', 'web/hop_policy_bg.wasm', 'web/hop_policy.d.ts', 'bundler/hop_policy.js']) {
    assert.ok(files.includes(f), `tarball lacks ${f}`);
  }
  // One .wasm for the three builds.
  assert.deepEqual(files.filter((f) => f.endsWith('.wasm')), ['web/hop_policy_bg.wasm']);
  app = path.join(work, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, version: '1.0.0' }));
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app });
});

test('installed package.json carries the crate version', () => {
  const m = JSON.parse(readFileSync(path.join(app, 'node_modules', 'hop-policy', 'package.json'), 'utf8'));
  assert.equal(m.version, crateVersion());
});

test('Node ESM import', () => {
  writeFileSync(path.join(app, 'esm.mjs'), `
    import { planTunnel, checkDocument, version } from 'hop-policy';
    import hp from 'hop-policy';
    import { readFileSync } from 'node:fs';
    const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
    const plan = planTunnel(input);
    console.log(JSON.stringify({ plan, report: checkDocument(plan), version: version(), same: hp.planTunnel === planTunnel }));
  `);
  const out = JSON.parse(run(process.execPath, ['esm.mjs', SEED_FILE], { cwd: app }));
  assert.equal(compareToExpected(out.plan, SEED.expected), null);
  assert.ok(Array.isArray(out.report.findings));
  assert.equal(out.version, crateVersion());
  assert.equal(out.same, true);
});

test('CommonJS require', () => {
  writeFileSync(path.join(app, 'cjs.cjs'), `
    const { planTunnelJson, checkDocumentJson } = require('hop-policy');
    const fs = require('fs');
    const plan = JSON.parse(planTunnelJson(fs.readFileSync(process.argv[2], 'utf8')));
    const report = JSON.parse(checkDocumentJson(process.argv[3], JSON.stringify({ kind: 'plan' })));
    console.log(JSON.stringify({ plan, report }));
  `);
  const broken = JSON.stringify(withoutFederatedRetries(SEED.expected));
  const out = JSON.parse(run(process.execPath, ['cjs.cjs', SEED_FILE, broken], { cwd: app }));
  assert.equal(compareToExpected(out.plan, SEED.expected), null);
  assert.ok(out.report.findings.some((f) => f.code === 'FO001'), JSON.stringify(out.report));
});

test('the hop-policy bin is installed', () => {
  const bin = path.join(app, 'node_modules', '.bin', 'hop-policy');
  assert.equal(run(bin, ['--version']).trim(), crateVersion());
  const plan = JSON.parse(run(bin, ['plan', SEED_FILE]));
  assert.equal(compareToExpected(plan, SEED.expected), null);
});

function serve(root) {
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const file = path.join(root, url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname));
    if (!file.startsWith(root) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

test('Vite production build of a page calling planTunnel and checkDocument, run in headless Chromium', async () => {
  const site = path.join(app, 'site');
  mkdirSync(site);
  writeFileSync(path.join(site, 'index.html'), '<!doctype html><html><body><pre id="out">loading</pre><script type="module" src="/main.js"></script></body></html>\n');
  writeFileSync(path.join(site, 'main.js'), `
    import init, { planTunnel, checkDocument, version } from 'hop-policy/web';
    import input from './seed.json';
    async function main() {
      await init();
      const plan = planTunnel(input);
      const broken = structuredClone(plan);
      for (const fed of broken.federation)
        for (const cmd of fed.commands)
          if (cmd.command === 'AddService') for (const s of cmd.data) delete s.handler.retries;
      const result = { plan, clean: checkDocument(plan), broken: checkDocument(broken, { kind: 'plan' }), version: version() };
      document.getElementById('out').textContent = 'done';
      window.__result = result;
    }
    main().catch((e) => { window.__result = { failed: String(e && e.stack || e) }; });
  `);
  writeFileSync(path.join(site, 'seed.json'), readFileSync(SEED_FILE));
  const vite = path.join(NODE_MODULES, 'vite', 'bin', 'vite.js');
  run(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: site });
  const dist = path.join(site, 'dist');
  const assets = readdirSync(path.join(dist, 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `no .wasm emitted: ${assets}`);
  // The bundle cost a page pays for hop-policy (README "Embedding in a panel frontend").
  const { gzipSync } = await import('node:zlib');
  for (const f of assets.filter((a) => a.endsWith('.wasm') || a.endsWith('.js'))) {
    const bytes = readFileSync(path.join(dist, 'assets', f));
    console.log(`# vite build: ${f} ${bytes.length} B raw, ${gzipSync(bytes, { level: 9 }).length} B gzip`);
  }

  // The bare import in a browser build resolves to the web build (the
  // `browser` condition; webpack keeps the bundler build through `webpack`).
  const bare = path.join(app, 'bare');
  mkdirSync(bare);
  writeFileSync(path.join(bare, 'index.html'), '<!doctype html><html><body><script type="module" src="/main.js"></script></body></html>\n');
  writeFileSync(path.join(bare, 'main.js'), "import init, { planTunnel } from 'hop-policy';\nawait init();\nwindow.__bare = planTunnel({ tunnel: { name: 't', inNodeId: [] }, nodes: [] });\n");
  run(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: bare });
  assert.ok(readdirSync(path.join(bare, 'dist', 'assets')).some((f) => f.endsWith('.wasm')), 'the bare import emits the .wasm');

  const server = await serve(dist);
  const { chromium } = await import(path.join(NODE_MODULES, 'playwright-core', 'index.mjs'));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
    const result = await page.evaluate(() => window.__result);
    assert.equal(result.failed, undefined, result.failed);
    assert.deepEqual(errors, []);
    assert.equal(compareToExpected(result.plan, SEED.expected), null);
    assert.ok(Array.isArray(result.clean.findings));
    assert.ok(!result.clean.findings.some((f) => f.code === 'FO001'));
    assert.ok(result.broken.findings.some((f) => f.code === 'FO001' && f.nodeId === 2), JSON.stringify(result.broken.findings));
    assert.equal(result.version, crateVersion());
  } finally {
    await browser.close();
    server.close();
  }
});

test('Vite dev server: the same page with no Vite configuration for hop-policy, in headless Chromium', async () => {
  const site = path.join(app, 'site');
  assert.ok(existsSync(path.join(site, 'main.js')), 'the production-build test wrote the page');
  const port = await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const vite = path.join(NODE_MODULES, 'vite', 'bin', 'vite.js');
  const { spawn } = await import('node:child_process');
  const dev = spawn(process.execPath, [vite, '--port', String(port), '--strictPort', '--host', '127.0.0.1', '--logLevel', 'warn'], { cwd: site, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  dev.stdout.on('data', (d) => (log += d));
  dev.stderr.on('data', (d) => (log += d));
  const { chromium } = await import(path.join(NODE_MODULES, 'playwright-core', 'index.mjs'));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    // Wait for the dev server to answer.
    const deadline = Date.now() + 30000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok, () => false);
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`vite dev did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // The page's own requests must all succeed (the browser's favicon probe aside).
    page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${r.url()}`));
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 60000 });
    const result = await page.evaluate(() => window.__result);
    assert.equal(result.failed, undefined, `${result.failed}\n${log}`);
    assert.deepEqual(errors, []);
    assert.equal(compareToExpected(result.plan, SEED.expected), null);
    assert.ok(result.broken.findings.some((f) => f.code === 'FO001' && f.nodeId === 2));
  } finally {
    await browser.close();
    dev.kill();
  }
});
