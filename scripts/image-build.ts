// `npm run image:build`: the operator's image as the real node runs it, built from the Dockerfile with buildah
// (tools/cluster/image.ts) and kept in the cache by a hash of its inputs. `npm test`'s node project and image
// test, and `npm run demo -- --node`, build it when they find none; CI builds it ahead, as a set-up step, so the
// tests start from it instead of building it beside them. Where it cannot be built (not root, no buildah) it
// says why and does nothing: the tests that need it skip there, and the image test runs the Dockerfile's steps.
import { imageBuildUnavailableReason, operatorImage } from '../tools/cluster/image.ts';
import { node24 } from '../tools/cluster/node24.ts';

const log = (msg: string) => console.error(`[image] ${msg}`);
const unavailable = imageBuildUnavailableReason();
if (unavailable) {
  log(`not built: ${unavailable}`);
} else {
  const image = await operatorImage({ node: node24(), log });
  log(
    `${image.repository}:${image.tag} ${image.built ? 'built' : 'found'} in ${(image.ms / 1000).toFixed(1)} s`,
  );
  console.log(image.archive);
}
