// Builds the browser bundles into dist/player/:
//   sprint.js     the embeddable player (window.Sprint), dash.js 5.2.1 inside
//   demo-page.js  the demo page's controller and overlay (uses window.Sprint)
const path = require('path');

const root = path.resolve(__dirname, '..');

module.exports = {
  mode: 'production',
  context: root,
  devtool: 'source-map',
  target: 'web',
  entry: {
    sprint: {
      import: './player/index.ts',
      library: { name: 'Sprint', type: 'umd', umdNamedDefine: true },
    },
    'demo-page': './demo/page/demo.ts',
  },
  output: {
    path: path.join(root, 'dist', 'player'),
    filename: '[name].js',
    clean: true,
  },
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
  performance: { hints: false },
  stats: 'errors-warnings',
};
