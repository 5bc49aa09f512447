// The HTTP test lane run inside a container of the production image, so that the runtime the image
// ships (Debian 13, its Node, the uWebSockets.js build that loads there, the image's own dist/src,
// build/ and node_modules) is the one the lane tests. Only what the tests themselves need is added
// to the container: the compiled tests and their fixtures, the dev-only packages (added beside the
// image's, never over them) and the tools a few tests drive (redis-server, chromium, python3).
// Used by container-build.test.ts.

/** What the lane runs inside the image: test/http and the parser-limit checks. */
export const LANE_FILES = ['dist/test/http/*.test.js', 'dist/test/stress/parser-limits.test.js'];

/** The Debian packages the lane's tests drive: the Redis gate, the console in Chromium, the Python client. */
const LANE_APT = ['redis-server', 'chromium', 'fonts-dejavu-core', 'python3', 'python3-venv'];

/** Checkout paths (relative to the repository) the lane reads besides the image's /app. */
const LANE_COPIES: [string, string][] = [
  ['dist/test', '/app/dist/test'],
  ['test/fixtures', '/app/test/fixtures'],
  ['test/engine/oracles', '/app/test/engine/oracles'],
  // The example files some tests upload (the console's multi-currency desk).
  ['examples', '/app/examples'],
  ['clients', '/app/clients'],
  ['scripts', '/app/scripts'],
  ['tsconfig.json', '/app/tsconfig.json'],
  // This checkout's packages, dev ones included (same lockfile), merged below without overwriting.
  ['node_modules', '/opt/checkout-node_modules'],
];

const MINUTE = 60_000;

type Buildah = (args: string[], timeoutMs?: number) => string;

/** Makes `container` from `image` and lays the lane's tests and tools into it (as root: the image stays untouched). */
export function prepareLane(buildah: Buildah, image: string, container: string): void {
  buildah(['from', '--name', container, image]);
  const root = ['run', '--isolation', 'chroot', '--user', 'root', container, '--'];
  const apt = `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${LANE_APT.join(' ')}`;
  buildah([...root, 'sh', '-c', apt], 20 * MINUTE);
  for (const [from, to] of LANE_COPIES) buildah(['copy', container, from, to], 5 * MINUTE);
  // -n: a package the image has stays the image's; only the dev-only ones are added.
  buildah([...root, 'sh', '-c', 'cp -an /opt/checkout-node_modules/. /app/node_modules/ && rm -rf /opt/checkout-node_modules'], 5 * MINUTE);
}

/** The lane's command inside the container: tap over LANE_FILES from /app, as root (the tests write under /app). */
export function laneCommand(container: string): string[] {
  const tap = `cd /app && npx --no-install tap --disable-coverage --timeout=1800 ${LANE_FILES.join(' ')}`;
  return ['run', '--isolation', 'chroot', '--user', 'root', '--env', 'CI=true', container, '--', 'sh', '-c', tap];
}
