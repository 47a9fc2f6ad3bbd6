import { execFileSync } from 'node:child_process';

/*
 * Imports Node's built-ins only: the global setup loads this file outside Jest (test/setup/global-setup.ts).
 */

/**
 * Debian's packages the suite runs, each with a command that runs only when it is installed. `.ci/run` installs them
 * too; a test never depends on something installed by hand. `recommends: false`: installed without recommends (the
 * node exporter Prometheus suggests, the PostgreSQL server Patroni recommends, are not needed).
 */
export const DEBIAN_PACKAGES = {
  radicale: { probe: ['/usr/bin/python3', '-c', 'import radicale'], recommends: true },
  haproxy: { probe: ['/usr/sbin/haproxy', '-v'], recommends: true },
  prometheus: { probe: ['/usr/bin/promtool', '--version'], recommends: false },
  'postgresql-15': { probe: ['/usr/lib/postgresql/15/bin/postgres', '--version'], recommends: true },
  patroni: { probe: ['/usr/bin/patroni', '--version'], recommends: false },
  'etcd-server': { probe: ['/usr/bin/etcd', '--version'], recommends: false },
} as const satisfies Record<string, { probe: readonly [string, ...string[]]; recommends: boolean }>;

export type DebianPackage = keyof typeof DEBIAN_PACKAGES;

function installed(name: DebianPackage): boolean {
  const [command, ...args] = DEBIAN_PACKAGES[name].probe;
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs those of `names` that are missing, with one `apt-get update`: the machines run as root and reach Debian's
 * mirror. The global setup asks for all of them before any worker starts (an install inside a test file's hook outran
 * its 30 s on a fresh machine); the supports ask again for their own, which costs a probe when they are there.
 */
export function ensureDebianPackages(names: readonly DebianPackage[]): void {
  const missing = names.filter((name) => !installed(name));
  if (missing.length === 0) return;
  // Another process may be installing at the same moment: wait for dpkg's lock rather than fail on it.
  const apt = 'DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300';
  const install = (group: readonly string[], options: string): string =>
    group.length === 0 ? '' : ` && ${apt} install -y ${options} ${group.join(' ')}`;
  execFileSync(
    'sh',
    [
      '-c',
      `(${apt} update || true)` +
        install(
          missing.filter((name) => DEBIAN_PACKAGES[name].recommends),
          '',
        ) +
        install(
          missing.filter((name) => !DEBIAN_PACKAGES[name].recommends),
          '--no-install-recommends',
        ),
    ],
    { stdio: 'ignore', timeout: 600_000 },
  );
}
