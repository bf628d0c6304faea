// Adds lock entries for platform-specific optional packages that the npm
// mirror used to write package-lock.json does not carry (e.g. rollup's and
// esbuild's builds for Android or Windows). Without them `npm ci` refuses the
// lock. Each entry names its os/cpu/libc so npm skips it on other platforms,
// exactly as it would with an entry written by the public registry.
// Usage: node tools/complete-lock.mjs   (in viewer/web, after `npm install --package-lock-only`)
import { readFileSync, writeFileSync } from 'node:fs';

const OSES = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openbsd', 'netbsd', 'sunos',
  'aix', 'openharmony'];
const CPUS = ['arm64', 'arm', 'x64', 'ia32', 'ppc64', 'riscv64', 's390x', 'loong64',
  'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OSES.includes(p));
  const cpu = parts.find((p) => CPUS.includes(p)) ?? (parts.includes('universal') ? 'arm64' : undefined);
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (parts.includes('gnu') || parts.includes('gnueabihf')) entry.libc = ['glibc'];
  if (parts.includes('musl') || parts.includes('musleabihf')) entry.libc = ['musl'];
  return entry;
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const [path, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || (path && lock.packages[`${path}/${key}`])) continue;
    const platform = platformOf(dep);
    if (!platform.os && !platform.cpu) throw new Error(`cannot tell the platform of ${dep}`);
    lock.packages[key] = { version, ...platform, optional: true };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) =>
  (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: added ${added} platform entries`);
