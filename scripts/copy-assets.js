// Copies what the build's JavaScript reads from disk beside it, which tsc does not emit: the hosted
// checkout's browser code and style (apps/gateway/src/hosted-checkout/assets) and the merchant
// console's stylesheet (apps/console/src/assets).
const { cpSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
for (const assets of ['apps/gateway/src/hosted-checkout/assets', 'apps/console/src/assets'])
  cpSync(join(root, assets), join(root, 'dist', assets), { recursive: true });
