#!/usr/bin/env node
// Adds lock-file entries for optional platform packages (other OSes and CPUs) that the registry
// this project is installed from does not serve, so `npm ci` accepts the lock everywhere. npm
// skips an optional package that does not fit the platform, so nothing extra is installed here;
// on a machine that needs one, npm fetches the pinned version from its registry.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const platform = (name) => {
  const os = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'sunos', 'aix', 'netbsd'].find((o) =>
    name.includes(o),
  );
  const cpu = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'].find((c) =>
    new RegExp(`[-_/]${c}(?:[-_]|$)`).test(name),
  );
  return { ...(os ? { os: [os] } : {}), ...(cpu ? { cpu: [cpu] } : {}) };
};
let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(meta.optionalDependencies ?? {})) {
    const nested = `${path ? `${path}/` : ''}node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`] || !/^\d+\.\d+\.\d+/.test(spec)) {
      continue;
    }
    packages[`node_modules/${name}`] = { version: spec, optional: true, ...platform(name) };
    added += 1;
  }
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lock: added ${added} optional platform entries\n`);
