import { loadConfig, requireRuntime } from '../../lib/config';
import { startApi } from '../../api/server';

/**
 * The API as api/server.ts starts it, except for V8's allocation-site pretenuring, which main() turns off and this
 * entry leaves on (V8's default): the other half of the `api-fresh-replicas` comparison.
 */
async function main(): Promise<void> {
  const { close } = await startApi(requireRuntime(loadConfig()));
  process.once('SIGTERM', () => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
