#!/usr/bin/env node
/**
 * Completes package-lock.json with entries for platform-specific optional dependencies that npm could not record.
 *
 * Why: the registry mirror this project is built against serves only the Linux builds of native packages (e.g.
 * @swc/core-darwin-arm64 answers 404), so `npm install` leaves their lock entries out, and `npm ci` then refuses the
 * lock as "out of sync". Each missing entry is added as an optional package restricted to the platform its name
 * names, so `npm ci` accepts the lock and skips it on every other platform. Run after changing dependencies:
 * `npm install && node scripts/complete-lockfile.js`.
 */
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const OS = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'wasi'];
const CPU = ['x64', 'arm64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'wasm32', 'mips64el'];

function platformOf(name) {
  const tokens = name.split('/').pop().split(/[-_.]/);
  const os = OS.find((o) => tokens.includes(o)) ?? (tokens.includes('windows') ? 'win32' : tokens.includes('macos') ? 'darwin' : undefined);
  const cpu = CPU.find((c) => tokens.includes(c)) ?? (tokens.includes('x86') ? 'ia32' : tokens.includes('aarch64') ? 'arm64' : undefined);
  const libc =
    tokens.includes('musl') || tokens.includes('musleabihf') ? 'musl' : tokens.includes('gnu') || tokens.includes('gnueabihf') ? 'glibc' : undefined;
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}), ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ''}node_modules/${dep}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${dep}`]) continue;
    const version = String(range).replace(/^[\^~=]/, '');
    lock.packages[`node_modules/${dep}`] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platformOf(dep) };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform-specific optional entries`);
