// Builds the browser bundles into dist/player/:
//   sprint.js      the embeddable player, UMD (window.Sprint from a <script>
//                  tag, or require()), dash.js 5.2.1 inside
//   sprint.mjs     the same player as an ES module (import { createPlayer } from ...)
//   demo-page.js   the demo page's controller and overlay (uses window.Sprint)
//   peer-shaka.js, peer-hlsjs.js   the A/B harness's peer pages (demo/page/peer.html):
//                  Shaka Player and hls.js, pinned in package.json, with their stats adapters
// and a gzip copy of each (<name>.gz, gzip-copies-plugin.js) for origins that
// send scripts compressed.
// The player's `version` is package.json's, set at build time.
const path = require('path');
const webpack = require('webpack');
const { GzipCopiesPlugin } = require('./gzip-copies-plugin');

const root = path.resolve(__dirname, '..');
const { version } = require(path.join(root, 'package.json'));

const common = {
  mode: 'production',
  context: root,
  devtool: 'source-map',
  target: 'web',
  resolve: {
    extensions: ['.ts', '.js'],
  },
  module: {
    rules: [
      {
        test: /\.ts$/,
        loader: 'ts-loader',
        options: { configFile: path.join(__dirname, 'tsconfig.json') },
        exclude: /node_modules/,
      },
    ],
  },
  plugins: [new webpack.DefinePlugin({ __SPRINT_VERSION__: JSON.stringify(version) }), new GzipCopiesPlugin()],
  performance: { hints: false },
  stats: 'errors-warnings',
};

module.exports = [
  {
    ...common,
    name: 'umd',
    entry: {
      sprint: {
        import: './player/index.ts',
        library: { name: 'Sprint', type: 'umd', umdNamedDefine: true },
      },
      'demo-page': './demo/page/demo.ts',
      'peer-shaka': './demo/page/peers/shaka-page.ts',
      'peer-hlsjs': './demo/page/peers/hlsjs-page.ts',
    },
    output: {
      path: path.join(root, 'dist', 'player'),
      filename: '[name].js',
      // the ES module build writes sprint.mjs beside these at the same time
      clean: { keep: /\.mjs/ },
      // the wrapper names no browser global (webpack's default is `self`); dash.js inside still needs a browser
      globalObject: 'globalThis',
    },
  },
  {
    ...common,
    name: 'esm',
    experiments: { outputModule: true },
    entry: { sprint: './player/index.ts' },
    output: {
      path: path.join(root, 'dist', 'player'),
      filename: '[name].mjs',
      library: { type: 'module' },
      module: true,
      clean: false,
    },
  },
];
